package io.brook.server;

import io.brook.server.config.BrokerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
  private static final Logger LOG = LoggerFactory.getLogger(BrookMain.class);

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
  static int runUntilStopped(BrokerConfig config, Function<BrookServer, ReadyBlock> ready)
      throws Exception {
    BrookServer server = BrookServer.start(config);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  Runtime.getRuntime().halt(server.exitStatus());
                },
                "brook-shutdown"));
    ready.apply(server).print(System.out, LOG);
    server.awaitShutdown();
    return server.exitStatus();
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
        names = "--admin-port",
        defaultValue = "" + BrokerConfig.DEV_ADMIN_PORT,
        description =
            "Port of the admin listener: /metrics, /health, /ready (default: ${DEFAULT-VALUE},"
                + " skipped when taken; 0: off).")
    int adminPort;

    @Option(
        names = "--http-port",
        defaultValue = "" + BrokerConfig.DEV_HTTP_PORT,
        description =
            "Port of the HTTP API (default: ${DEFAULT-VALUE}, skipped when taken; 0: off).")
    int httpPort;

    @Option(
        names = "--advertise",
        paramLabel = "HOST",
        description =
            "Listen on every interface and tell clients to connect to HOST (default: localhost only).")
    String advertise;

    @Override
    public Integer call() throws Exception {
      Path dir = dataDir.toAbsolutePath();
      BrokerConfig config = BrokerConfig.devDefaults(dir, port, advertise, adminPort, httpPort);
      String host = advertise == null ? "localhost" : advertise;
      return runUntilStopped(
          config,
          server -> {
            ReadyBlock block =
                new ReadyBlock("Brook is ready.")
                    .add("bootstrap.servers", host + ":" + firstPort(server, config));
            if (server.adminPort() > 0) {
              block.add("admin", "http://localhost:" + server.adminPort());
            }
            if (server.httpPort() > 0) {
              block.add("HTTP API", "http://localhost:" + server.httpPort() + "/v1");
            }
            if (server.adminPort() > 0) {
              block.add("console", "http://localhost:" + server.adminPort() + "/console/");
            }
            return block
                .add("data directory", dir.toString())
                .add("stop", "Ctrl-C or SIGTERM (shuts down cleanly)");
          });
    }
  }

  @Command(name = "server", description = "Start a node from a Kafka-style properties file.")
  public static final class Server implements Callable<Integer> {
    @Parameters(index = "0", description = "The properties file (Kafka's config names).")
    Path file;

    @Override
    public Integer call() throws Exception {
      BrokerConfig config = BrokerConfig.load(file);
      return runUntilStopped(
          config,
          server -> {
            String port = Integer.toString(firstPort(server, config));
            // One line that the process harnesses and scripts wait for.
            return new ReadyBlock("Brook is running")
                .add("port", port)
                .asLine("Brook is running on port " + port + ". Stop it with SIGTERM.");
          });
    }
  }
}
