package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.cli.verify.AckedLog;
import io.brook.cli.verify.ReplicationChecker;
import io.brook.cli.verify.ReplicationChecker.Stored;
import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * One run of the replication fault checks on a running cluster: a new topic (replication factor 3,
 * {@code min.insync.replicas=2}), a {@link ProducerWorkload} and an {@link OffsetWatcher} running
 * throughout, faults injected by the test between {@link #faultStarts} and {@link #faultEnds}, then
 * {@link #finish}: stop the producers, run the {@link ReplicationChecker} and print each fault's
 * unwritable window (the longest gap between acknowledged writes of any partition around it).
 *
 * <pre>{@code
 * try (FaultScenario s = FaultScenario.start(cluster, "kill")) {
 *   Node leader = s.leaderOf(0);
 *   s.faultStarts("SIGKILL leader " + leader.id());
 *   leader.kill();
 *   ...
 *   s.faultEnds();
 *   Map<String, Long> windows = s.finish();
 * }
 * }</pre>
 */
final class FaultScenario implements AutoCloseable {
  static final int PARTITIONS = 6;
  static final int PRODUCERS = 2;

  /** Violations printed in full; the rest are counted. */
  private static final int REPORTED = 40;

  /** A fault between two instants, {@link System#nanoTime()}. */
  private record Fault(String name, long startNanos, long endNanos) {}

  private final ClusterHarness cluster;
  private final String topic;
  private final Admin admin;
  private final ProducerWorkload workload;
  private final OffsetWatcher watcher;
  private final List<Fault> faults = new ArrayList<>();
  private String currentFault;
  private long currentStart;

  private FaultScenario(ClusterHarness cluster, String topic) {
    this.cluster = cluster;
    this.topic = topic;
    this.admin = admin(cluster.bootstrapServers());
    try {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, PARTITIONS, (short) 3)
                      .configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      admin.close();
      throw new AssertionError("creating " + topic, e);
    }
    awaitHealthy(Duration.ofSeconds(60));
    this.workload = new ProducerWorkload(cluster.bootstrapServers(), topic, PARTITIONS, PRODUCERS);
    this.watcher = new OffsetWatcher(cluster.bootstrapServers(), topic, PARTITIONS);
  }

  /**
   * Creates the topic, waits until every replica is in sync, starts the producers and the watcher
   * and waits until every partition has taken a write.
   */
  /**
   * Three nodes in network namespaces where they can be made (root, iproute2), so links can be cut;
   * else on loopback, with the reason printed.
   */
  static ClusterHarness startCluster(Path dir, String testName) throws Exception {
    Optional<String> noNetworkFaults = ClusterHarness.networkFaultsUnavailableReason();
    System.out.println(
        testName
            + ": "
            + noNetworkFaults
                .map(r -> "nodes on loopback, no link cuts: " + r)
                .orElse("nodes in network namespaces"));
    return noNetworkFaults.isEmpty()
        ? ClusterHarness.startInNamespaces(dir, 3, Map.of())
        : ClusterHarness.start(dir, 3, Map.of());
  }

  static FaultScenario start(ClusterHarness cluster, String topic) {
    FaultScenario scenario = new FaultScenario(cluster, topic);
    scenario.workload.start();
    scenario.watcher.start();
    long started = System.nanoTime();
    await("a write acknowledged on every partition of " + topic)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> scenario.workload.log().everyPartitionAckedAfter(PARTITIONS, started));
    return scenario;
  }

  static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    return Admin.create(props);
  }

  String topic() {
    return topic;
  }

  Admin admin() {
    return admin;
  }

  /** What the producers sent and had acknowledged so far. */
  AckedLog log() {
    return workload.log();
  }

  /**
   * How long after {@code fromNanos} every partition had taken an acknowledged write: the
   * unwritable window of a fault measured from that instant; -1 if some partition has not yet.
   */
  long writableAfterMillis(long fromNanos) {
    long at = workload.log().everyPartitionAckedAt(PARTITIONS, fromNanos);
    return at < 0 ? -1 : Math.max(0, (at - fromNanos) / 1_000_000);
  }

  /** Marks the start of a fault; the test injects it right after. */
  void faultStarts(String name) {
    assertThat(currentFault).as("a fault is already under way").isNull();
    currentFault = name;
    currentStart = System.nanoTime();
    System.out.printf("[%s] fault: %s%n", topic, name);
  }

  /** Marks the end of the fault: it has healed and the cluster has recovered. */
  void faultEnds() {
    faults.add(new Fault(currentFault, currentStart, System.nanoTime()));
    System.out.printf(
        "[%s] healed after %d ms: %s%n",
        topic, (System.nanoTime() - currentStart) / 1_000_000, currentFault);
    currentFault = null;
  }

  /** Waits until every partition took a write after the current fault started. */
  void awaitWritesResume(Duration within) {
    long since = currentStart;
    await("every partition of " + topic + " writable again")
        .atMost(within)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> workload.log().everyPartitionAckedAfter(PARTITIONS, since));
  }

  /**
   * Waits until every partition took a write after this call, so that a fault whose effect on
   * writes outlasts the cluster's recovery (a client waiting out its request timeout on a
   * connection that stalled) ends before the next one starts.
   */
  void awaitWritable(Duration within) {
    long since = System.nanoTime();
    await("every partition of " + topic + " takes writes")
        .atMost(within)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> workload.log().everyPartitionAckedAfter(PARTITIONS, since));
  }

  /**
   * Waits until every broker is registered and unfenced and every partition of the topic has a
   * leader and all three replicas in sync.
   */
  void awaitHealthy(Duration within) {
    int brokers = cluster.brokers().size();
    await("all " + brokers + " brokers listed and every ISR of " + topic + " full")
        .atMost(within)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS))
                  .hasSize(brokers);
              for (TopicPartitionInfo p : describe().partitions()) {
                assertThat(p.leader()).as("leader of %s-%d", topic, p.partition()).isNotNull();
                assertThat(p.isr()).as("isr of %s-%d", topic, p.partition()).hasSize(3);
              }
            });
  }

  TopicDescription describe() throws Exception {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get(10, TimeUnit.SECONDS)
        .get(topic);
  }

  /** The node leading a partition of the topic now. */
  Node leaderOf(int partition) {
    return await("a leader of " + topic + "-" + partition)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> cluster.node(describe().partitions().get(partition).leader().id()), n -> true);
  }

  /** The node the brokers name as the active controller (the Raft leader). */
  Node activeController() {
    return await("the active controller")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            // The quorum's leader: Kafka's DescribeCluster names a random broker instead.
            () ->
                cluster.node(
                    admin
                        .describeMetadataQuorum()
                        .quorumInfo()
                        .get(10, TimeUnit.SECONDS)
                        .leaderId()),
            n -> n != null);
  }

  /** Keeps the workload running, with no fault, for a while. */
  static void sleep(Duration duration) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(duration.toMillis());
  }

  /**
   * Lets the workload run on for two seconds, stops it, checks everything ({@link
   * ReplicationChecker}) and prints the unwritable window of each fault.
   *
   * @return each fault's unwritable window in milliseconds, by fault name, in order
   * @throws AssertionError listing every violation found
   */
  Map<String, Long> finish() throws InterruptedException {
    sleep(Duration.ofSeconds(2));
    long stopping = System.nanoTime();
    workload.stop();
    watcher.stop();
    AckedLog log = workload.log();
    Map<String, Long> windows = new LinkedHashMap<>();
    StringBuilder report = new StringBuilder();
    report.append(
        String.format(
            "[%s] unwritable windows (longest gap between acknowledged writes"
                + " of one partition):%n",
            topic));
    for (Fault fault : faults) {
      AckedLog.Gap gap = log.longestGap(PARTITIONS, fault.startNanos(), fault.endNanos());
      windows.put(fault.name(), gap.millis());
      report.append(
          String.format(
              "  %-60s %6d ms (partition %d, from %+d ms to %+d ms of the"
                  + " fault's start; healed at %+d ms)%n",
              fault.name(),
              gap.millis(),
              gap.partition(),
              (gap.fromNanos() - fault.startNanos()) / 1_000_000,
              (gap.toNanos() - fault.startNanos()) / 1_000_000,
              (fault.endNanos() - fault.startNanos()) / 1_000_000));
    }
    System.out.print(report);
    long checking = System.nanoTime();
    Summary summary = check(log);
    System.out.printf(
        "[%s] checked: %d acknowledged records all present once, in send order, at their offsets;"
            + " %d read (%d unacknowledged); end offsets %s; %d offsets watched during the faults"
            + " unchanged (stop %d ms, check %d ms)%n",
        topic,
        summary.acked(),
        summary.read(),
        summary.unacknowledgedPresent(),
        summary.endOffsets(),
        watcher.seen().size(),
        (checking - stopping) / 1_000_000,
        (System.nanoTime() - checking) / 1_000_000);
    return windows;
  }

  /** What a successful check found, for printing. */
  private record Summary(
      int acked, int read, int unacknowledgedPresent, Map<Integer, Long> endOffsets) {}

  /**
   * A fresh consumer reads every partition from the beginning to the high watermark and {@link
   * ReplicationChecker} checks what it found against the acknowledgements and the watcher.
   *
   * @throws AssertionError listing every violation (the first 40 in full)
   */
  private Summary check(AckedLog log) {
    Map<Integer, List<Stored>> read =
        TopicReader.readStored(cluster.bootstrapServers(), topic, PARTITIONS);
    List<String> violations =
        ReplicationChecker.violations(read, log, watcher.seen(), watcher.violations());
    int total = read.values().stream().mapToInt(List::size).sum();
    int acked = log.acks().size();
    Map<Integer, Long> endOffsets = new TreeMap<>();
    read.forEach(
        (p, records) ->
            endOffsets.put(
                p, records.isEmpty() ? 0 : records.get(records.size() - 1).offset() + 1));
    if (!violations.isEmpty()) {
      StringBuilder report = new StringBuilder();
      report.append(
          String.format(
              "%d violations in %s (%d acknowledged, %d read, end offsets %s):",
              violations.size(), topic, acked, total, endOffsets));
      violations.stream().limit(REPORTED).forEach(v -> report.append("\n  ").append(v));
      if (violations.size() > REPORTED) {
        report.append("\n  ... and ").append(violations.size() - REPORTED).append(" more");
      }
      System.out.println(report);
      throw new AssertionError(report.toString());
    }
    return new Summary(acked, total, total - acked, endOffsets);
  }

  @Override
  public void close() {
    workload.close();
    watcher.close();
    admin.close();
  }

  /** "node 2 (leader of [0, 3], active controller)", for a fault's name. */
  String nodeName(Node node) throws Exception {
    List<Integer> led =
        describe().partitions().stream()
            .filter(p -> p.leader() != null && p.leader().id() == node.id())
            .map(p -> p.partition())
            .toList();
    boolean controller = activeController() == node;
    return "node "
        + node.id()
        + " (leader of "
        + led
        + (controller ? ", active controller" : "")
        + ")";
  }
}
