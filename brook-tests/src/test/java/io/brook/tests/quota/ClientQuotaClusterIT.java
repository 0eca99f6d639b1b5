package io.brook.tests.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A quota set through one node of a three-node cluster is in every node's metadata and enforced by
 * every broker, and still is after a node restarts (it is in the metadata log).
 */
@Timeout(240)
class ClientQuotaClusterIT {
  private static final String CLIENT = "everywhere";

  /** 10 KiB/s: a fresh client may send 10 windows' worth, 100 KiB, before it is throttled. */
  private static final double QUOTA = 10 * 1024;

  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster = EmbeddedBrookCluster.builder().start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aQuotaSetOnOneNodeIsEnforcedByEveryBrokerAndSurvivesARestart() throws Exception {
    // Given: one single-replica topic on each node, and the quota set through node 1
    try (Admin admin = admin(cluster.bootstrapServers(1))) {
      for (int node : cluster.nodeIds()) {
        admin
            .createTopics(
                List.of(new NewTopic("on-" + node, Map.of(0, List.of(node))))) // led by node
            .all()
            .get();
      }
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      entity(),
                      List.of(new ClientQuotaAlteration.Op("producer_byte_rate", QUOTA)))))
          .all()
          .get();
    }

    // When / Then: every broker knows the quota and throttles the client writing to it
    for (int node : cluster.nodeIds()) {
      awaitQuotaOn(node);
      assertThrottledWritingTo(node);
    }

    // When: a node restarts
    cluster.stop(2);
    cluster.restart(2);

    // Then: the quota came back with its metadata, and a new producer is throttled again
    awaitQuotaOn(2);
    assertThrottledWritingTo(2);
  }

  /**
   * CreateTopics sent to a broker that is not the active controller is forwarded with its client's
   * identity, so the client's {@code controller_mutation_rate} applies there too, and the refusal
   * comes back through the forwarding broker with its throttle time.
   */
  @Test
  void aMutationQuotaHoldsForRequestsAForwardingBrokerPasses() throws Exception {
    // Given: 1 partition a second (a burst of 11 with the default 11 x 1 s window), and a node
    // that is not the active controller
    String client = "remote-creator";
    int forwarder;
    try (Admin admin = admin(cluster.bootstrapServers(1))) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, client)),
                      List.of(new ClientQuotaAlteration.Op("controller_mutation_rate", 1.0)))))
          .all()
          .get();
      int controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
      forwarder = cluster.nodeIds().stream().filter(id -> id != controller).findFirst().get();
    }
    String[] hostPort = cluster.bootstrapServers(forwarder).split(":");
    try (RawKafkaClient raw =
        new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]), client)) {
      // When: 12 partitions (admitted: the bucket goes into debt), then one more
      CreateTopicsResponseData first = createTopic(raw, "remote-a", 12);
      CreateTopicsResponseData second = createTopic(raw, "remote-b", 1);

      // Then
      assertThat(first.topics().find("remote-a").errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(second.topics().find("remote-b").errorCode())
          .isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
      assertThat(second.throttleTimeMs()).isPositive();
    }
  }

  /** A CreateTopics at version 6 (the first that knows THROTTLING_QUOTA_EXCEEDED). */
  private static CreateTopicsResponseData createTopic(RawKafkaClient raw, String name, int count)
      throws Exception {
    CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
    request
        .topics()
        .add(
            new CreateTopicsRequestData.CreatableTopic()
                .setName(name)
                .setNumPartitions(count)
                .setReplicationFactor((short) 1));
    short version = 6;
    return new CreateTopicsResponseData(
        new ByteBufferAccessor(raw.send(request, version)), version);
  }

  private static void awaitQuotaOn(int node) throws Exception {
    try (Admin admin = admin(cluster.bootstrapServers(node))) {
      ClientQuotaFilter filter =
          ClientQuotaFilter.containsOnly(
              List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID, CLIENT)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Optional.ofNullable(
                          admin.describeClientQuotas(filter).entities().get().get(entity()))
                      .equals(Optional.of(Map.of("producer_byte_rate", QUOTA))));
    }
  }

  /**
   * 160 KiB sent to the partition {@code node} leads: beyond what the quota lets through at once.
   */
  private static void assertThrottledWritingTo(int node) {
    KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(cluster.bootstrapServers(), "client.id", CLIENT, "acks", "1");
    try {
      for (int i = 0; i < 20; i++) {
        producer.send(new ProducerRecord<>("on-" + node, new byte[8 * 1024]));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> ClientQuotaIT.metric(producer.metrics(), "produce-throttle-time-max") > 0);
    } finally {
      producer.close(Duration.ZERO); // what is still queued behind the throttle is dropped
    }
  }

  private static ClientQuotaEntity entity() {
    return new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, CLIENT));
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }
}
