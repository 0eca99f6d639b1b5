package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.ProduceHandler;
import io.brook.broker.api.WriteTxnMarkersHandler;
import io.brook.broker.metrics.ReplicaManagerMetrics;
import io.brook.broker.replica.DiskWork;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.PartitionLog;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteTxnMarkersTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

  @TempDir Path root;
  BrokerFixture broker;
  ProduceHandler produce;
  List<String> delegated = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic("orders", 2);
    produce = new ProduceHandler(broker.replicaManager);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private WriteTxnMarkersHandler handler(CoordinatorMarkerWriter... writers) {
    return new WriteTxnMarkersHandler(broker.replicaManager, List.of(writers), DiskWork.inline());
  }

  private void produceTransactional(long producerId, int sequence) throws Exception {
    MemoryRecords records =
        MemoryRecords.withTransactionalRecords(
            Compression.NONE,
            producerId,
            (short) 0,
            sequence,
            new SimpleRecord(System.currentTimeMillis(), "v".getBytes(StandardCharsets.UTF_8)));
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000).setTransactionalId("t");
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName("orders");
    data.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
    request.topicData().add(data);
    ProduceResponseData response = (ProduceResponseData) BrokerFixture.call(produce, request);
    assertThat(response.responses().iterator().next().partitionResponses().get(0).errorCode())
        .isZero();
  }

  private static WriteTxnMarkersRequestData markers(
      long producerId, boolean commit, int coordinatorEpoch, String topic, int... partitions) {
    WritableTxnMarkerTopic t = new WritableTxnMarkerTopic().setName(topic);
    for (int p : partitions) {
      t.partitionIndexes().add(p);
    }
    WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
    request
        .markers()
        .add(
            new WritableTxnMarker()
                .setProducerId(producerId)
                .setProducerEpoch((short) 0)
                .setTransactionResult(commit)
                .setCoordinatorEpoch(coordinatorEpoch)
                .setTopics(new ArrayList<>(List.of(t))));
    return request;
  }

  private static short error(WriteTxnMarkersResponseData response, int partition) {
    return response.markers().get(0).topics().get(0).partitions().get(partition).errorCode();
  }

  private PartitionLog log() {
    return broker.logManager.getLog(ORDERS_0).orElseThrow();
  }

  @Test
  void commitMarkerIsAppendedAndAnsweredOnceCommitted() throws Exception {
    // Given
    produceTransactional(42, 0);
    assertThat(log().lastStableOffset()).isZero();

    // When
    WriteTxnMarkersResponseData response =
        (WriteTxnMarkersResponseData)
            BrokerFixture.call(handler(), markers(42, true, 3, "orders", 0));

    // Then
    assertThat(response.markers().get(0).producerId()).isEqualTo(42);
    assertThat(error(response, 0)).isEqualTo(Errors.NONE.code());
    assertThat(log().logEndOffset()).isEqualTo(2);
    assertThat(log().highWatermark()).isEqualTo(2);
    assertThat(log().lastStableOffset()).isEqualTo(2);
    assertThat(log().producerState().lastEntry(42).orElseThrow().coordinatorEpoch()).isEqualTo(3);
  }

  @Test
  void anOpenTransactionShowsAsLastStableOffsetLag() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName lag = new ObjectName("kafka.server:type=ReplicaManager,name=MaxLastStableOffsetLag");
    try (BrokerMetrics metrics = new BrokerMetrics(Time.SYSTEM)) {
      ReplicaManagerMetrics.register(metrics, broker.replicaManager, null, null);
      // Given
      produceTransactional(42, 0);
      produceTransactional(42, 1);
      assertThat(server.getAttribute(lag, "Value")).isEqualTo(2L);

      // When
      BrokerFixture.call(handler(), markers(42, true, 0, "orders", 0));

      // Then
      assertThat(server.getAttribute(lag, "Value")).isEqualTo(0L);
    }
  }

  @Test
  void staleCoordinatorEpochIsFencedPerPartition() throws Exception {
    // Given
    produceTransactional(42, 0);
    BrokerFixture.call(handler(), markers(42, false, 3, "orders", 0));

    // When
    WriteTxnMarkersResponseData response =
        (WriteTxnMarkersResponseData)
            BrokerFixture.call(handler(), markers(42, true, 2, "orders", 0, 1, 7));

    // Then
    assertThat(error(response, 0)).isEqualTo(Errors.TRANSACTION_COORDINATOR_FENCED.code());
    assertThat(error(response, 1)).as("no state on partition 1").isEqualTo(Errors.NONE.code());
    assertThat(error(response, 2)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }

  @Test
  void unknownTopicIsReported() throws Exception {
    WriteTxnMarkersResponseData response =
        (WriteTxnMarkersResponseData)
            BrokerFixture.call(handler(), markers(42, true, 0, "nope", 0));

    assertThat(error(response, 0)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }

  @Test
  void coordinatorTopicMarkersGoToTheirWriterAndCoordinatorErrorsBecomeNotLeader()
      throws Exception {
    // Given
    CoordinatorMarkerWriter writer =
        new CoordinatorMarkerWriter() {
          @Override
          public String topic() {
            return "__consumer_offsets";
          }

          @Override
          public CompletableFuture<Void> writeMarker(
              TopicPartition partition,
              long producerId,
              short producerEpoch,
              int coordinatorEpoch,
              boolean commit) {
            delegated.add(
                partition
                    + ":"
                    + producerId
                    + ":"
                    + coordinatorEpoch
                    + ":"
                    + (commit ? "COMMIT" : "ABORT"));
            return partition.partition() == 0
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new NotCoordinatorException("moved"));
          }
        };

    // When
    WriteTxnMarkersResponseData response =
        (WriteTxnMarkersResponseData)
            BrokerFixture.call(handler(writer), markers(9, true, 4, "__consumer_offsets", 0, 1));

    // Then
    assertThat(delegated)
        .containsExactly("__consumer_offsets-0:9:4:COMMIT", "__consumer_offsets-1:9:4:COMMIT");
    assertThat(error(response, 0)).isEqualTo(Errors.NONE.code());
    assertThat(error(response, 1)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
  }
}
