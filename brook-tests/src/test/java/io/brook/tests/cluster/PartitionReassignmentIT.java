package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
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
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.common.TopicPartition;
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
 * cancelled; reorders and shrinks complete at once.
 */
@Timeout(300)
class PartitionReassignmentIT {
  private static final Duration WITHIN = Duration.ofSeconds(20);
  private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
  private static EmbeddedBrookCluster cluster;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    // No automatic preferred-leader election: the tests check which leader a move leaves.
    cluster =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            .config("auto.leader.rebalance.enable", "false")
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

    // When the shrink is executed and verified (throttles preserved: there are none, and clearing
    // them would ask for dynamic broker configs, which Brook refuses)
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
