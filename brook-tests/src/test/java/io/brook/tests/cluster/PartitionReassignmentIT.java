package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.TestClients;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition reassignment on three combined nodes, driven by kafka-clients' Admin and by Kafka's own
 * {@code kafka-reassign-partitions} tool. A move that adds a replica completes once the new replica
 * has caught up and joined the ISR; one whose new replica's broker is down stays in progress until
 * cancelled; reorders and shrinks complete at once. Replication throttles (KIP-73): a move started
 * with {@code --throttle} copies the log at the throttle rate (measured over 10 MiB, 10 s at the
 * rate, once the window's first burst is past) and {@code --verify} clears the throttle; a move of
 * a partition whose replicas are not listed as throttled is not slowed by the brokers' rates.
 */
@Timeout(300)
class PartitionReassignmentIT {
  private static final Duration WITHIN = Duration.ofSeconds(20);
  private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
  private static final long THROTTLE = 1024 * 1024;
  private static final int VALUE_BYTES = 32 * 1024;

  /** 16 MiB per moved partition; the measured span is the middle 10 MiB. */
  private static final int RECORDS = 512;

  private static final int MEASURE_FROM = 96;
  private static final int MEASURE_TO = 416;

  private static EmbeddedBrookCluster cluster;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    // No automatic preferred-leader election: the tests check which leader a move leaves.
    cluster =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            .config("auto.leader.rebalance.enable", "false")
            // Three samples of 1 s: a throttled move's first burst (what the window allows before
            // it is full) is past before the throttle tests measure
            .config("replication.quota.window.num", "3")
            .config("replication.quota.window.size.seconds", "1")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static List<String> brokers() {
    return cluster.nodeIds().stream().map(cluster::bootstrapServers).toList();
  }

  /** A topic with the given replicas for partition 0, 1, ... */
  private static void createTopic(Admin admin, String name, List<List<Integer>> replicas)
      throws Exception {
    Map<Integer, List<Integer>> assignment = new java.util.HashMap<>();
    for (int p = 0; p < replicas.size(); p++) {
      assignment.put(p, replicas.get(p));
    }
    admin.createTopics(List.of(new NewTopic(name, assignment))).all().get(30, TimeUnit.SECONDS);
  }

  private static void reassign(Admin admin, TopicPartition tp, Optional<List<Integer>> target)
      throws Exception {
    admin
        .alterPartitionReassignments(Map.of(tp, target.map(NewPartitionReassignment::new)))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  private static Throwable failure(Admin admin, TopicPartition tp, Optional<List<Integer>> target) {
    return failure(admin, tp, target, new AlterPartitionReassignmentsOptions());
  }

  private static Throwable failure(
      Admin admin,
      TopicPartition tp,
      Optional<List<Integer>> target,
      AlterPartitionReassignmentsOptions options) {
    try {
      admin
          .alterPartitionReassignments(
              Map.of(tp, target.map(NewPartitionReassignment::new)), options)
          .values()
          .get(tp)
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("reassigning " + tp + " to " + target + " succeeded");
  }

  private static Map<TopicPartition, PartitionReassignment> ongoing(Admin admin) throws Exception {
    return admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS);
  }

  /** Waits until every broker serves {@code tp} with exactly these replicas (and leader). */
  private static void awaitServed(TopicPartition tp, String replicas, int leader) {
    String key = tp.topic() + "-" + tp.partition();
    ClusterClients.awaitSameEverywhere(
        brokers(),
        WITHIN,
        served -> {
          assertThat(served.partitions()).containsKey(key);
          assertThat(served.partitions().get(key)).contains("replicas=" + replicas);
          assertThat(served.leaders()).containsEntry(key, leader);
        });
  }

  private static boolean hosts(int nodeId, TopicPartition tp) {
    return cluster.server(nodeId).replicaManager().partition(tp).isPresent();
  }

  @Test
  void aReorderAndAShrinkCompleteAndEveryBrokerServesTheNewReplicas() throws Exception {
    // Given two partitions on all three brokers, both led by 1
    TopicPartition reordered = new TopicPartition("reshaped", 0);
    TopicPartition shrunk = new TopicPartition("reshaped", 1);
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers(2))) {
      createTopic(admin, "reshaped", List.of(List.of(1, 2, 3), List.of(1, 2, 3)));
      await().atMost(WITHIN).until(() -> hosts(1, shrunk));

      // When one is reordered and the other loses its leader's replica
      admin
          .alterPartitionReassignments(
              Map.of(
                  reordered, Optional.of(new NewPartitionReassignment(List.of(3, 1, 2))),
                  shrunk, Optional.of(new NewPartitionReassignment(List.of(3, 2)))))
          .all()
          .get(30, TimeUnit.SECONDS);

      // Then both are done at once: nothing is listed as moving
      assertThat(ongoing(admin)).isEmpty();
    }

    // Then every broker serves the new replicas; the reorder kept its leader, the shrink moved it
    awaitServed(reordered, "[3, 1, 2]", 1);
    awaitServed(shrunk, "[3, 2]", 3);
    // and broker 1, no longer a replica of the shrunk partition, has deleted its log
    await().atMost(WITHIN).until(() -> !hosts(1, shrunk));
    assertThat(hosts(1, reordered)).isTrue();
  }

  @Test
  void anAddedReplicaCatchesUpJoinsTheIsrAndCompletesTheMove() throws Exception {
    // Given a single replica on broker 1 holding records
    TopicPartition tp = new TopicPartition("growing", 0);
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers(3))) {
      createTopic(admin, tp.topic(), List.of(List.of(1)));
      try (var producer = ClusterClients.producer(cluster.bootstrapServers(1))) {
        for (int i = 0; i < 50; i++) {
          producer.send(
              new org.apache.kafka.clients.producer.ProducerRecord<>(tp.topic(), "v" + i));
        }
        producer.flush();
      }

      // When broker 2 is added
      reassign(admin, tp, Optional.of(List.of(1, 2)));

      // Then broker 2 copies the log, joins the ISR, and the move completes
      await().atMost(WITHIN).until(() -> ongoing(admin).isEmpty());
      awaitServed(tp, "[1, 2]", 1);
      assertThat(
              cluster.server(2).replicaManager().partition(tp).orElseThrow().log().logEndOffset())
          .isEqualTo(50);
    }
  }

  @Test
  void aMoveToAStoppedBrokerIsListedAsAddingUntilCancelled() throws Exception {
    // Given a single replica on broker 1, and broker 3 stopped
    TopicPartition tp = new TopicPartition("waiting", 0);
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers(2))) {
      createTopic(admin, tp.topic(), List.of(List.of(1)));
      cluster.stop(3);
      try {
        // When broker 3 is added
        reassign(admin, tp, Optional.of(List.of(1, 3)));

        // Then the move is in progress: 3 cannot catch up
        Map<TopicPartition, PartitionReassignment> moving = ongoing(admin);
        assertThat(moving).containsOnlyKeys(tp);
        assertThat(moving.get(tp).replicas()).containsExactly(1, 3);
        assertThat(moving.get(tp).addingReplicas()).containsExactly(3);
        assertThat(moving.get(tp).removingReplicas()).isEmpty();
        // and listed by name through every running broker (each forwards to the controller)
        for (int id : List.of(1, 2)) {
          try (Admin via = ClusterClients.admin(cluster.bootstrapServers(id))) {
            assertThat(via.listPartitionReassignments(java.util.Set.of(tp)).reassignments().get())
                .containsOnlyKeys(tp);
          }
        }

        // When the move is cancelled
        reassign(admin, tp, Optional.empty());

        // Then the original replicas are back
        assertThat(ongoing(admin)).isEmpty();
        assertThat(failure(admin, tp, Optional.empty()))
            .isInstanceOf(NoReassignmentInProgressException.class);
      } finally {
        cluster.restart(3);
      }
      awaitServed(tp, "[1]", 1);
      await().atMost(WITHIN).until(() -> !hosts(3, tp));
    }
  }

  @Test
  void unknownPartitionsAndBrokersAreRefused() throws Exception {
    // Given
    TopicPartition tp = new TopicPartition("refusing", 0);
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers())) {
      createTopic(admin, tp.topic(), List.of(List.of(1, 2)));

      // When / Then
      assertThat(failure(admin, new TopicPartition("refusing", 4), Optional.of(List.of(1))))
          .isInstanceOf(UnknownTopicOrPartitionException.class);
      assertThat(failure(admin, new TopicPartition("no-such-topic", 0), Optional.of(List.of(1))))
          .isInstanceOf(UnknownTopicOrPartitionException.class);
      assertThat(failure(admin, tp, Optional.of(List.of(1, 9))))
          .isInstanceOf(InvalidReplicaAssignmentException.class)
          .hasMessageContaining("broker 9");
      assertThat(
              failure(
                  admin,
                  tp,
                  Optional.of(List.of(1, 2, 3)),
                  new AlterPartitionReassignmentsOptions().allowReplicationFactorChange(false)))
          .isInstanceOf(InvalidReplicationFactorException.class);
    }
    awaitServed(tp, "[1, 2]", 1);
  }

  @Test
  void kafkaReassignPartitionsToolExecutesVerifiesListsAndCancels() throws Exception {
    // Given a partition on all three brokers and one on broker 1 alone
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers())) {
      createTopic(admin, "tooled", List.of(List.of(1, 2, 3)));
      createTopic(admin, "tooled-single", List.of(List.of(1)));
    }
    String bootstrap = cluster.bootstrapServers();
    Path shrink =
        json(
            "shrink.json",
            "{\"version\":1,\"partitions\":[{\"topic\":\"tooled\",\"partition\":0,"
                + "\"replicas\":[2,3]}]}");
    Path grow =
        json(
            "grow.json",
            "{\"version\":1,\"partitions\":[{\"topic\":\"tooled-single\",\"partition\":0,"
                + "\"replicas\":[1,3]}]}");

    // When the shrink is executed and verified (throttles preserved: there are none;
    // ReplicationThrottleIT clears them)
    Result execute =
        tool(
            "--bootstrap-server",
            bootstrap,
            "--reassignment-json-file",
            shrink.toString(),
            "--execute");
    Result verify =
        tool(
            "--bootstrap-server",
            bootstrap,
            "--reassignment-json-file",
            shrink.toString(),
            "--verify",
            "--preserve-throttles");

    // Then
    assertThat(execute.stdout()).contains("Successfully started partition reassignment");
    assertThat(verify.stdout()).contains("Reassignment of partition tooled-0 is completed.");
    awaitServed(new TopicPartition("tooled", 0), "[2, 3]", 2);

    // When a replica on a stopped broker is added (the move stays in progress; through Admin, as
    // the tool refuses brokers that DescribeCluster does not list), listed, then cancelled
    cluster.stop(3);
    Result list;
    Result cancel;
    Result listAfter;
    String running = cluster.bootstrapServers(1) + "," + cluster.bootstrapServers(2);
    try {
      try (Admin admin = ClusterClients.admin(running)) {
        reassign(admin, new TopicPartition("tooled-single", 0), Optional.of(List.of(1, 3)));
      }
      list = tool("--bootstrap-server", running, "--list");
      cancel =
          tool(
              "--bootstrap-server",
              running,
              "--reassignment-json-file",
              grow.toString(),
              "--cancel",
              "--preserve-throttles");
      listAfter = tool("--bootstrap-server", running, "--list");
    } finally {
      cluster.restart(3);
    }

    // Then
    assertThat(list.stdout()).contains("tooled-single-0: replicas: 1,3. adding: 3.");
    assertThat(cancel.stdout()).contains("Successfully cancelled partition reassignment");
    assertThat(listAfter.stdout()).contains("No partition reassignments found.");
    awaitServed(new TopicPartition("tooled-single", 0), "[1]", 1);
  }

  private static Path json(String name, String content) throws IOException {
    return Files.writeString(tmp.resolve(name), content, StandardCharsets.UTF_8);
  }

  @Test
  void aThrottledReassignmentCopiesAtTheThrottleRateAndVerifyClearsIt() throws Exception {
    // Given: 16 MiB on broker 1 alone
    TopicPartition tp = new TopicPartition("throttled", 0);
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers())) {
      fill(admin, tp);
      Path plan =
          json(
              "throttled.json",
              "{\"version\":1,\"partitions\":[{\"topic\":\"throttled\",\"partition\":0,"
                  + "\"replicas\":[1,2]}]}");

      // When: moved to brokers 1 and 2 with a throttle of 1 MiB/s
      tool(
          "--bootstrap-server",
          cluster.bootstrapServers(),
          "--reassignment-json-file",
          plan.toString(),
          "--execute",
          "--throttle",
          "" + THROTTLE);
      double rate = copyRate(2, tp);

      // Then: the copy went at the throttle rate
      assertThat(rate).isBetween(THROTTLE * 0.75, THROTTLE * 1.25);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> admin.listPartitionReassignments().reassignments().get().isEmpty());
      Result verify =
          tool(
              "--bootstrap-server",
              cluster.bootstrapServers(),
              "--reassignment-json-file",
              plan.toString(),
              "--verify");
      assertThat(verify.stdout()).contains("Clearing broker-level throttles");
      assertThat(dynamicConfig(admin, new ConfigResource(ConfigResource.Type.BROKER, "1")))
          .doesNotContainKey("leader.replication.throttled.rate");
      assertThat(
              dynamicConfig(admin, new ConfigResource(ConfigResource.Type.TOPIC, tp.topic()))
                  .getOrDefault("leader.replication.throttled.replicas", ""))
          .isEmpty();
    }
  }

  @Test
  void aMoveOfReplicasNotListedIsNotThrottled() throws Exception {
    // Given: every broker's throttle rates set, but no replica of "free" listed as throttled
    TopicPartition tp = new TopicPartition("free", 0);
    ConfigResource everyBroker = new ConfigResource(ConfigResource.Type.BROKER, "");
    try (Admin admin = ClusterClients.admin(cluster.bootstrapServers())) {
      fill(admin, tp);
      alter(admin, everyBroker, Optional.of("" + THROTTLE));
      try {
        // When: moved to brokers 1 and 3
        admin
            .alterPartitionReassignments(
                Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1, 3)))))
            .all()
            .get(30, TimeUnit.SECONDS);
        double rate = copyRate(3, tp);

        // Then: well above the throttle rate
        assertThat(rate).isGreaterThan(THROTTLE * 2.0);
      } finally {
        alter(admin, everyBroker, Optional.empty());
      }
    }
  }

  /** Creates {@code tp} on broker 1 alone and writes 16 MiB to it. */
  private static void fill(Admin admin, TopicPartition tp) throws Exception {
    admin
        .createTopics(List.of(new NewTopic(tp.topic(), Map.of(0, List.of(1)))))
        .all()
        .get(30, TimeUnit.SECONDS);
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(cluster.bootstrapServers(), "acks", "all", "linger.ms", "5")) {
      byte[] value = new byte[VALUE_BYTES];
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(tp.topic(), 0, null, value));
      }
      producer.flush();
    }
  }

  /**
   * The rate, in bytes per second, at which broker {@code nodeId}'s new replica of {@code tp} grows
   * over the middle of the copy (from record {@link #MEASURE_FROM} to {@link #MEASURE_TO}).
   */
  private static double copyRate(int nodeId, TopicPartition tp) {
    long startNanos = awaitLogEnd(nodeId, tp, MEASURE_FROM);
    long endNanos = awaitLogEnd(nodeId, tp, MEASURE_TO);
    double seconds = (endNanos - startNanos) / 1e9;
    return (MEASURE_TO - MEASURE_FROM) * (double) VALUE_BYTES / seconds;
  }

  /** Waits until the replica's log end reaches {@code offset}; the time it did. */
  private static long awaitLogEnd(int nodeId, TopicPartition tp, long offset) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                cluster
                    .server(nodeId)
                    .replicaManager()
                    .partition(tp)
                    .map(p -> p.log().logEndOffset() >= offset)
                    .orElse(false));
    return System.nanoTime();
  }

  /** Sets (or, empty, deletes) both throttle rates of a broker resource. */
  private static void alter(Admin admin, ConfigResource broker, Optional<String> rate)
      throws Exception {
    List<AlterConfigOp> ops =
        List.of("leader.replication.throttled.rate", "follower.replication.throttled.rate").stream()
            .map(
                key ->
                    new AlterConfigOp(
                        new ConfigEntry(key, rate.orElse("")),
                        rate.isPresent() ? AlterConfigOp.OpType.SET : AlterConfigOp.OpType.DELETE))
            .toList();
    admin.incrementalAlterConfigs(Map.of(broker, ops)).all().get(30, TimeUnit.SECONDS);
  }

  /** The dynamic (non-default) config entries of a resource. */
  private static Map<String, String> dynamicConfig(Admin admin, ConfigResource resource)
      throws Exception {
    Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    return config.entries().stream()
        .filter(
            e ->
                e.source() == ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG
                    || e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
        .collect(java.util.stream.Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
  }

  /** What a child JVM printed. */
  private record Result(String stdout, String stderr) {}

  /**
   * {@code kafka-reassign-partitions.sh ARGS} as a child JVM on the test classpath (the kafka-tools
   * jar), which must exit with 0.
   */
  private static Result tool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-Dlog4j2.configurationFile=log4j2-child.properties");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("org.apache.kafka.tools.reassign.ReassignPartitionsCommand");
    command.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "tool-", ".out");
    Path err = Files.createTempFile(tmp, "tool-", ".err");
    Process process =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!process.waitFor(TOOL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("timed out: " + command + "\n" + Files.readString(out));
    }
    Result result = new Result(Files.readString(out), Files.readString(err));
    assertThat(process.exitValue())
        .as(
            "%s\n--- stdout ---\n%s\n--- stderr ---\n%s",
            String.join(" ", args), result.stdout(), result.stderr())
        .isZero();
    return result;
  }
}
