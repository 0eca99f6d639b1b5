package io.brook.testkit;

import io.brook.server.BrookServer;
import io.brook.server.config.BrokerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real Brook node inside the test's JVM, on an ephemeral loopback port, with its data in a
 * temporary directory. Public API for users' tests as much as for Brook's own:
 *
 * <pre>{@code
 * try (EmbeddedBrook brook = EmbeddedBrook.builder().config("num.partitions", "3").start()) {
 *   Properties props = new Properties();
 *   props.put("bootstrap.servers", brook.bootstrapServers());
 *   ...
 * }
 * }</pre>
 *
 * <p>Every start binds port 0: the kernel chooses a free port in the act of binding, so there is no
 * moment at which a port is known but not yet held, and nothing (not even an outgoing connection)
 * can take it first. A {@link #restart()} therefore lands on a new port; read {@link
 * #bootstrapServers()} again after it. ({@link EmbeddedBrookCluster} must name its ports before its
 * nodes start and keeps them across restarts, so it takes them from a port allocator instead.)
 */
public final class EmbeddedBrook implements AutoCloseable {
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final Map<String, String> overrides;
  private BrookServer server;

  private EmbeddedBrook(Path dataDir, boolean ownsDataDir, Map<String, String> overrides) {
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.overrides = overrides;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a node with the defaults: one partition per topic, auto-creation on. */
  public static EmbeddedBrook start() {
    return builder().start();
  }

  /** {@code host:port} for {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port();
  }

  public int port() {
    return server.boundPort("PLAINTEXT");
  }

  /**
   * {@code host:port} of another listener, e.g. {@code SSL} after {@code config("listeners",
   * "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:0")}.
   */
  public String bootstrapServers(String listenerName) {
    return "127.0.0.1:" + server.boundPort(listenerName);
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The running node, for tests that look inside. */
  public BrookServer server() {
    return server;
  }

  /** Stops the node cleanly and starts it again on the same data, on a new port. */
  public void restart() {
    server.close();
    server = startServer();
  }

  private BrookServer startServer() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", "1");
    props.put("process.roles", "broker,controller");
    props.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0");
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:0");
    props.put("controller.listener.names", "CONTROLLER");
    props.put("controller.quorum.voters", "1@127.0.0.1:0");
    props.put("log.dirs", dataDir.toString());
    props.put("offsets.topic.replication.factor", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("num.network.threads", "2");
    props.putAll(overrides);
    try {
      return BrookServer.start(BrokerConfig.from(props));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops the node cleanly and deletes its data if the directory was a temporary one. */
  @Override
  public void close() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (ownsDataDir) {
      deleteRecursively(dataDir);
      // The node's caches of remote data live beside its log directory (<dir>-remote-*).
      String prefix = dataDir.getFileName() + "-";
      try (Stream<Path> siblings = Files.list(dataDir.getParent())) {
        siblings
            .filter(p -> p.getFileName().toString().startsWith(prefix))
            .forEach(EmbeddedBrook::deleteRecursively);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Configures an {@link EmbeddedBrook}; any Kafka broker config name may be set. */
  public static final class Builder {
    private Path dataDir;
    private final Map<String, String> overrides = new LinkedHashMap<>();

    private Builder() {}

    /** Keep data here (not deleted on close) instead of in a fresh temporary directory. */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** Sets one broker config, by Kafka's name. */
    public Builder config(String name, String value) {
      overrides.put(name, value);
      return this;
    }

    public EmbeddedBrook start() {
      boolean owns = dataDir == null;
      Path dir;
      try {
        dir = owns ? Files.createTempDirectory("brook-") : dataDir;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EmbeddedBrook brook = new EmbeddedBrook(dir, owns, Map.copyOf(overrides));
      brook.server = brook.startServer();
      return brook;
    }
  }
}
