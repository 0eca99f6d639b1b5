package io.brook.cli;

import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that asks the cluster through {@link Admin} and prints one result: the connection
 * options, {@code --format}, and closing the client are here, the question in {@link #execute}.
 */
abstract class AdminCommand implements Callable<Integer> {
  @Mixin ClientOptions client;
  @Mixin FormatOption output;
  @Spec CommandSpec spec;

  /** Asks the cluster; returns the result tree to print (maps, lists, scalars). */
  abstract Object execute(Admin admin) throws Exception;

  @Override
  public final Integer call() throws Exception {
    Object result;
    try (Admin admin = client.admin()) {
      result = execute(admin);
    }
    output.print(spec.commandLine().getOut(), result);
    return 0;
  }
}
