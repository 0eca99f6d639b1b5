package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A Brook cluster as users run it: N combined nodes, each {@code java -jar brook.jar server
 * server-N.properties} in its own JVM, configured with Kafka's KRaft property names on loopback
 * ports chosen up front outside the kernel's ephemeral range ({@link PortAllocator}). Any node can
 * be killed (SIGKILL), stopped (SIGTERM), paused (SIGSTOP) and resumed (SIGCONT), and started again
 * on the same ports and data. Each start writes its output to its own file under the cluster's
 * directory, so a SIGKILL cannot lose or block it.
 *
 * <p>{@link #startInNamespaces} runs each node in a network namespace of its own instead ({@link
 * NetworkNamespaces}: a private subnet the harness creates and deletes), so that links between
 * nodes, and between a node and the test JVM, can be cut and healed. That needs Linux, root and
 * iproute2; {@link #networkFaultsUnavailableReason()} says why not where they are missing.
 */
public final class ClusterHarness implements AutoCloseable {
  /**
   * What {@code brook server} prints once the node is registered and unfenced (a broker) or runs
   * its part of the quorum (a controller-only node).
   */
  static final String READY_LINE = "Brook is running on port ";

  /** How long a node may take from its launch to {@link #READY_LINE}, unless told otherwise. */
  public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(90);

  /**
   * Written in a node property's value, stands for {@link #testHost()}: the nodes' settings are
   * given before the harness has chosen their subnet.
   */
  public static final String TEST_HOST = "${test.host}";

  /**
   * System property: {@code true} runs the nodes with the JVM's full tiered compilation (C2), as a
   * production broker, instead of C1 only.
   */
  public static final String FULL_JIT_PROPERTY = "brook.cluster.fullJit";

  /**
   * System property: JVM options added to every node's command line, separated by spaces, with
   * {@code {id}} replaced by the node's id; for diagnosing a run, for example {@code
   * -XX:StartFlightRecording=filename=/tmp/node-{id}.jfr,settings=profile}.
   */
  public static final String JVM_OPTIONS_PROPERTY = "brook.cluster.jvmOptions";

  /**
   * System property: a directory of Apache Kafka's jars (as {@code scripts/bench/setup.sh} fetches
   * them). Set, every node runs Kafka ({@code kafka.Kafka}) on the same properties files, its
   * storage formatted first, instead of Brook: the reference the fault campaign measures Brook's
   * windows against.
   */
  public static final String KAFKA_LIB_PROPERTY = "brook.cluster.kafkaLib";

  /** What Kafka logs once its broker is unfenced and serving (KafkaRaftServer's startup). */
  static final String KAFKA_READY_LINE = "Kafka Server started";

  private final Path dir;
  private final NetworkNamespaces network;
  private final Map<Integer, Node> nodes = new LinkedHashMap<>();
  private IntFunction<Map<String, String>> nodeConfig = id -> Map.of();
  private IntFunction<List<String>> launchPrefix = id -> List.of();
  private IntFunction<Map<String, String>> environment = id -> Map.of();
  private Duration readyTimeout = DEFAULT_READY_TIMEOUT;

  /** A client listener every broker has besides PLAINTEXT, or null. */
  private String extraListener;

  private ClusterHarness(Path dir, NetworkNamespaces network) {
    this.dir = dir;
    this.network = network;
  }

  /**
   * {@code count} combined nodes (ids 1 to count) on loopback: writes their properties files,
   * starts every node at once and waits until all are ready.
   */
  public static ClusterHarness start(Path dir, int count, Map<String, String> extraConfig)
      throws IOException {
    return start(dir, count, 0, extraConfig);
  }

  /**
   * As {@link #start(Path, int, Map)}, with properties of each node's own on top: {@code
   * nodeConfig} maps a node id to them (for example a distinct {@code broker.rack} per node).
   */
  public static ClusterHarness start(
      Path dir,
      int count,
      Map<String, String> extraConfig,
      IntFunction<Map<String, String>> nodeConfig)
      throws IOException {
    return start(dir, count, 0, extraConfig, false, nodeConfig);
  }

  /**
   * As {@link #start(Path, int, Map, IntFunction)}, each node's command line after the program and
   * arguments of {@code launchPrefix} (for example {@code unshare} to give one node a disk of its
   * own); the prefix must exec the command, so that signals reach the JVM.
   */
  public static ClusterHarness start(
      Path dir,
      int count,
      Map<String, String> extraConfig,
      IntFunction<Map<String, String>> nodeConfig,
      IntFunction<List<String>> launchPrefix)
      throws IOException {
    ClusterHarness harness = new ClusterHarness(dir, null);
    harness.launchPrefix = launchPrefix;
    return harness.startNodes(nodeIds(count, 0), false, extraConfig, nodeConfig);
  }

  /**
   * As {@link #start(Path, int, Map, IntFunction)}, every node also serving clients on {@code
   * listener} (a listener name, which {@code listener.security.protocol.map} in {@code extraConfig}
   * must map, for example {@code SASL_PLAINTEXT}) on a port of its own, advertised; PLAINTEXT stays
   * the inter-broker listener.
   */
  public static ClusterHarness startWithListener(
      Path dir,
      int count,
      String listener,
      Map<String, String> extraConfig,
      IntFunction<Map<String, String>> nodeConfig)
      throws IOException {
    ClusterHarness harness = new ClusterHarness(dir, null);
    harness.extraListener = listener;
    return harness.startNodes(nodeIds(count, 0), false, extraConfig, nodeConfig);
  }

  private static List<Integer> nodeIds(int controllers, int brokerOnly) {
    List<Integer> ids = new ArrayList<>();
    for (int id = 1; id <= controllers; id++) {
      ids.add(id);
    }
    for (int id = 101; id <= 100 + brokerOnly; id++) {
      ids.add(id);
    }
    return ids;
  }

  /**
   * {@code controllers} nodes with the controller role (ids 1 on), combined when {@code brokerOnly}
   * is 0, else controller-only, plus {@code brokerOnly} broker-only nodes (ids from 101): the
   * production layout, on loopback.
   */
  public static ClusterHarness start(
      Path dir, int controllers, int brokerOnly, Map<String, String> extraConfig)
      throws IOException {
    return start(dir, controllers, brokerOnly, extraConfig, false);
  }

  /**
   * {@code count} combined nodes, each in its own network namespace, so that links can be cut
   * ({@link #cut}, {@link #isolate}). Only where {@link #networkFaultsUnavailableReason()} is
   * empty.
   */
  public static ClusterHarness startInNamespaces(
      Path dir, int count, Map<String, String> extraConfig) throws IOException {
    return startInNamespaces(dir, count, 0, extraConfig);
  }

  /**
   * {@code count} combined nodes, in network namespaces if {@code inNamespaces}, each started with
   * the environment variables {@code environment} maps its id to on top of the test JVM's (for
   * example an {@code LD_PRELOAD} library that fakes the clock or fails disk writes), every start
   * given {@code readyTimeout} to become ready (a preloaded library can slow a JVM's start).
   */
  public static ClusterHarness startWithEnvironment(
      Path dir,
      int count,
      Map<String, String> extraConfig,
      boolean inNamespaces,
      IntFunction<Map<String, String>> environment,
      Duration readyTimeout)
      throws IOException {
    return startWithEnvironment(
        dir, count, extraConfig, id -> Map.of(), inNamespaces, environment, readyTimeout);
  }

  /**
   * As {@link #startWithEnvironment(Path, int, Map, boolean, IntFunction, Duration)}, with
   * properties of each node's own on top ({@code nodeConfig}, as {@link #start(Path, int, Map,
   * IntFunction)}).
   */
  public static ClusterHarness startWithEnvironment(
      Path dir,
      int count,
      Map<String, String> extraConfig,
      IntFunction<Map<String, String>> nodeConfig,
      boolean inNamespaces,
      IntFunction<Map<String, String>> environment,
      Duration readyTimeout)
      throws IOException {
    List<Integer> ids = nodeIds(count, 0);
    ClusterHarness harness =
        new ClusterHarness(dir, inNamespaces ? NetworkNamespaces.create(ids) : null);
    harness.environment = environment;
    harness.readyTimeout = readyTimeout;
    return harness.startNodes(ids, false, extraConfig, nodeConfig);
  }

  /** As {@link #start(Path, int, int, Map)}, each node in its own network namespace. */
  public static ClusterHarness startInNamespaces(
      Path dir, int controllers, int brokerOnly, Map<String, String> extraConfig)
      throws IOException {
    return start(dir, controllers, brokerOnly, extraConfig, true);
  }

  private static ClusterHarness start(
      Path dir,
      int controllers,
      int brokerOnly,
      Map<String, String> extraConfig,
      boolean inNamespaces)
      throws IOException {
    return start(dir, controllers, brokerOnly, extraConfig, inNamespaces, id -> Map.of());
  }

  private static ClusterHarness start(
      Path dir,
      int controllers,
      int brokerOnly,
      Map<String, String> extraConfig,
      boolean inNamespaces,
      IntFunction<Map<String, String>> nodeConfig)
      throws IOException {
    List<Integer> ids = nodeIds(controllers, brokerOnly);
    ClusterHarness harness =
        new ClusterHarness(dir, inNamespaces ? NetworkNamespaces.create(ids) : null);
    return harness.startNodes(ids, brokerOnly > 0, extraConfig, nodeConfig);
  }

  private ClusterHarness startNodes(
      List<Integer> ids,
      boolean separateRoles,
      Map<String, String> extraConfig,
      IntFunction<Map<String, String>> config)
      throws IOException {
    nodeConfig = config;
    try {
      configure(ids, separateRoles, extraConfig);
      if (runsKafka()) {
        prepareKafkaNodes();
      }
      for (Node node : nodes.values()) {
        node.launch();
      }
      for (Node node : nodes.values()) {
        node.awaitReady();
      }
    } catch (IOException | RuntimeException | Error e) {
      close();
      throw e;
    }
    return this;
  }

  /**
   * Writes every node's properties. On loopback each node gets two ports from {@link
   * PortAllocator}, outside the kernel's ephemeral range: a node is killed and restarted on them,
   * and an ephemeral port could meanwhile become the local end of any connection (another node's
   * reconnect attempts, a client's). In namespaces each node has an address of its own, so all use
   * Kafka's usual 9092 (clients) and 9093 (controller), outside the namespace's ephemeral range.
   */
  private void configure(List<Integer> ids, boolean separateRoles, Map<String, String> extra)
      throws IOException {
    Map<Integer, int[]> ports = new LinkedHashMap<>();
    for (int id : ids) {
      boolean controller = id <= 100;
      if (network == null) {
        ports.put(
            id,
            new int[] {
              PortAllocator.shared().allocate(),
              controller ? PortAllocator.shared().allocate() : -1,
              extraListener != null ? PortAllocator.shared().allocate() : -1
            });
      } else {
        ports.put(id, new int[] {9092, controller ? 9093 : -1, extraListener != null ? 9094 : -1});
      }
    }
    String voters =
        ports.entrySet().stream()
            .filter(e -> e.getValue()[1] > 0)
            .map(e -> e.getKey() + "@" + host(e.getKey()) + ":" + e.getValue()[1])
            .collect(Collectors.joining(","));
    for (Map.Entry<Integer, int[]> e : ports.entrySet()) {
      int id = e.getKey();
      String roles;
      if (e.getValue()[1] < 0) {
        roles = "broker";
      } else {
        roles = separateRoles ? "controller" : "broker,controller";
      }
      Path config = writeConfig(id, roles, e.getValue(), voters, extra);
      List<String> prefix = network == null ? launchPrefix.apply(id) : network.exec(id);
      Node node = new Node(id, roles, host(id), e.getValue(), config, dir, prefix);
      node.environment = environment.apply(id);
      node.readyTimeout = readyTimeout;
      nodes.put(id, node);
    }
  }

  /** Whether the nodes run Apache Kafka instead of Brook ({@link #KAFKA_LIB_PROPERTY}). */
  public static boolean runsKafka() {
    return System.getProperty(KAFKA_LIB_PROPERTY) != null;
  }

  /**
   * Kafka's nodes need their storage formatted with the cluster's id before the first start (Brook
   * needs no such step), and a log4j2 configuration that logs to the output the harness reads.
   */
  private void prepareKafkaNodes() throws IOException {
    Files.writeString(
        dir.resolve(Node.KAFKA_LOG4J),
        String.join(
            "\n",
            "status = error",
            "appender.out.type = Console",
            "appender.out.name = OUT",
            "appender.out.layout.type = PatternLayout",
            "appender.out.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = info",
            "rootLogger.appenderRef.out.ref = OUT",
            "logger.request.name = kafka.request.logger",
            "logger.request.level = warn",
            ""));
    String clusterId = org.apache.kafka.common.Uuid.randomUuid().toString();
    for (Node node : nodes.values()) {
      List<String> command = new ArrayList<>(Node.kafkaJava());
      command.addAll(
          List.of(
              "kafka.tools.StorageTool",
              "format",
              "--config",
              node.config().toString(),
              "--cluster-id",
              clusterId));
      Path output = dir.resolve("format-" + node.id() + ".log");
      Process format =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      try {
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
          format.destroyForcibly();
          throw new IllegalStateException(
              "formatting Kafka's storage of node "
                  + node.id()
                  + " failed: "
                  + Files.readString(output));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * The address the nodes reach this JVM on: 127.0.0.1, or the bridge's address on their subnet in
   * namespaces. A server the test runs for the nodes (an S3 store) binds it, or every address.
   */
  public String testHost() {
    return network == null ? "127.0.0.1" : network.hostAddress();
  }

  /** The address node {@code id} listens on and advertises. */
  private String host(int id) {
    return network == null ? "127.0.0.1" : network.address(id);
  }

  private Path writeConfig(
      int id, String roles, int[] ports, String voters, Map<String, String> extra)
      throws IOException {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", Integer.toString(id));
    props.put("process.roles", roles);
    List<String> listeners = new ArrayList<>();
    if (roles.contains("broker")) {
      List<String> advertised = new ArrayList<>();
      advertised.add("PLAINTEXT://" + host(id) + ":" + ports[0]);
      if (ports.length > 2 && ports[2] > 0) {
        advertised.add(extraListener + "://" + host(id) + ":" + ports[2]);
      }
      listeners.addAll(advertised);
      props.put("advertised.listeners", String.join(",", advertised));
    }
    if (roles.contains("controller")) {
      listeners.add("CONTROLLER://" + host(id) + ":" + ports[1]);
    }
    props.put("listeners", String.join(",", listeners));
    props.put("controller.listener.names", "CONTROLLER");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    if (roles.contains("broker")) {
      props.put("inter.broker.listener.name", "PLAINTEXT");
    }
    if (voters != null) {
      props.put("controller.quorum.voters", voters);
    }
    props.put("log.dirs", dir.resolve("data-" + id).toString());
    props.put("num.partitions", "1");
    props.putAll(extra);
    props.putAll(nodeConfig.apply(id));
    props.replaceAll((key, value) -> value.replace(TEST_HOST, testHost()));
    Path file = dir.resolve("server-" + id + ".properties");
    Files.writeString(
        file,
        props.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n"))
            + "\n");
    return file;
  }

  public Node node(int id) {
    return nodes.get(id);
  }

  /**
   * Starts one more combined node on loopback that finds the quorum through {@code
   * controller.quorum.bootstrap.servers} (every running controller) instead of {@code
   * controller.quorum.voters}, as KIP-853 grows a cluster, and waits until it is ready: it then
   * follows the metadata as an observer and serves as a broker, but does not vote until added.
   */
  public Node addBootstrapNode(int id, Map<String, String> extra) throws IOException {
    int[] ports = {PortAllocator.shared().allocate(), PortAllocator.shared().allocate()};
    String bootstrap =
        nodes.values().stream()
            .filter(n -> n.controllerPort() > 0)
            .map(n -> n.host + ":" + n.controllerPort())
            .collect(Collectors.joining(","));
    Map<String, String> config = new LinkedHashMap<>(extra);
    config.put("controller.quorum.bootstrap.servers", bootstrap);
    Path file = writeConfig(id, "broker,controller", ports, null, config);
    Node node = new Node(id, "broker,controller", host(id), ports, file, dir, List.of());
    nodes.put(id, node);
    node.launch();
    return node.awaitReady();
  }

  public List<Node> nodes() {
    return List.copyOf(nodes.values());
  }

  /** The nodes with the broker role. */
  public List<Node> brokers() {
    return nodes.values().stream().filter(Node::isBroker).toList();
  }

  /** Every broker's client listener. */
  public String bootstrapServers() {
    return brokers().stream().map(Node::bootstrap).collect(Collectors.joining(","));
  }

  /**
   * Why {@link #startInNamespaces} (and so {@link #cut}, {@link #isolate}) cannot run on this
   * machine, or empty if it can: it needs Linux, root and iproute2. Tests skip with this reason.
   */
  public static Optional<String> networkFaultsUnavailableReason() {
    return NetworkNamespaces.unavailableReason();
  }

  /**
   * Cuts the link between two nodes, both ways: neither reaches the other, established connections
   * between them stall. Idempotent; only on a harness from {@link #startInNamespaces}.
   */
  public void cut(Node a, Node b) {
    network().cut(a.id(), b.id());
  }

  /** Heals what {@link #cut} cut (idempotent). */
  public void heal(Node a, Node b) {
    network().heal(a.id(), b.id());
  }

  /**
   * Cuts one listener between two nodes, both ways, and nothing else of their link: {@code
   * controller} the CONTROLLER listener (Raft, and each broker's heartbeats and requests to the
   * active controller), else the brokers' listener (replication, inter-broker requests, clients
   * between them). Idempotent; only on a harness in network namespaces.
   */
  public void cutListener(Node a, Node b, boolean controller) {
    network().cutPort(a.id(), b.id(), listenerPort(a, b, controller));
  }

  /** Why {@link #cutListener} cannot run on this machine (it needs iptables), or empty. */
  public static Optional<String> listenerCutsUnavailableReason() {
    return PacketImpairer.iptablesBinary() == null
        ? Optional.of("iptables is not installed")
        : Optional.empty();
  }

  /** Heals what {@link #cutListener} cut (idempotent). */
  public void healListener(Node a, Node b, boolean controller) {
    network().healPort(a.id(), b.id(), listenerPort(a, b, controller));
  }

  /** In namespaces every node has the same ports (9092, 9093), so one port names the listener. */
  private static int listenerPort(Node a, Node b, boolean controller) {
    int port = controller ? a.controllerPort : a.port;
    int other = controller ? b.controllerPort : b.port;
    if (port != other || port < 0) {
      throw new IllegalArgumentException(
          "nodes " + a.id() + " and " + b.id() + " have no common port for that listener");
    }
    return port;
  }

  /**
   * Cuts every link of the node: to each other node and to the test JVM (its clients and {@link
   * ServedMetadata} fail fast on it). Idempotent.
   */
  public void isolate(Node node) {
    for (int other : network().nodeIds()) {
      network.cut(node.id(), other);
    }
    network.cut(node.id(), NetworkNamespaces.CLIENT);
  }

  /** Heals every link of the node, including ones cut one by one with {@link #cut}. */
  public void rejoin(Node node) {
    for (int other : network().nodeIds()) {
      network.heal(node.id(), other);
    }
    network.heal(node.id(), NetworkNamespaces.CLIENT);
  }

  /**
   * Cuts one direction of the link between two nodes: {@code from} cannot send to {@code to}, the
   * other way still works. Idempotent; only on a harness from {@link #startInNamespaces}.
   */
  public void cutOneWay(Node from, Node to) {
    network().cutOneWay(from.id(), to.id());
  }

  /** Heals what {@link #cutOneWay} cut (idempotent). */
  public void healOneWay(Node from, Node to) {
    network().healOneWay(from.id(), to.id());
  }

  /**
   * Makes the node's link slow and lossy both ways (to the other nodes and to the test JVM): at
   * most {@code bitsPerSecond}, with what exceeds it queued for at most {@code queueMillis} and
   * dropped after. Only on a harness from {@link #startInNamespaces}, where {@link
   * #slowLinksUnavailableReason} is empty.
   */
  public void slowLink(Node node, long bitsPerSecond, int queueMillis) {
    network().slow(node.id(), bitsPerSecond, queueMillis);
  }

  /** Restores what {@link #slowLink} throttled (idempotent). */
  public void restoreLink(Node node) {
    network().restore(node.id());
  }

  /** Packets the throttle of the node's link dropped so far (0 when it is not throttled). */
  public long droppedPackets(Node node) {
    return network().droppedPackets(node.id());
  }

  /** Why {@link #slowLink} cannot run on this machine, or empty if it can. */
  public static Optional<String> slowLinksUnavailableReason() {
    return NetworkNamespaces.slowLinksUnavailableReason();
  }

  /**
   * Degrades the node's link both ways (to the other nodes and to the test JVM): packets delayed,
   * reordered, dropped and duplicated as {@code impairment} says, until {@link #unimpairLink}. Only
   * on a harness from {@link #startInNamespaces}, where {@link #impairedLinksUnavailableReason} is
   * empty.
   */
  public void impairLink(Node node, LinkImpairment impairment, long seed) {
    network().impair(node.id(), impairment, seed);
  }

  /** Ends what {@link #impairLink} did and returns its effect (idempotent). */
  public LinkImpairment.Effect unimpairLink(Node node) {
    return network().unimpair(node.id());
  }

  /** Why {@link #impairLink} cannot run on this machine, or empty if it can. */
  public static Optional<String> impairedLinksUnavailableReason() {
    return NetworkNamespaces.impairedLinksUnavailableReason();
  }

  /** Whether the nodes run in network namespaces, so that links can be cut. */
  public boolean inNamespaces() {
    return network != null;
  }

  /** The directory of the cluster: properties files, data directories and node logs. */
  public Path dir() {
    return dir;
  }

  /**
   * Starts the given stopped nodes together and waits until all are ready: nodes that together hold
   * the quorum's majority only become ready once enough of them run, so they cannot be restarted
   * one after the other.
   */
  public void restartTogether(List<Node> stopped) throws IOException {
    for (Node node : stopped) {
      assertThat(node.isAlive())
          .as("node %s must be stopped before a restart", node.id())
          .isFalse();
      node.launch();
    }
    for (Node node : stopped) {
      node.awaitReady();
    }
  }

  /** Heals every cut link and restores every slowed one. */
  public void healAll() {
    network().healAll();
  }

  private NetworkNamespaces network() {
    if (network == null) {
      throw new IllegalStateException("links can be cut only in a cluster from startInNamespaces");
    }
    return network;
  }

  /**
   * Kills whatever is still running and keeps every node's output under {@code
   * target/cluster-logs/}, since the cluster's directory is usually a test's temporary one.
   */
  @Override
  public void close() {
    dumpThreads();
    for (Node node : nodes.values()) {
      node.destroy();
    }
    if (network != null) {
      network.close();
    }
    keepLogs();
  }

  /**
   * SIGQUIT to every running node: the JVM prints all its threads' stacks to its output, which
   * {@link #keepLogs} keeps, so a test that hung shows where each node was.
   */
  private void dumpThreads() {
    boolean any = false;
    for (Node node : nodes.values()) {
      try {
        if (node.isAlive()) {
          node.signal("QUIT");
          any = true;
        }
      } catch (AssertionError | RuntimeException e) {
        // It exited meanwhile: nothing to dump.
      }
    }
    if (any) {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void keepLogs() {
    Path kept = Path.of("target", "cluster-logs", dir.getFileName().toString());
    try (var files = Files.list(dir)) {
      Files.createDirectories(kept);
      for (Path log : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.err.println("Cannot keep the nodes' logs in " + kept + ": " + e);
    }
  }

  /** One node's process; started again with {@link #restart()} on the same config. */
  public static final class Node {
    private final int id;
    private final String roles;
    private final String host;
    private final List<String> launchPrefix;
    private final int port;
    private final int controllerPort;
    private final Path config;
    private final Path dir;
    private Map<String, String> environment = Map.of();
    private Duration readyTimeout = DEFAULT_READY_TIMEOUT;
    private int starts;
    private Process process;
    private Path output;

    Node(
        int id,
        String roles,
        String host,
        int[] ports,
        Path config,
        Path dir,
        List<String> launchPrefix) {
      this.id = id;
      this.roles = roles;
      this.host = host;
      this.launchPrefix = launchPrefix;
      this.port = ports[0];
      this.controllerPort = ports[1];
      this.config = config;
      this.dir = dir;
    }

    public int id() {
      return id;
    }

    /** The node's properties file (what {@code kafka-metadata-quorum --command-config} reads). */
    public Path config() {
      return config;
    }

    public String bootstrap() {
      return host + ":" + port;
    }

    public boolean isBroker() {
      return roles.contains("broker");
    }

    /** The Raft (CONTROLLER listener) port, or -1 on a broker-only node. */
    public int controllerPort() {
      return controllerPort;
    }

    void launch() throws IOException {
      starts++;
      output = dir.resolve("node-" + id + "-start-" + starts + ".log");
      List<String> command = new ArrayList<>(launchPrefix);
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx512m");
      if (!Boolean.getBoolean(FULL_JIT_PROPERTY)) {
        // C1 only: a node starts and warms up sooner, which the short ITs gain from. Runs that
        // time a node (the console-scale profile) compile as a production broker does.
        command.add("-XX:TieredStopAtLevel=1");
      }
      for (String option : System.getProperty(JVM_OPTIONS_PROPERTY, "").trim().split("\\s+")) {
        if (!option.isEmpty()) {
          command.add(option.replace("{id}", Integer.toString(id)));
        }
      }
      if (runsKafka()) {
        command.add("-Dlog4j2.configurationFile=" + dir.resolve(KAFKA_LOG4J).toAbsolutePath());
        command.add("-Dkafka.logs.dir=" + dir.resolve("kafka-logs-" + id).toAbsolutePath());
        command.add("-cp");
        command.add(kafkaClasspath());
        command.add("kafka.Kafka");
      } else {
        command.add("-jar");
        command.add(jar().toString());
        command.add("server");
      }
      command.add(config.toString());
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
      builder.environment().putAll(environment);
      Process started = builder.start();
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> started.toHandle().destroyForcibly(), "kill-node"));
      process = started;
    }

    /** Waits for the ready line; fails early if the process died. */
    public Node awaitReady() {
      String readyLine = runsKafka() ? KAFKA_READY_LINE : READY_LINE;
      await("node " + id + " prints '" + readyLine + "' (output: " + output + ")")
          .atMost(readyTimeout)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new AssertionError(
                      "node " + id + " exited with " + process.exitValue() + ":\n" + log());
                }
                return log().contains(readyLine);
              });
      if (!launchPrefix.isEmpty()) {
        // `ip netns exec` must have exec'ed java in place: signals go to the pid we hold.
        process
            .info()
            .command()
            .ifPresent(
                command ->
                    assertThat(command).as("program of node %s's pid", id).endsWith("/java"));
      }
      return this;
    }

    /** Output of the current (or last) start. */
    public String log() {
      try {
        return Files.readString(output);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    public boolean isAlive() {
      return process != null && process.isAlive();
    }

    /** The process id of the current (or last) start, for example to attach to its JVM. */
    public long pid() {
      return process.pid();
    }

    /** SIGKILL; returns once the process is gone. */
    public void kill() throws InterruptedException {
      process.toHandle().destroyForcibly();
      waitForExit(Duration.ofSeconds(30));
    }

    /** SIGTERM (controlled shutdown); returns once it exited. */
    public void stop() throws InterruptedException {
      process.toHandle().destroy();
      waitForExit(Duration.ofSeconds(60));
    }

    /** Waits until the process exits on its own and returns its exit status. */
    public int awaitExit(Duration timeout) throws InterruptedException {
      waitForExit(timeout);
      return process.exitValue();
    }

    /**
     * SIGQUIT: the JVM prints every thread's stack to the node's output, which this waits (up to
     * {@code within}) to see there, so that a node about to be killed for being stuck shows where
     * it was. Returns whether the dump appeared.
     */
    public boolean dumpThreads(Duration within) {
      String header = "Full thread dump";
      int before = occurrences(log(), header);
      signal("QUIT");
      try {
        await("node " + id + "'s thread dump")
            .atMost(within)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> occurrences(log(), header) > before);
        return true;
      } catch (ConditionTimeoutException e) {
        return false;
      }
    }

    private static int occurrences(String text, String part) {
      int count = 0;
      for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
        count++;
      }
      return count;
    }

    /** SIGSTOP: the process stays, silent, holding its ports. */
    public void pause() {
      signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
      signal("CONT");
    }

    /** Starts the node again on the same ports and data and waits until it is ready. */
    public void restart() throws IOException {
      assertThat(isAlive()).as("node %s must be stopped before a restart", id).isFalse();
      launch();
      awaitReady();
    }

    void signal(String name) {
      try {
        Process kill =
            new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %s", name, process.pid()).isZero();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    private void waitForExit(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("node " + id + " did not exit within " + timeout + ":\n" + log());
      }
    }

    void destroy() {
      if (process != null && process.isAlive()) {
        // SIGKILL ends a paused (SIGSTOP) process too.
        process.toHandle().destroyForcibly();
        process.onExit().join();
      }
    }

    static final String KAFKA_LOG4J = "log4j2-kafka.properties";

    /** The class path of Kafka's jars in {@link #KAFKA_LIB_PROPERTY}. */
    private static String kafkaClasspath() {
      Path lib = Path.of(System.getProperty(KAFKA_LIB_PROPERTY));
      String[] jars = lib.toFile().list((d, name) -> name.matches("kafka_2\\.\\d+-.*\\.jar"));
      assertThat(jars)
          .as("Kafka's server jar in %s; fetch Kafka's jars with scripts/bench/setup.sh", lib)
          .isNotEmpty();
      return lib.toAbsolutePath() + "/*";
    }

    /** A JVM running a class of Kafka's (its tools, for formatting storage). */
    static List<String> kafkaJava() {
      return List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m",
          "-cp",
          kafkaClasspath());
    }

    private static Path jar() {
      Path jar = Path.of(System.getProperty("brook.jar", "../brook-server/target/brook.jar"));
      assertThat(jar).as("brook.jar; build it first: mvn -B verify").exists();
      return jar.toAbsolutePath().normalize();
    }
  }
}
