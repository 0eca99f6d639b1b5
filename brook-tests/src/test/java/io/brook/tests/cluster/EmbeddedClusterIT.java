package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Three combined nodes in this JVM on a Raft quorum, driven by kafka-clients. */
class EmbeddedClusterIT {
  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster = EmbeddedBrookCluster.builder().nodes(3).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyBrokerAcceptsAdminRequestsAndServesTheSameMetadata() throws Exception {
    // Given a topic created through each node in turn (only one is the active controller)
    for (int id : cluster.nodeIds()) {
      try (Admin admin = admin(cluster.bootstrapServers(id))) {
        admin.createTopics(List.of(new NewTopic("via-" + id, 6, (short) 3))).all().get();
      }
    }

    // Then every broker describes the cluster and every topic identically
    Set<String> topics = Set.of("via-1", "via-2", "via-3");
    await()
        .atMost(Duration.ofSeconds(10))
        // A broker serves a topic a moment after the controller committed it.
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Map<String, TopicDescription> first = null;
              for (int id : cluster.nodeIds()) {
                try (Admin admin = admin(cluster.bootstrapServers(id))) {
                  Map<String, TopicDescription> seen =
                      admin.describeTopics(topics).allTopicNames().get();
                  assertThat(admin.describeCluster().nodes().get()).hasSize(3);
                  if (first == null) {
                    first = seen;
                  }
                  assertThat(seen).isEqualTo(first);
                }
              }
            });
  }

  @Test
  void idempotentProducersGetIdsFromControllerAllocatedBlocksOnEveryBroker() throws Exception {
    // Given a single-replica topic (acks=all needs no follower) on every broker
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic("idempotent", 3, (short) 1))).all().get();
    }

    // When an idempotent producer (kafka-clients' default, acks=all) writes through each broker
    for (int id : cluster.nodeIds()) {
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(id));
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
      props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
        // Then every send is acknowledged (InitProducerId got an id from an allocated block)
        for (int p = 0; p < 3; p++) {
          producer.send(new ProducerRecord<>("idempotent", p, "k", "v" + id)).get();
        }
      }
    }
  }

  @Test
  void controlledShutdownMovesLeadershipsAndRestartRejoins() throws Exception {
    // Given a topic with three replicas, its leaders spread over the nodes
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic("moving", 6, (short) 3))).all().get();
    }
    int victim = 2;

    // When node 2 stops cleanly
    cluster.stop(victim);

    // Then no partition names it as leader, and the others still take writes
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(leadersOf("moving", 1)).doesNotContain(victim));
    try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers(1))) {
      for (int p = 0; p < 6; p++) {
        producer.send(new ProducerRecord<>("moving", p, "k", "v")).get();
      }
    }

    // When it starts again, it is unfenced and listed by every broker
    cluster.restart(victim);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              for (int id : cluster.nodeIds()) {
                try (Admin admin = admin(cluster.bootstrapServers(id))) {
                  assertThat(admin.describeCluster().nodes().get().stream().map(Node::id))
                      .containsExactlyInAnyOrder(1, 2, 3);
                }
              }
            });

    // and, having copied what it missed, rejoins every ISR
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              try (Admin admin = admin(cluster.bootstrapServers(1))) {
                TopicDescription d =
                    admin.describeTopics(Set.of("moving")).allTopicNames().get().get("moving");
                assertThat(d.partitions()).allSatisfy(p -> assertThat(p.isr()).hasSize(3));
              }
            });

    // When a preferred-leader election is requested for every partition of the topic
    Set<TopicPartition> partitions = new HashSet<>();
    for (int p = 0; p < 6; p++) {
      partitions.add(new TopicPartition("moving", p));
    }
    Map<TopicPartition, Optional<Throwable>> results;
    try (Admin admin = admin(cluster.bootstrapServers(3))) {
      results = admin.electLeaders(ElectionType.PREFERRED, partitions).partitions().get();
    }

    // Then every partition is led by its first replica again: node 2's by election, the others
    // needed none (node 1, asked here, learns the election's outcome from the metadata log a
    // moment after node 3 answered)
    try (Admin admin = admin(cluster.bootstrapServers(1))) {
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                TopicDescription led =
                    admin.describeTopics(Set.of("moving")).allTopicNames().get().get("moving");
                for (TopicPartitionInfo p : led.partitions()) {
                  assertThat(p.leader().id()).isEqualTo(p.replicas().get(0).id());
                }
              });
      TopicDescription d =
          admin.describeTopics(Set.of("moving")).allTopicNames().get().get("moving");
      for (TopicPartitionInfo p : d.partitions()) {
        Optional<Throwable> outcome = results.get(new TopicPartition("moving", p.partition()));
        if (p.replicas().get(0).id() == victim) {
          assertThat(outcome).isEmpty();
        } else {
          outcome.ifPresent(e -> assertThat(e).isInstanceOf(ElectionNotNeededException.class));
        }
      }
    }
  }

  @Test
  void everyBrokerDescribesTheQuorumAsTheActiveControllerSeesIt() throws Exception {
    // When the metadata quorum is described through each broker (forwarded to the leader)
    Set<Integer> leaders = new HashSet<>();
    for (int id : cluster.nodeIds()) {
      try (Admin admin = admin(cluster.bootstrapServers(id))) {
        QuorumInfo quorum =
            await()
                .atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(
                    () -> admin.describeMetadataQuorum().quorumInfo().get(),
                    // Every voter has acknowledged everything committed.
                    q -> q.voters().stream().allMatch(v -> v.logEndOffset() >= q.highWatermark()));

        // Then all three voters are listed with their progress, and no observers
        assertThat(quorum.voters())
            .extracting(QuorumInfo.ReplicaState::replicaId)
            .containsExactlyInAnyOrder(1, 2, 3);
        assertThat(quorum.leaderEpoch()).isPositive();
        assertThat(quorum.highWatermark()).isPositive();
        assertThat(quorum.observers()).isEmpty();
        assertThat(quorum.nodes()).containsOnlyKeys(1, 2, 3);
        leaders.add(quorum.leaderId());
      }
    }
    assertThat(leaders).hasSize(1);
  }

  @Test
  void everyReplicaOfAnIdlePartitionLearnsItsHighWatermark() throws Exception {
    // Given a three-replica partition and one acknowledged record, then no more writes
    TopicPartition tp = new TopicPartition("idle-high-watermark", 0);
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic(tp.topic(), 1, (short) 3))).all().get();
    }
    try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "v")).get();
    }

    // Then every replica comes to the high watermark past the record: a follower learns the
    // moves it did not cause from the answers to fetches that found nothing new (their waits
    // time out while the leader's high watermark moves)
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster.nodeIds().stream()
                    .allMatch(
                        id ->
                            cluster
                                    .server(id)
                                    .replicaManager()
                                    .partition(tp)
                                    .map(p -> p.log().highWatermark())
                                    .orElse(-1L)
                                == 1L));
  }

  private static List<Integer> leadersOf(String topic, int viaNode)
      throws InterruptedException, ExecutionException {
    try (Admin admin = admin(cluster.bootstrapServers(viaNode))) {
      TopicDescription description =
          admin.describeTopics(Set.of(topic)).allTopicNames().get().get(topic);
      return description.partitions().stream()
          .map(TopicPartitionInfo::leader)
          .map(n -> n == null ? -1 : n.id())
          .toList();
    }
  }

  static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    return Admin.create(props);
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
    return new KafkaProducer<>(props);
  }
}
