package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ControllerConfig;
import io.brook.metadata.record.BrokerEndpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting a topic answers what waits on its partitions at once: an acks=all produce waiting for a
 * follower that never fetches, and a consumer's long poll. Both ask to wait ten minutes.
 */
class PartitionRemovalTest {
  private static final int FOLLOWER = 2;
  private static final TopicPartition TP = new TopicPartition("doomed", 0);
  private static final int TEN_MINUTES_MS = 600_000;

  @TempDir Path dir;
  private BrokerFixture broker;

  @BeforeEach
  void start() throws Exception {
    // Given: partition 0 led here with a second replica, in sync, that never fetches
    broker = new BrokerFixture(dir);
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, broker.quorum::image, new Random(3));
    broker.quorum.submit(
        image ->
            controller.registerBroker(
                FOLLOWER,
                Uuid.randomUuid(),
                List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9093, "PLAINTEXT")),
                Optional.empty()));
    broker.admin.createTopic(
        TP.topic(), -1, (short) -1, Map.of(0, List.of(1, FOLLOWER)), Map.of(), false);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private static CompletableFuture<ApiMessage> call(
      io.brook.protocol.ApiHandler handler, ApiMessage request) {
    return handler
        .handle(BrokerFixture.context(handler.apiKey(), handler.maxVersion()), request)
        .toCompletableFuture();
  }

  @Test
  void deletingTheTopicAnswersAWaitingAcksAllProduceAndAWaitingFetch() throws Exception {
    ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1);
    produce.setTimeoutMs(TEN_MINUTES_MS);
    ProduceRequestData.TopicProduceData topic =
        new ProduceRequestData.TopicProduceData().setName(TP.topic());
    topic
        .partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(0)
                .setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))));
    produce.topicData().add(topic);
    CompletableFuture<ApiMessage> produced =
        call(new ProduceHandler(broker.replicaManager), produce);

    FetchRequestData fetch =
        new FetchRequestData()
            .setMaxWaitMs(TEN_MINUTES_MS)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .setReplicaId(-1);
    FetchRequestData.FetchTopic fetchTopic =
        new FetchRequestData.FetchTopic().setTopic(TP.topic()).setTopicId(Uuid.ZERO_UUID);
    fetchTopic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(0)
                .setFetchOffset(0)
                .setPartitionMaxBytes(1 << 20)
                .setCurrentLeaderEpoch(-1));
    fetch.topics().add(fetchTopic);
    CompletableFuture<ApiMessage> fetched = call(new FetchHandler(broker.replicaManager), fetch);
    // Both park: acks=all waits for the follower, the fetch for data below the high watermark.
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.delayed.waiting(TP) == 2);
    assertThat(produced).isNotDone();
    assertThat(fetched).isNotDone();

    // When
    assertThat(broker.admin.deleteTopic(TP.topic()).isSuccess()).isTrue();

    // Then: both are answered long before their ten minutes, with a retriable error
    ProduceResponseData produceResponse = (ProduceResponseData) produced.get(30, TimeUnit.SECONDS);
    assertThat(
            Errors.forCode(
                produceResponse
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .get(0)
                    .errorCode()))
        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    FetchResponseData fetchResponse = (FetchResponseData) fetched.get(30, TimeUnit.SECONDS);
    assertThat(fetchResponse.responses().get(0).partitions().get(0).errorCode()).isNotZero();
    assertThat(broker.delayed.watchedPartitions()).isZero();
  }
}
