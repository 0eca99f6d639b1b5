package io.brook.cli;

import io.brook.server.BrookMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code brook} command. Exit codes scripts can test: 0 on success, 1 when the operation failed
 * (the cluster refused it, could not be reached, ...), 2 on a usage error.
 */
@Command(
    name = "brook",
    mixinStandardHelpOptions = true,
    versionProvider = BrookCli.Version.class,
    description = "Brook, a Kafka-compatible event log: run a node, or operate a cluster.",
    subcommands = {
      BrookMain.Dev.class,
      BrookMain.Server.class,
      ClusterCommand.class,
      TopicCommand.class,
      ProduceCommand.class,
      ConsumeCommand.class,
      GroupCommand.class,
      VerifyCommand.class,
      ConfigCommand.class,
      ProfileCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class BrookCli implements Runnable {

  /** Exit status of a failed operation. */
  public static final int FAILED = 1;

  /** Exit status of a usage error (picocli's default for invalid input). */
  public static final int USAGE = 2;

  @Spec CommandSpec spec;

  private final InputStream stdin;

  /** Reads {@code brook produce}'s records from {@code stdin}. */
  public BrookCli(InputStream stdin) {
    this.stdin = stdin;
  }

  InputStream stdin() {
    return stdin;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A command line wired with Brook's error handling; tests set its out and err writers. */
  public static CommandLine commandLine(InputStream stdin) {
    CommandLine cli = new CommandLine(new BrookCli(stdin));
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("brook: error: " + describe(e));
          commandLine.getErr().flush();
          return FAILED;
        });
    return cli;
  }

  public static void main(String[] args) {
    System.exit(commandLine(System.in).execute(args));
  }

  /** One line for the operator: the cause Kafka's futures wrap, not the wrapper. */
  static String describe(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof ExecutionException
            || cause instanceof UncheckedIOException
            || cause instanceof CommandLine.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    if (cause instanceof CliException) {
      return message;
    }
    String kind = cause.getClass().getSimpleName();
    String text = message == null ? kind : kind + ": " + message;
    // "Failed to construct kafka producer" and the like: the reason is underneath.
    if (cause.getCause() != null && cause.getCause() != cause) {
      text += " (" + describe(cause.getCause()) + ")";
    }
    return text;
  }

  /** The project version, from a resource filtered at build time. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties props = new Properties();
      try (InputStream in = BrookCli.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          props.load(in);
        }
      }
      return new String[] {"brook " + props.getProperty("version", "unknown")};
    }
  }
}
