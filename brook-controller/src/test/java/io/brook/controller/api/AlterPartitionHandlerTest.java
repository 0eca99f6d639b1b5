package io.brook.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.ControllerConfig;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionRequestData.BrokerState;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** AlterPartition on the wire, on an in-memory quorum: topic "t" on brokers 1, 2, 3, led by 1. */
class AlterPartitionHandlerTest {
  private InMemoryMetadataQuorum quorum;
  private ClusterController controller;
  private AlterPartitionHandler handler;
  private Uuid topicId;

  @BeforeEach
  void setUp() throws Exception {
    quorum = new InMemoryMetadataQuorum();
    controller = new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
    for (int id = 1; id <= 3; id++) {
      int broker = id;
      quorum.submit(
          image ->
              controller.registerBroker(
                  broker,
                  Uuid.randomUuid(),
                  List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT")),
                  Optional.empty()));
    }
    quorum.submit(
        image ->
            controller.createTopic(
                "t",
                -1,
                (short) -1,
                Map.of(0, List.of(1, 2, 3)),
                Map.of(),
                false,
                ConfigValidator.NONE));
    topicId = quorum.image().topic("t").orElseThrow().id();
    handler = new AlterPartitionHandler(quorum, controller);
  }

  @AfterEach
  void tearDown() {
    quorum.close();
  }

  private long epochOf(int brokerId) {
    return quorum.image().brokers().get(brokerId).epoch();
  }

  private AlterPartitionRequestData isrOf(long brokerEpoch, List<Integer> isr) {
    AlterPartitionRequestData.PartitionData partition =
        new AlterPartitionRequestData.PartitionData()
            .setPartitionIndex(0)
            .setLeaderEpoch(0)
            .setPartitionEpoch(0)
            .setNewIsr(isr)
            .setNewIsrWithEpochs(
                isr.stream()
                    .map(id -> new BrokerState().setBrokerId(id).setBrokerEpoch(epochOf(id)))
                    .toList());
    AlterPartitionRequestData request =
        new AlterPartitionRequestData().setBrokerId(1).setBrokerEpoch(brokerEpoch);
    request
        .topics()
        .add(
            new AlterPartitionRequestData.TopicData()
                .setTopicId(topicId)
                .setPartitions(List.of(partition)));
    return request;
  }

  private AlterPartitionResponseData call(AlterPartitionRequestData request, int version)
      throws Exception {
    RequestContext context =
        new RequestContext(
            new RequestHeader(ApiKeys.ALTER_PARTITION, (short) version, "broker-1", 1),
            "CONTROLLER",
            InetAddress.getLoopbackAddress(),
            "test-connection",
            System.nanoTime());
    return (AlterPartitionResponseData)
        handler.handle(context, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aShrinkIsAnsweredWithTheNewStateByTopicId() throws Exception {
    AlterPartitionResponseData response = call(isrOf(epochOf(1), List.of(1, 2)), 3);

    assertThat(response.errorCode()).isZero();
    assertThat(response.topics()).hasSize(1);
    assertThat(response.topics().get(0).topicId()).isEqualTo(topicId);
    AlterPartitionResponseData.PartitionData p = response.topics().get(0).partitions().get(0);
    assertThat(p.errorCode()).isZero();
    assertThat(p.leaderId()).isEqualTo(1);
    assertThat(p.leaderEpoch()).isZero();
    assertThat(p.isr()).containsExactly(1, 2);
    assertThat(p.partitionEpoch()).isEqualTo(1);
    assertThat(quorum.image().partition("t", 0).orElseThrow().isr()).containsExactly(1, 2);
  }

  @Test
  void aStaleBrokerEpochFailsTheWholeRequest() throws Exception {
    AlterPartitionResponseData response = call(isrOf(epochOf(1) + 100, List.of(1, 2)), 3);

    assertThat(response.errorCode()).isEqualTo(Errors.STALE_BROKER_EPOCH.code());
    assertThat(response.topics()).isEmpty();
  }

  @Test
  void versionTwoHasNoEpochsAndNoIneligibleReplicaCode() throws Exception {
    // Given 3 out of sync, then fenced
    call(isrOf(epochOf(1), List.of(1, 2)), 3);
    quorum.submit(image -> controller.fenceBroker(3));

    // When a version 2 leader asks to add it back
    AlterPartitionRequestData expand = isrOf(epochOf(1), List.of(1, 2, 3));
    expand.topics().get(0).partitions().get(0).setPartitionEpoch(1).setNewIsrWithEpochs(List.of());
    AlterPartitionResponseData response = call(expand, 2);

    // Then
    assertThat(response.topics().get(0).partitions().get(0).errorCode())
        .isEqualTo(Errors.OPERATION_NOT_ATTEMPTED.code());
  }
}
