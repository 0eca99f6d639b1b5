package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
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
    broker.registerBroker(FOLLOWER);
    broker.quorum.createTopic(TP.topic(), Map.of(0, List.of(1, FOLLOWER)), Map.of());
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
    ProduceRequestData produce = BrokerFixture.produceRequest(TP.topic(), 0, (short) -1, "v");
    produce.setTimeoutMs(TEN_MINUTES_MS);
    CompletableFuture<ApiMessage> produced =
        call(new ProduceHandler(broker.replicaManager), produce);

    FetchRequestData fetch = BrokerFixture.fetchRequest(TP.topic(), 0, 0, TEN_MINUTES_MS, 1);
    CompletableFuture<ApiMessage> fetched = call(new FetchHandler(broker.replicaManager), fetch);
    // Both park: acks=all waits for the follower, the fetch for data below the high watermark.
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.delayed.waiting(TP) == 2);
    assertThat(produced).isNotDone();
    assertThat(fetched).isNotDone();

    // When
    broker.quorum.deleteTopic(TP.topic());

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
