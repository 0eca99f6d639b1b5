package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-853 with real processes and Kafka's own tool: a single node grows into a three-voter cluster
 * with {@code kafka-metadata-quorum add-controller}, loses its first node to SIGKILL without losing
 * an acknowledged record, and shrinks back with {@code remove-controller}.
 */
class DynamicQuorumIT {
  private static final String QUORUM_TOOL = "org.apache.kafka.tools.MetadataQuorumCommand";
  private static final Duration TOOL_TIMEOUT = Duration.ofMinutes(2);
  private static final int RECORDS = 200;

  @TempDir Path dir;
  private ClusterHarness cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aSingleNodeGrowsToThreeVotersSurvivesLosingItAndShrinksBack() throws Exception {
    // Given a dev-style single node (broker and controller, one voter) with acknowledged records
    cluster = ClusterHarness.start(dir, 1, Map.of("default.replication.factor", "1"));
    ClusterHarness.Node first = cluster.node(1);
    TestClients.createTopic(first.bootstrap(), "before", 1);
    Set<String> acked = new HashSet<>(produce(first.bootstrap(), "before", "a"));

    // When two nodes start with controller.quorum.bootstrap.servers, and are added as voters
    ClusterHarness.Node second = cluster.addBootstrapNode(2, Map.of());
    ClusterHarness.Node third = cluster.addBootstrapNode(3, Map.of());
    for (ClusterHarness.Node node : List.of(second, third)) {
      ChildProcess.Result added =
          tool(
              "--bootstrap-server",
              first.bootstrap(),
              "--command-config",
              node.config().toString(),
              "add-controller");
      assertThat(added.stdout()).contains("Added controller " + node.id());
    }

    // Then the tool describes three voters, each with its directory id
    ChildProcess.Result replication =
        tool("--bootstrap-server", first.bootstrap(), "describe", "--replication");
    for (int id = 1; id <= 3; id++) {
      assertThat(replication.stdout())
          .containsPattern("(?m)^" + id + "\\s+" + directoryId(id) + "\\s+.*(Leader|Follower)");
    }
    ChildProcess.Result status =
        tool("--bootstrap-server", first.bootstrap(), "describe", "--status");
    assertThat(status.stdout()).contains("\"id\": 1", "\"id\": 2", "\"id\": 3");

    // And --bootstrap-controller fails: the CONTROLLER port speaks Ratis gRPC, not Kafka's protocol
    Path shortTimeouts = dir.resolve("short-timeouts.properties");
    Files.writeString(shortTimeouts, "request.timeout.ms=3000\ndefault.api.timeout.ms=6000\n");
    ChildProcess.Result direct =
        ChildProcess.run(
            ChildProcess.javaCommand(
                QUORUM_TOOL,
                "--bootstrap-controller",
                "127.0.0.1:" + first.controllerPort(),
                "--command-config",
                shortTimeouts.toString(),
                "describe",
                "--status"),
            "",
            TOOL_TIMEOUT);
    System.out.println("DynamicQuorumIT: --bootstrap-controller answers: " + direct.describe());
    assertThat(direct.exitCode()).isNotZero();

    // And "before" moves to three replicas and an RF 3 topic with min ISR 2 takes acks=all writes
    try (Admin admin = admin(first.bootstrap())) {
      TopicPartition before = new TopicPartition("before", 0);
      admin
          .alterPartitionReassignments(
              Map.of(before, Optional.of(new NewPartitionReassignment(List.of(1, 2, 3)))))
          .all()
          .get();
      await("before is replicated on three in-sync replicas")
          .atMost(Duration.ofSeconds(60))
          .until(() -> isr(admin, "before").size() == 3);
      admin
          .createTopics(
              List.of(
                  new NewTopic("replicated", 1, (short) 3)
                      .configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get();
      await("replicated has three in-sync replicas")
          .atMost(Duration.ofSeconds(60))
          .until(() -> isr(admin, "replicated").size() == 3);
    }
    Set<String> ackedReplicated = new HashSet<>(produce(first.bootstrap(), "replicated", "b"));

    // When the original node is killed
    first.kill();
    String survivors = second.bootstrap() + "," + third.bootstrap();

    // Then the other two serve metadata, elect leaders, take acks=all writes and lose nothing
    try (Admin admin = admin(survivors)) {
      admin.createTopics(List.of(new NewTopic("after", 1, (short) 2))).all().get();
      await("leaders move off the killed node")
          .atMost(Duration.ofSeconds(60))
          .until(() -> leader(admin, "replicated") > 1 && leader(admin, "before") > 1);
    }
    ackedReplicated.addAll(produce(survivors, "replicated", "c"));
    acked.addAll(produce(survivors, "before", "d"));
    assertThat(values(survivors, "replicated")).containsAll(ackedReplicated);
    assertThat(values(survivors, "before")).containsAll(acked);

    // When the dead node is removed from the voters
    ChildProcess.Result removed =
        tool(
            "--bootstrap-server",
            survivors,
            "remove-controller",
            "--controller-id",
            "1",
            "--controller-directory-id",
            directoryId(1));
    assertThat(removed.stdout()).contains("Removed KRaft controller 1");

    // Then the quorum reports two voters
    try (Admin admin = admin(survivors)) {
      QuorumInfo quorum = admin.describeMetadataQuorum().quorumInfo().get();
      assertThat(quorum.voters()).extracting(QuorumInfo.ReplicaState::replicaId).containsOnly(2, 3);
    }
  }

  private List<String> produce(String bootstrap, String topic, String prefix) throws Exception {
    List<String> acked = new ArrayList<>();
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        sends.add(producer.send(new ProducerRecord<>(topic, prefix + i)));
      }
      for (int i = 0; i < RECORDS; i++) {
        sends.get(i).get();
        acked.add(prefix + i);
      }
    }
    return acked;
  }

  private static Set<String> values(String bootstrap, String topic) {
    Set<String> values = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> record : TestClients.readAll(bootstrap, topic, 1)) {
      values.add(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8));
    }
    return values;
  }

  private static List<Integer> isr(Admin admin, String topic) throws Exception {
    TopicPartitionInfo partition =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
    return partition.isr().stream().map(org.apache.kafka.common.Node::id).toList();
  }

  private static int leader(Admin admin, String topic) throws Exception {
    TopicPartitionInfo partition =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
    return partition.leader() == null ? -1 : partition.leader().id();
  }

  /** The {@code directory.id} in the node's {@code meta.properties}: its id as a voter. */
  private String directoryId(int id) throws Exception {
    Properties props = new Properties();
    try (Reader reader =
        Files.newBufferedReader(dir.resolve("data-" + id).resolve("meta.properties"))) {
      props.load(reader);
    }
    return props.getProperty("directory.id");
  }

  private static ChildProcess.Result tool(String... args) {
    ChildProcess.Result result =
        ChildProcess.run(ChildProcess.javaCommand(QUORUM_TOOL, args), "", TOOL_TIMEOUT);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }
}
