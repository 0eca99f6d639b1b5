package io.brook.server;

import io.brook.server.config.BrokerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code brook dev} and {@code brook server FILE}. */
@Command(
    name = "brook",
    mixinStandardHelpOptions = true,
    description = "Brook, a Kafka-compatible event log.",
    subcommands = {BrookMain.Dev.class, BrookMain.Server.class})
public final class BrookMain implements Callable<Integer> {
  @Override
  public Integer call() {
    CommandLine.usage(this, System.out);
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new BrookMain()).execute(args));
  }

  /**
   * Runs until SIGTERM / Ctrl-C, then shuts down cleanly. The hook halts with status 0 once the
   * node is closed: a signal-initiated JVM exit would otherwise report 143, and a clean stop is not
   * an error. A node that stopped because every log directory failed exits with 1.
   */
  static int runUntilStopped(BrokerConfig config, String hint) throws Exception {
    BrookServer server = BrookServer.start(config);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  Runtime.getRuntime().halt(server.exitStatus());
                },
                "brook-shutdown"));
    System.out.println(
        hint.replace("{port}", Integer.toString(firstPort(server, config)))
            .replace("{console}", consoleLine(server, config)));
    System.out.flush();
    server.awaitShutdown();
    return server.exitStatus();
  }

  /** The ready block's console line, when the admin listener (which serves it) is on. */
  private static String consoleLine(BrookServer server, BrokerConfig config) {
    if (server.adminPort() < 0 || !config.isBroker()) {
      return "";
    }
    return "  console            http://"
        + config.adminListener().getHost()
        + ":"
        + server.adminPort()
        + "/console/\n";
  }

  private static int firstPort(BrookServer server, BrokerConfig config) {
    for (io.brook.server.config.Endpoint endpoint : config.listeners()) {
      if (!config.controllerListenerNames().contains(endpoint.listenerName())) {
        return server.boundPort(endpoint.listenerName());
      }
    }
    return -1;
  }

  @Command(name = "dev", description = "Start one node (broker and controller) on localhost:9092.")
  public static final class Dev implements Callable<Integer> {
    @Option(
        names = "--data-dir",
        defaultValue = "${env:BROOK_DEV_DATA_DIR:-data/dev}",
        description = "Where the node keeps its data (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
        names = "--port",
        defaultValue = "9092",
        description =
            "Port for Kafka clients (default: ${DEFAULT-VALUE}); the controller uses the next one.")
    int port;

    @Option(
        names = "--advertise",
        paramLabel = "HOST",
        description =
            "Listen on every interface and tell clients to connect to HOST (default: localhost only).")
    String advertise;

    @Override
    public Integer call() throws Exception {
      Path dir = dataDir.toAbsolutePath();
      BrokerConfig config = BrokerConfig.devDefaults(dir, port, advertise);
      String host = advertise == null ? "localhost" : advertise;
      return runUntilStopped(
          config,
          "\nBrook is ready.\n"
              + "  bootstrap.servers  "
              + host
              + ":{port}\n"
              + "{console}"
              + "  data directory     "
              + dir
              + "\n  stop               Ctrl-C or SIGTERM (shuts down cleanly)\n");
    }
  }

  @Command(name = "server", description = "Start a node from a Kafka-style properties file.")
  public static final class Server implements Callable<Integer> {
    @Parameters(index = "0", description = "The properties file (Kafka's config names).")
    Path file;

    @Override
    public Integer call() throws Exception {
      BrokerConfig config = BrokerConfig.load(file);
      return runUntilStopped(config, "Brook is running on port {port}. Stop it with SIGTERM.");
    }
  }
}
