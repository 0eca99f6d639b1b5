package io.brook.tests.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A private network for one cluster: each node in its own network namespace ({@code
 * brook-<pid>-<seq>-n<id>}) with a veth whose other end is on a bridge ({@code bk-<pid36>-<seq36>})
 * in the root namespace, on a /24 of 10.213.0.0/16 that no route of the machine overlaps. The
 * bridge holds the subnet's .254, so the test JVM (in the root namespace) reaches every node
 * directly.
 *
 * <p>A link is cut with a {@code blackhole} route to the peer's /32 in both ends' namespaces (the
 * root namespace standing for the test client): sends to the peer fail at once (EINVAL), and
 * whatever the peer still sends is answered into the blackhole, so established TCP connections
 * stall (they are not reset) until the route is deleted. This needs only iproute2 and root; no
 * firewall. A link is made slow and lossy with a token-bucket qdisc on both ends of the node's veth
 * ({@link #slow}, iproute2's {@code tc}). Names carry the owning JVM's pid so that a later run
 * deletes what a JVM killed before its shutdown hook ran left behind, without touching a live
 * harness's network.
 */
final class NetworkNamespaces implements AutoCloseable {
  /** The endpoint standing for the test JVM in {@link #cut} and {@link #heal}. */
  static final int CLIENT = -1;

  private static final String NAMESPACE_PREFIX = "brook-";
  private static final Pattern OWNED_NAMESPACE = Pattern.compile("^brook-(\\d+)-\\d+-n\\d+$");
  private static final Pattern OWNED_LINK =
      Pattern.compile("^\\d+: (bk-([0-9a-z]+)-[0-9a-z]+(?:-\\d+)?)[@:]");
  private static final Pattern CLIENT_CUT =
      Pattern.compile("^blackhole ((10\\.213\\.\\d+)\\.\\d+)(/32)?\\b.*");
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final Pattern DROPPED = Pattern.compile("\\(dropped (\\d+),");
  private static volatile Optional<String> unavailable;
  private static volatile Optional<String> slowUnavailable;
  private static volatile Optional<String> impairUnavailable;

  private final String bridge;
  private final String subnet;
  private final Map<Integer, String> namespaces = new LinkedHashMap<>();
  private final Map<Integer, String> addresses = new LinkedHashMap<>();
  private final Map<Integer, String> hostLinks = new LinkedHashMap<>();
  private final Set<List<Integer>> cuts = new HashSet<>();

  /** One-way cuts, {@code [from, to]}: {@code from} cannot send to {@code to}. */
  private final Set<List<Integer>> oneWayCuts = new HashSet<>();

  /** Listener cuts, {@code [a, b, port]} with {@code a < b}: {@link #cutPort}. */
  private final Set<List<Integer>> portCuts = new HashSet<>();

  /** Nodes whose link {@link #slow} throttles. */
  private final Set<Integer> slowed = new HashSet<>();

  /** Nodes whose link {@link #impair} degrades, with what degrades it. */
  private final Map<Integer, PacketImpairer> impaired = new LinkedHashMap<>();

  private final Thread shutdownHook = new Thread(this::close, "delete-netns");
  private boolean closed;

  private NetworkNamespaces(String bridge, String subnet) {
    this.bridge = bridge;
    this.subnet = subnet;
  }

  /**
   * Why this machine cannot run nodes in network namespaces, or empty if it can. Found once per JVM
   * by building and tearing down a one-node network with a cut, so exactly what the harness needs
   * is tested. {@code -Dbrook.netns=false} switches it off.
   */
  static synchronized Optional<String> unavailableReason() {
    if (unavailable == null) {
      unavailable = Optional.ofNullable(probe());
    }
    return unavailable;
  }

  private static String probe() {
    if (!Boolean.parseBoolean(System.getProperty("brook.netns", "true"))) {
      return "network namespaces switched off with -Dbrook.netns=false";
    }
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
      return "network namespaces need Linux (this is " + System.getProperty("os.name") + ")";
    }
    if (ipBinary() == null) {
      return "network namespaces need iproute2's `ip`, which is not installed";
    }
    if (!isRoot()) {
      return "network namespaces need root (`ip netns add`, veth, bridge); run the tests as root";
    }
    try (NetworkNamespaces probe = create(List.of(1))) {
      probe.cut(1, CLIENT);
      probe.heal(1, CLIENT);
      return null;
    } catch (RuntimeException e) {
      return "`ip netns`/veth/bridge/blackhole routes do not work here: " + e.getMessage();
    }
  }

  /** Builds the network: one namespace per node id, each up with its address and {@code lo}. */
  static NetworkNamespaces create(List<Integer> nodeIds) {
    deleteStale();
    long pid = ProcessHandle.current().pid();
    String seq = Integer.toString(SEQUENCE.incrementAndGet(), 36);
    // Interface names have at most 15 characters: bk-<pid36 (up to 5)>-<seq36>-<host>.
    String owner = "bk-" + Long.toString(pid, 36) + "-" + seq;
    String subnet = freeSubnet((int) (pid + SEQUENCE.get()));
    NetworkNamespaces network = new NetworkNamespaces(owner, subnet);
    Runtime.getRuntime().addShutdownHook(network.shutdownHook);
    try {
      network.build(nodeIds, NAMESPACE_PREFIX + pid + "-" + seq + "-n", owner + "-");
    } catch (RuntimeException | Error e) {
      network.close();
      throw e;
    }
    return network;
  }

  private synchronized void build(
      List<Integer> nodeIds, String namespacePrefix, String linkPrefix) {
    ip("link", "add", bridge, "type", "bridge");
    ip("addr", "add", subnet + ".254/24", "dev", bridge);
    ip("link", "set", bridge, "up");
    int host = 1;
    for (int id : nodeIds) {
      String namespace = namespacePrefix + id;
      String link = linkPrefix + host;
      if (link.length() > 15) {
        throw new IllegalStateException("interface name " + link + " is longer than Linux allows");
      }
      String address = subnet + "." + host++;
      ip("netns", "add", namespace);
      namespaces.put(id, namespace);
      ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", namespace);
      hostLinks.put(id, link);
      ip("link", "set", link, "master", bridge, "up");
      ip("-n", namespace, "link", "set", "lo", "up");
      ip("-n", namespace, "addr", "add", address + "/24", "dev", "eth0");
      ip("-n", namespace, "link", "set", "eth0", "up");
      addresses.put(id, address);
    }
  }

  /** The node's address on the private subnet (what it listens on and advertises). */
  /** The address the test JVM has on the subnet (the bridge's), which every node reaches. */
  String hostAddress() {
    return peer(CLIENT);
  }

  String address(int nodeId) {
    return addresses.get(nodeId);
  }

  /** The command prefix that runs a program inside the node's namespace, as the same process. */
  List<String> exec(int nodeId) {
    // `ip netns exec` enters the namespace and execs the program without forking, so the pid a
    // ProcessBuilder returns is the program's own and signals reach it directly.
    return List.of(ipBinary(), "netns", "exec", namespaces.get(nodeId));
  }

  /** Cuts the link between two endpoints (node ids or {@link #CLIENT}) both ways; idempotent. */
  synchronized void cut(int a, int b) {
    if (a == b || cuts.contains(pair(a, b))) {
      return;
    }
    // Recorded first: if the second route fails, heal still deletes the first.
    cuts.add(pair(a, b));
    ip(endpoint(a, "route", "replace", "blackhole", peer(b) + "/32"));
    ip(endpoint(b, "route", "replace", "blackhole", peer(a) + "/32"));
  }

  /** Heals a link cut by {@link #cut}; idempotent. */
  synchronized void heal(int a, int b) {
    if (!cuts.remove(pair(a, b))) {
      return;
    }
    deleteRoute(a, b);
    deleteRoute(b, a);
  }

  /** Deletes {@code from}'s route to {@code to}, if it is there (a failed cut may lack it). */
  private void deleteRoute(int from, int to) {
    List<String> command = new ArrayList<>();
    command.add(ipBinary());
    command.addAll(List.of(endpoint(from, "route", "del", "blackhole", peer(to) + "/32")));
    Result result = exec(command.toArray(String[]::new));
    if (result.exitCode() != 0
        && !result.output().contains("No such process")
        && !result.output().contains("FIB table does not exist")) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited with " + result.exitCode() + ": " + result.output());
    }
  }

  /**
   * Cuts one direction of a link: {@code from} can no longer send to {@code to} (its packets go
   * into a blackhole route in its own namespace), while {@code to} still sends to {@code from}. TCP
   * between them stalls once either side waits for an answer, but a node that only listens (a
   * follower fetching, a heartbeat receiver) sees the asymmetry. Idempotent.
   */
  synchronized void cutOneWay(int from, int to) {
    if (from == to || !oneWayCuts.add(List.of(from, to))) {
      return;
    }
    ip(endpoint(from, "route", "replace", "blackhole", peer(to) + "/32"));
  }

  /** Heals what {@link #cutOneWay} cut; idempotent. */
  synchronized void healOneWay(int from, int to) {
    if (oneWayCuts.remove(List.of(from, to))) {
      deleteRoute(from, to);
    }
  }

  /**
   * Cuts the traffic of one listener between two nodes, both ways, and nothing else of their link:
   * each node's namespace drops on arrival every TCP segment from the other that is to or from
   * {@code port} (iptables), so connections to that listener stall as in a partition while those to
   * the node's other listeners carry on. Idempotent.
   */
  synchronized void cutPort(int a, int b, int port) {
    List<Integer> key = List.of(Math.min(a, b), Math.max(a, b), port);
    if (a == b || !portCuts.add(key)) {
      return;
    }
    // Recorded first: if a rule fails, healPort still deletes the others.
    portRules("-I", a, b, port);
    portRules("-I", b, a, port);
  }

  /** Heals what {@link #cutPort} cut; idempotent. */
  synchronized void healPort(int a, int b, int port) {
    if (portCuts.remove(List.of(Math.min(a, b), Math.max(a, b), port))) {
      portRules("-D", a, b, port);
      portRules("-D", b, a, port);
    }
  }

  /**
   * Inserts ({@code -I}) or deletes ({@code -D}) node {@code at}'s two rules dropping what comes
   * from {@code from} to or from {@code port}. A rule to delete that is not there (its insert
   * failed) is no error.
   */
  private void portRules(String operation, int at, int from, int port) {
    for (String side : List.of("--dport", "--sport")) {
      List<String> command = new ArrayList<>(exec(at));
      command.addAll(
          List.of(
              PacketImpairer.iptablesBinary(),
              "-w",
              operation,
              "INPUT",
              "-s",
              peer(from),
              "-p",
              "tcp",
              side,
              Integer.toString(port),
              "-j",
              "DROP"));
      Result result = exec(command.toArray(String[]::new));
      if (result.exitCode() != 0
          && !(operation.equals("-D") && result.output().contains("does a matching rule exist"))) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited with "
                + result.exitCode()
                + ": "
                + result.output());
      }
    }
  }

  /**
   * Makes a node's link slow and lossy both ways, as a failing NIC or a congested path does: a
   * token bucket (tc's {@code tbf}) on each end of its veth sends at most {@code bitsPerSecond},
   * queues what exceeds it for at most {@code queueMillis} and drops the rest, so TCP meets real
   * delay and real packet loss and retransmits. (tc's netem, which would also duplicate and reorder
   * packets, is not built into every kernel; tbf is.) The node's links to the other nodes and to
   * the test JVM all go through that veth. A second call replaces the parameters.
   */
  synchronized void slow(int nodeId, long bitsPerSecond, int queueMillis) {
    if (bitsPerSecond <= 0 || queueMillis <= 0) {
      throw new IllegalArgumentException(
          "rate " + bitsPerSecond + " bit/s and queue " + queueMillis + " ms must be positive");
    }
    // The bucket holds 10 ms at the rate, and at least two full-size frames (tbf drops a frame
    // larger than its bucket outright).
    long burstBytes = Math.max(3_000, bitsPerSecond / 8 / 100);
    String[] tbf = {
      "root",
      "tbf",
      "rate",
      bitsPerSecond + "bit",
      "burst",
      Long.toString(burstBytes),
      "latency",
      queueMillis + "ms"
    };
    slowed.add(nodeId); // recorded first: if the second end fails, restore still clears the first
    tc(concat(List.of("-n", namespaces.get(nodeId), "qdisc", "replace", "dev", "eth0"), tbf));
    tc(concat(List.of("qdisc", "replace", "dev", hostLinks.get(nodeId)), tbf));
  }

  /** Restores a link {@link #slow} throttled; idempotent. */
  synchronized void restore(int nodeId) {
    if (!slowed.remove(nodeId)) {
      return;
    }
    deleteQdisc(List.of("-n", namespaces.get(nodeId), "qdisc", "del", "dev", "eth0", "root"));
    deleteQdisc(List.of("qdisc", "del", "dev", hostLinks.get(nodeId), "root"));
  }

  /**
   * Packets the throttle of a node's link dropped so far, both ends together (tc's statistics); 0
   * if the link is not throttled.
   */
  synchronized long droppedPackets(int nodeId) {
    if (!slowed.contains(nodeId)) {
      return 0;
    }
    return dropped(
            run(tcBinary(), "-n", namespaces.get(nodeId), "-s", "qdisc", "show", "dev", "eth0"))
        + dropped(run(tcBinary(), "-s", "qdisc", "show", "dev", hostLinks.get(nodeId)));
  }

  private static long dropped(String statistics) {
    Matcher m = DROPPED.matcher(statistics);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static String[] concat(List<String> head, String[] tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all.toArray(String[]::new);
  }

  /** Deletes a root qdisc that may be gone already (a namespace deleted with its veth). */
  private static void deleteQdisc(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(tcBinary());
    command.addAll(args);
    Result result = exec(command.toArray(String[]::new));
    if (result.exitCode() != 0
        && !result.output().contains("Cannot find device")
        && !result.output().contains("Cannot delete qdisc with handle of zero")
        && !result.output().contains("No such file or directory")) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited with " + result.exitCode() + ": " + result.output());
    }
  }

  /**
   * Why {@link #slow} cannot run on this machine, or empty if it can: it needs what {@link
   * #unavailableReason} needs, plus iproute2's {@code tc} and the kernel's {@code tbf} qdisc. Found
   * once per JVM by throttling the link of a one-node network.
   */
  static synchronized Optional<String> slowLinksUnavailableReason() {
    if (slowUnavailable == null) {
      slowUnavailable = Optional.ofNullable(probeSlowLinks());
    }
    return slowUnavailable;
  }

  private static String probeSlowLinks() {
    Optional<String> noNetwork = unavailableReason();
    if (noNetwork.isPresent()) {
      return noNetwork.get();
    }
    if (tcBinary() == null) {
      return "slow links need iproute2's `tc`, which is not installed";
    }
    try (NetworkNamespaces probe = create(List.of(1))) {
      probe.slow(1, 1_000_000, 50);
      probe.restore(1);
      return null;
    } catch (RuntimeException e) {
      return "tc's tbf qdisc does not work here: " + e.getMessage();
    }
  }

  /**
   * Degrades a node's link both ways (to the other nodes and to the test JVM) as {@code impairment}
   * says: delayed, reordered, dropped and duplicated packets ({@link PacketImpairer}). One
   * impairment per node at a time; {@code seed} makes its random choices repeatable.
   */
  synchronized void impair(int nodeId, LinkImpairment impairment, long seed) {
    if (impaired.containsKey(nodeId)) {
      throw new IllegalStateException("the link of node " + nodeId + " is impaired already");
    }
    List<String> peers = new ArrayList<>();
    for (int other : namespaces.keySet()) {
      if (other != nodeId) {
        peers.add(peer(other));
      }
    }
    peers.add(peer(CLIENT));
    impaired.put(nodeId, PacketImpairer.start(exec(nodeId), peers, impairment, seed));
  }

  /** Ends what {@link #impair} did and returns its effect; zeros if the link was not impaired. */
  synchronized LinkImpairment.Effect unimpair(int nodeId) {
    PacketImpairer impairer = impaired.remove(nodeId);
    return impairer == null ? LinkImpairment.Effect.NONE : impairer.stop();
  }

  /**
   * Why {@link #impair} cannot run on this machine, or empty if it can: it needs what {@link
   * #unavailableReason} needs, plus iptables with the kernel's NFQUEUE, statistic and TEE, and
   * python3. Found once per JVM by impairing the link of a one-node network.
   */
  static synchronized Optional<String> impairedLinksUnavailableReason() {
    if (impairUnavailable == null) {
      impairUnavailable = Optional.ofNullable(probeImpairedLinks());
    }
    return impairUnavailable;
  }

  private static String probeImpairedLinks() {
    Optional<String> noNetwork = unavailableReason();
    if (noNetwork.isPresent()) {
      return noNetwork.get();
    }
    String missing = PacketImpairer.missingTool();
    if (missing != null) {
      return missing;
    }
    try (NetworkNamespaces probe = create(List.of(1))) {
      probe.impair(1, new LinkImpairment(1, 1, 1, 1), 1);
      probe.unimpair(1);
      return null;
    } catch (RuntimeException e) {
      return "netfilter's NFQUEUE/TEE or packet_impairer.py does not work here: " + e.getMessage();
    }
  }

  /** Whether the link between the two endpoints is cut. */
  synchronized boolean isCut(int a, int b) {
    return cuts.contains(pair(a, b));
  }

  /** Every node id on this network. */
  List<Integer> nodeIds() {
    return List.copyOf(namespaces.keySet());
  }

  /** Heals every cut and restores every slowed or impaired link. */
  synchronized void healAll() {
    for (int node : List.copyOf(impaired.keySet())) {
      impaired.remove(node).stopQuietly();
    }
    for (int node : List.copyOf(slowed)) {
      restore(node);
    }
    for (List<Integer> cut : List.copyOf(oneWayCuts)) {
      healOneWay(cut.get(0), cut.get(1));
    }
    for (List<Integer> cut : List.copyOf(portCuts)) {
      healPort(cut.get(0), cut.get(1), cut.get(2));
    }
    for (List<Integer> cut : List.copyOf(cuts)) {
      heal(cut.get(0), cut.get(1));
    }
  }

  private static List<Integer> pair(int a, int b) {
    return List.of(Math.min(a, b), Math.max(a, b));
  }

  private String peer(int endpoint) {
    return endpoint == CLIENT ? subnet + ".254" : addresses.get(endpoint);
  }

  private String[] endpoint(int endpoint, String... args) {
    List<String> command = new ArrayList<>();
    if (endpoint != CLIENT) {
      command.add("-n");
      command.add(namespaces.get(endpoint));
    }
    command.addAll(List.of(args));
    return command.toArray(String[]::new);
  }

  /**
   * Kills whatever still runs in the namespaces, deletes them, the veths and the bridge. Runs on
   * close and from a shutdown hook; errors are printed, not thrown, so everything is attempted.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // Routes in the root namespace (the test JVM's end of a cut) outlive the bridge.
      healAll();
    } catch (RuntimeException e) {
      System.err.println("Cannot heal every cut: " + e.getMessage());
    }
    for (String namespace : namespaces.values()) {
      deleteNamespace(namespace);
    }
    for (String link : hostLinks.values()) {
      deleteLink(link);
    }
    deleteLink(bridge);
    if (Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs or ran already; close is idempotent.
      }
    }
  }

  private static void deleteNamespace(String namespace) {
    try {
      for (String pid : run(ipBinary(), "netns", "pids", namespace).split("\\s+")) {
        if (!pid.isBlank()) {
          ProcessHandle.of(Long.parseLong(pid)).ifPresent(NetworkNamespaces::killAndWait);
        }
      }
      run(ipBinary(), "netns", "del", namespace);
    } catch (RuntimeException e) {
      System.err.println("Cannot delete network namespace " + namespace + ": " + e.getMessage());
    }
  }

  private static void killAndWait(ProcessHandle process) {
    process.destroyForcibly();
    try {
      process.onExit().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      System.err.println("Process " + process.pid() + " did not exit after SIGKILL: " + e);
    }
  }

  private static void deleteLink(String link) {
    // A veth disappears with its namespace (asynchronously), so it may be gone already.
    Result result = exec(ipBinary(), "link", "del", link);
    if (result.exitCode() != 0 && !result.output().contains("Cannot find device")) {
      System.err.println("Cannot delete link " + link + ": " + result.output());
    }
  }

  /**
   * Deletes the namespaces and links of harnesses whose JVM is gone (killed before its shutdown
   * hook ran), with the nodes still running in them: they would hold memory and, worse, a subnet.
   */
  private static void deleteStale() {
    for (String line : run(ipBinary(), "netns", "list").split("\n")) {
      String name = line.split(" ")[0];
      Matcher owned = OWNED_NAMESPACE.matcher(name);
      if (owned.matches() && isGone(Long.parseLong(owned.group(1)))) {
        System.out.println("Deleting network namespace " + name + " left by a dead test JVM");
        deleteNamespace(name);
      }
    }
    for (String line : run(ipBinary(), "-o", "link", "show").split("\n")) {
      Matcher owned = OWNED_LINK.matcher(line);
      if (owned.find() && isGone(Long.parseLong(owned.group(2), 36))) {
        System.out.println("Deleting link " + owned.group(1) + " left by a dead test JVM");
        deleteLink(owned.group(1));
      }
    }
    deleteStaleClientCuts();
  }

  /**
   * Deletes the test JVM's ends of cuts ({@code blackhole 10.213.x.y} in the root namespace) of
   * subnets that no bridge holds any more: left by a JVM killed while a node was isolated.
   */
  private static void deleteStaleClientCuts() {
    String addresses = run(ipBinary(), "-o", "-4", "addr", "show");
    for (String line : run(ipBinary(), "-o", "-4", "route", "show").split("\n")) {
      Matcher cut = CLIENT_CUT.matcher(line.trim());
      if (cut.matches() && !addresses.contains(" " + cut.group(2) + ".254/24")) {
        System.out.println("Deleting route " + line.trim() + " left by a dead test JVM");
        exec(ipBinary(), "route", "del", "blackhole", cut.group(1) + "/32");
      }
    }
  }

  private static boolean isGone(long pid) {
    return ProcessHandle.of(pid).isEmpty();
  }

  /**
   * A /24 in 10.213.0.0/16 that no route or address of the root namespace overlaps (a harness of
   * another live JVM included), starting at one derived from {@code seed} to keep concurrent
   * harnesses apart.
   */
  private static String freeSubnet(int seed) {
    List<long[]> taken = new ArrayList<>();
    for (String line : run(ipBinary(), "-o", "-4", "route", "show", "table", "all").split("\n")) {
      String prefix = line.trim().split("\\s+")[0];
      if (Set.of("broadcast", "local", "blackhole", "unreachable", "prohibit").contains(prefix)) {
        prefix = line.trim().split("\\s+")[1];
      }
      if (prefix.matches("\\d+\\.\\d+\\.\\d+\\.\\d+(/\\d+)?")) {
        taken.add(Cidr.parse(prefix));
      }
    }
    for (int i = 0; i < 256; i++) {
      int third = Math.floorMod(seed + i, 256);
      long[] candidate = Cidr.parse("10.213." + third + ".0/24");
      if (taken.stream().noneMatch(t -> Cidr.overlap(t, candidate))) {
        return "10.213." + third;
      }
    }
    throw new IllegalStateException("every /24 of 10.213.0.0/16 is taken on this machine");
  }

  /** IPv4 prefixes as {@code {address, length}}. */
  private static final class Cidr {
    static long[] parse(String cidr) {
      String[] parts = cidr.split("/");
      long address = 0;
      for (String octet : parts[0].split("\\.")) {
        address = (address << 8) | Long.parseLong(octet);
      }
      return new long[] {address, parts.length > 1 ? Long.parseLong(parts[1]) : 32};
    }

    static boolean overlap(long[] a, long[] b) {
      long length = Math.min(a[1], b[1]);
      long mask = length == 0 ? 0 : (0xFFFFFFFFL << (32 - length)) & 0xFFFFFFFFL;
      return (a[0] & mask) == (b[0] & mask);
    }
  }

  private static void tc(String... args) {
    List<String> command = new ArrayList<>();
    command.add(tcBinary());
    command.addAll(List.of(args));
    run(command.toArray(String[]::new));
  }

  private static void ip(String... args) {
    List<String> command = new ArrayList<>();
    command.add(ipBinary());
    command.addAll(List.of(args));
    run(command.toArray(String[]::new));
  }

  static String run(String... command) {
    Result result = exec(command);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited with " + result.exitCode() + ": " + result.output());
    }
    return result.output();
  }

  private record Result(int exitCode, String output) {}

  private static Result exec(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return new Result(-1, "timed out after " + COMMAND_TIMEOUT);
      }
      return new Result(process.exitValue(), output.trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** iproute2's {@code ip}, or null if it is not installed. */
  static String ipBinary() {
    for (String candidate : List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return null;
  }

  /** iproute2's {@code tc}, or null if it is not installed. */
  static String tcBinary() {
    for (String candidate : List.of("/usr/sbin/tc", "/sbin/tc", "/usr/bin/tc", "/bin/tc")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return null;
  }

  private static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[2].equals("0");
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }
}
