package io.brook.testkit;

import io.brook.server.BrookServer;
import io.brook.server.config.BrokerConfig;
import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Several combined (broker and controller) Brook nodes in the test's JVM, forming one cluster over
 * a Raft quorum on loopback ports. Nodes can be stopped and started again on the same ports and
 * data.
 *
 * <p>The ports are fixed when the cluster is built (the voter list names every controller port
 * before any node starts) and bound again at every restart, so they come from {@link
 * PortAllocator}: outside the kernel's ephemeral range, so no outgoing connection (say, another
 * node's reconnect attempts) can take one while its node is down, and reserved against other test
 * JVMs on the machine. Keeping the listeners open across a restart instead would need the node to
 * adopt sockets bound by someone else, which neither its Netty listeners nor the Ratis gRPC server
 * do.
 *
 * <pre>{@code
 * try (EmbeddedBrookCluster cluster = EmbeddedBrookCluster.builder().nodes(3).start()) {
 *   props.put("bootstrap.servers", cluster.bootstrapServers());
 * }
 * }</pre>
 */
public final class EmbeddedBrookCluster implements AutoCloseable {
  private final Path dataDir;
  private final Map<String, String> overrides;
  private final boolean adminListeners;

  /** Per node: the client, controller and admin listener ports. */
  private final Map<Integer, int[]> ports = new LinkedHashMap<>();

  private final Map<Integer, BrookServer> servers = new LinkedHashMap<>();

  private EmbeddedBrookCluster(
      Path dataDir, int nodes, Map<String, String> overrides, boolean adminListeners) {
    this.dataDir = dataDir;
    this.overrides = overrides;
    this.adminListeners = adminListeners;
    for (int id = 1; id <= nodes; id++) {
      PortAllocator allocator = PortAllocator.shared();
      int[] nodePorts =
          adminListeners
              ? new int[] {allocator.allocate(), allocator.allocate(), allocator.allocate()}
              : new int[] {allocator.allocate(), allocator.allocate()};
      ports.put(id, nodePorts);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code host:port,...} of every node's client listener. */
  public String bootstrapServers() {
    return ports.values().stream().map(p -> "127.0.0.1:" + p[0]).collect(Collectors.joining(","));
  }

  /** {@code host:port} of one node's client listener. */
  public String bootstrapServers(int nodeId) {
    return "127.0.0.1:" + ports.get(nodeId)[0];
  }

  /**
   * The port of a node's admin HTTP listener, fixed for the cluster's life (so it can be watched
   * while the node starts); only with {@link Builder#adminListeners()}.
   */
  public int adminPort(int nodeId) {
    if (!adminListeners) {
      throw new IllegalStateException("the cluster was built without admin listeners");
    }
    return ports.get(nodeId)[2];
  }

  public List<Integer> nodeIds() {
    return List.copyOf(ports.keySet());
  }

  /** A running node, or null if stopped. */
  public synchronized BrookServer server(int nodeId) {
    return servers.get(nodeId);
  }

  /** Stops a node cleanly (controlled shutdown). */
  public synchronized void stop(int nodeId) {
    BrookServer server = servers.remove(nodeId);
    if (server != null) {
      server.close();
    }
  }

  /** Starts a stopped node again on its ports and data; returns once it is unfenced. */
  public void restart(int nodeId) {
    awaitPortsFree(ports.get(nodeId));
    BrookServer server = startServer(nodeId);
    synchronized (this) {
      servers.put(nodeId, server);
    }
  }

  private void startAll() {
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int id : ports.keySet()) {
      // In parallel: a node waits for a quorum majority before it counts as started.
      starts.add(CompletableFuture.runAsync(() -> restart(id)));
    }
    try {
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      close();
      throw e;
    }
  }

  private BrookServer startServer(int nodeId) {
    int[] p = ports.get(nodeId);
    String voters =
        ports.entrySet().stream()
            .map(e -> e.getKey() + "@127.0.0.1:" + e.getValue()[1])
            .collect(Collectors.joining(","));
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", Integer.toString(nodeId));
    props.put("process.roles", "broker,controller");
    props.put("listeners", "PLAINTEXT://127.0.0.1:" + p[0] + ",CONTROLLER://127.0.0.1:" + p[1]);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + p[0]);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("controller.quorum.voters", voters);
    props.put("log.dirs", dataDir.resolve("node-" + nodeId).toString());
    props.put("num.network.threads", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    if (adminListeners) {
      props.put("brook.admin.listener", "http://127.0.0.1:" + p[2]);
    }
    props.putAll(overrides);
    try {
      return BrookServer.start(BrokerConfig.from(props));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops every node and deletes the data. */
  @Override
  public void close() {
    List<Integer> running;
    synchronized (this) {
      running = new ArrayList<>(servers.keySet());
    }
    running.forEach(this::stop);
    try (Stream<Path> walk = Files.walk(dataDir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A stopped node's listeners may take a moment to release their ports. */
  private static void awaitPortsFree(int[] nodePorts) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    for (int port : nodePorts) {
      while (!isFree(port) && System.nanoTime() < deadline) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Configures an {@link EmbeddedBrookCluster}. */
  public static final class Builder {
    private int nodes = 3;
    private boolean adminListeners;
    private final Map<String, String> overrides = new LinkedHashMap<>();

    private Builder() {}

    /** How many combined nodes (and Raft voters); 3 unless set. */
    public Builder nodes(int count) {
      if (count < 2) {
        throw new IllegalArgumentException("a cluster has at least 2 nodes; use EmbeddedBrook");
      }
      this.nodes = count;
      return this;
    }

    /** Gives every node an admin HTTP listener on a port of its own ({@link #adminPort}). */
    public Builder adminListeners() {
      this.adminListeners = true;
      return this;
    }

    /** Sets one config on every node, by Kafka's name. */
    public Builder config(String name, String value) {
      overrides.put(name, value);
      return this;
    }

    public EmbeddedBrookCluster start() {
      Path dir;
      try {
        dir = Files.createTempDirectory("brook-cluster-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EmbeddedBrookCluster cluster =
          new EmbeddedBrookCluster(dir, nodes, Map.copyOf(overrides), adminListeners);
      cluster.startAll();
      return cluster;
    }
  }
}
