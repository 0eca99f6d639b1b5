package io.brook.broker;

import static io.brook.broker.BrokerFixture.call;
import static io.brook.broker.BrokerFixture.fetchRequest;
import static io.brook.broker.BrokerFixture.produceRequest;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.DeleteRecordsHandler;
import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DeleteRecords on a single-replica leader, against a real log (Kafka's checks and errors). */
class DeleteRecordsTest {
  @TempDir Path root;
  BrokerFixture broker;
  ProduceHandler produce;
  FetchHandler fetch;
  DeleteRecordsHandler deleteRecords;

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic("orders", 1);
    broker.quorum.createTopic(
        "changelog", 1, BrokerFixture.BROKER_ID, Map.of("cleanup.policy", "compact"));
    produce = new ProduceHandler(broker.replicaManager);
    fetch = new FetchHandler(broker.replicaManager);
    deleteRecords = new DeleteRecordsHandler(broker.replicaManager);
    call(produce, produceRequest("orders", 0, (short) 1, "a", "b", "c", "d"));
    call(produce, produceRequest("changelog", 0, (short) 1, "a"));
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private DeleteRecordsPartitionResult delete(String topic, long offset) throws Exception {
    DeleteRecordsRequestData request = new DeleteRecordsRequestData().setTimeoutMs(5_000);
    request
        .topics()
        .add(
            new DeleteRecordsRequestData.DeleteRecordsTopic()
                .setName(topic)
                .setPartitions(
                    java.util.List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition()
                            .setPartitionIndex(0)
                            .setOffset(offset))));
    DeleteRecordsResponseData response = (DeleteRecordsResponseData) call(deleteRecords, request);
    return response.topics().iterator().next().partitions().iterator().next();
  }

  @Test
  void movesTheLogStartAndAnswersTheLowWatermark() throws Exception {
    DeleteRecordsPartitionResult result = delete("orders", 2);
    assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
    assertThat(result.lowWatermark()).isEqualTo(2);
    assertThat(log("orders").logStartOffset()).isEqualTo(2);
  }

  @Test
  void minusOneDeletesUpToTheHighWatermark() throws Exception {
    assertThat(delete("orders", -1).lowWatermark()).isEqualTo(4);
  }

  @Test
  void anOffsetAboveTheHighWatermarkIsOutOfRangeAndDeletesNothing() throws Exception {
    assertThat(Errors.forCode(delete("orders", 5).errorCode()))
        .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
    assertThat(log("orders").logStartOffset()).isZero();
  }

  @Test
  void aCompactedTopicRefusesWithPolicyViolation() throws Exception {
    assertThat(Errors.forCode(delete("changelog", 1).errorCode()))
        .isEqualTo(Errors.POLICY_VIOLATION);
    assertThat(log("changelog").logStartOffset()).isZero();
  }

  @Test
  void aFetchParkedForMoreBytesBelowTheNewStartIsAnsweredAtOnce() throws Exception {
    // A consumer waiting at offset 0 for far more bytes than the log holds.
    CompletableFuture<ApiMessage> parked =
        fetch
            .handle(
                BrokerFixture.context(fetch.apiKey(), fetch.maxVersion()),
                fetchRequest("orders", 0, 0, 30_000, 1 << 20))
            .toCompletableFuture();
    assertThat(parked).isNotDone();

    delete("orders", 3);

    FetchResponseData response = (FetchResponseData) parked.get(10, TimeUnit.SECONDS);
    assertThat(Errors.forCode(response.responses().get(0).partitions().get(0).errorCode()))
        .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
  }

  private io.brook.storage.log.ReplicaLog log(String topic) {
    return broker.replicaManager.partition(new TopicPartition(topic, 0)).orElseThrow().log();
  }
}
