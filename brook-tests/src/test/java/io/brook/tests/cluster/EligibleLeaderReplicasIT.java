package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.producer;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eligible leader replicas (KIP-966) with real processes: three controller-only nodes (so the
 * metadata quorum outlives the brokers) and brokers 101, 102, 103 holding one partition, RF 3,
 * {@code min.insync.replicas=2}, unclean leader election off.
 *
 * <p>The last replica standing: 103 and then 102 stop cleanly, so 101 is alone in the ISR and 102
 * (which left while the ISR was at min ISR no more) is an eligible leader replica; 101 is killed
 * with SIGKILL. 103, neither in the ISR nor in the ELR, comes back and is not elected. 102 comes
 * back after its clean shutdown and is elected from the ELR: every acknowledged record is there.
 * {@code Admin.describeTopics} (DescribeTopicPartitions) shows the ELR throughout.
 */
class EligibleLeaderReplicasIT {
  private static final String TOPIC = "elr";
  private static final int RECORDS = 300;

  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterHarness.start(dir, 3, 3, Map.of());
    try (Admin admin = admin(cluster.node(101).bootstrap())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(TOPIC, Map.of(0, List.of(101, 102, 103)))
                      .configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theLastReplicaStandingIsReplacedByAnEligibleReplicaWithoutLosingAcknowledgedRecords()
      throws Exception {
    // Given every replica in sync and records acknowledged by all of them
    awaitPartition(101, p -> assertThat(ids(p.isr())).containsExactly(101, 102, 103));
    List<Long> acknowledged = new ArrayList<>();
    try (KafkaProducer<String, String> producer = producer(cluster.node(101).bootstrap())) {
      for (int i = 0; i < RECORDS; i++) {
        acknowledged.add(
            producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "v" + i)).get().offset());
      }
    }

    // When 103 stops cleanly: the ISR is still at min ISR, so no ELR
    cluster.node(103).stop();
    awaitPartition(
        101,
        p -> {
          assertThat(ids(p.isr())).containsExactly(101, 102);
          assertThat(p.elr()).isEmpty();
        });

    // When 102 stops cleanly: 101 is the last in the ISR, 102 becomes eligible
    cluster.node(102).stop();
    awaitPartition(
        101,
        p -> {
          assertThat(ids(p.isr())).containsExactly(101);
          assertThat(ids(p.elr())).containsExactly(102);
        });
    // kafka-topics --describe (Kafka's own tool, in a child JVM) shows it too
    ChildProcess.Result describe =
        ChildProcess.run(
            ChildProcess.javaCommand(
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                cluster.node(101).bootstrap(),
                "--describe",
                "--topic",
                TOPIC),
            "",
            Duration.ofSeconds(60));
    assertThat(describe.exitCode()).as(describe.describe()).isZero();
    assertThat(describe.stdout()).as(describe.describe()).contains("Isr: 101", "Elr: 102");

    // When 101, the leader, is killed and 103 (neither in the ISR nor in the ELR) comes back
    cluster.node(101).kill();
    cluster.node(103).restart();

    // Then 103 is not elected: unclean election is off and the ELR names replicas with every record
    awaitPartition(
        103,
        p -> {
          assertThat(p.leader()).isNull();
          assertThat(p.isr()).isEmpty();
          assertThat(ids(p.elr())).containsExactly(101, 102);
          assertThat(ids(p.lastKnownElr())).containsExactly(101);
        });

    // When 102 comes back after its clean shutdown
    cluster.node(102).restart();

    // Then it leads (an ELR election: the only one unclean election being off allows), 103
    // catches up from it, and the ISR back at min ISR clears the ELR
    awaitPartition(
        103,
        p -> {
          assertThat(p.leader().id()).isEqualTo(102);
          assertThat(ids(p.isr())).containsExactlyInAnyOrder(102, 103);
          assertThat(p.elr()).isEmpty();
        });
    List<ConsumerRecord<byte[], byte[]>> read =
        TestClients.readAll(cluster.node(102).bootstrap(), TOPIC, 1);
    List<Long> offsets = read.stream().map(ConsumerRecord::offset).toList();
    assertThat(offsets).containsAll(acknowledged);
    for (ConsumerRecord<byte[], byte[]> record : read) {
      int i = acknowledged.indexOf(record.offset());
      assertThat(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("v" + i);
    }

    // Finally 101 comes back after its crash: it rejoins as a follower
    cluster.node(101).restart();
    awaitPartition(102, p -> assertThat(ids(p.isr())).containsExactlyInAnyOrder(101, 102, 103));
  }

  /** Waits until partition 0 as described through {@code brokerId} meets {@code requirement}. */
  private static void awaitPartition(int brokerId, Consumer<TopicPartitionInfo> requirement) {
    Node broker = cluster.node(brokerId);
    try (Admin admin = admin(broker.bootstrap())) {
      await("partition 0 of " + TOPIC + " described through " + brokerId)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () ->
                  requirement.accept(
                      admin
                          .describeTopics(List.of(TOPIC))
                          .allTopicNames()
                          .get(30, SECONDS)
                          .get(TOPIC)
                          .partitions()
                          .get(0)));
    }
  }

  private static List<Integer> ids(List<org.apache.kafka.common.Node> nodes) {
    return nodes.stream().map(org.apache.kafka.common.Node::id).toList();
  }
}
