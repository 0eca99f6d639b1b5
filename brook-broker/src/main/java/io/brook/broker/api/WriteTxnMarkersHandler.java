package io.brook.broker.api;

import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;

/**
 * WriteTxnMarkers (KIP-98), sent by a transaction coordinator: writes a COMMIT or ABORT control
 * batch to every partition of each marker, on this broker as leader, and answers once every marker
 * is committed (below the high watermark), as an acks=all produce would be.
 *
 * <p>Markers for a coordinator's own topic ({@code __consumer_offsets}) go to that coordinator
 * ({@link CoordinatorMarkerWriter}), which appends them itself so its state sees them in log order.
 */
public final class WriteTxnMarkersHandler extends KafkaApi {
  /** How long a marker waits for its replicas; Kafka uses {@code request.timeout.ms}. */
  public static final long DEFAULT_TIMEOUT_MS = 30_000;

  private final ReplicaManager replicaManager;
  private final DiskWork disk;
  private final Map<String, CoordinatorMarkerWriter> writers = new HashMap<>();
  private final long timeoutMs;
  private final Time time;

  public WriteTxnMarkersHandler(
      ReplicaManager replicaManager, List<CoordinatorMarkerWriter> writers, DiskWork disk) {
    this(replicaManager, writers, disk, DEFAULT_TIMEOUT_MS, Time.SYSTEM);
  }

  /**
   * @param disk where markers are appended: an ABORT marker writes the aborted-transaction index,
   *     and any marker may roll, so never on the event loop
   */
  public WriteTxnMarkersHandler(
      ReplicaManager replicaManager,
      List<CoordinatorMarkerWriter> writers,
      DiskWork disk,
      long timeoutMs,
      Time time) {
    super(ApiKeys.WRITE_TXN_MARKERS);
    this.replicaManager = replicaManager;
    this.disk = disk;
    for (CoordinatorMarkerWriter writer : writers) {
      this.writers.put(writer.topic(), writer);
    }
    this.timeoutMs = timeoutMs;
    this.time = time;
  }

  /** One marker appended to one partition, waiting for the high watermark to pass it. */
  private record Pending(
      WritableTxnMarkerPartitionResult result,
      Partition partition,
      long requiredOffset,
      int leaderEpoch)
      implements DelayedAcksAll.Appended {}

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    WriteTxnMarkersRequestData request = (WriteTxnMarkersRequestData) message;
    WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
    List<CompletableFuture<Optional<Pending>>> appends = new ArrayList<>();
    List<CompletableFuture<?>> delegated = new ArrayList<>();
    for (WritableTxnMarker marker : request.markers()) {
      WritableTxnMarkerResult markerResult =
          new WritableTxnMarkerResult().setProducerId(marker.producerId());
      response.markers().add(markerResult);
      for (WritableTxnMarkerTopic topic : marker.topics()) {
        WritableTxnMarkerTopicResult topicResult =
            new WritableTxnMarkerTopicResult().setName(topic.name());
        markerResult.topics().add(topicResult);
        CoordinatorMarkerWriter writer = writers.get(topic.name());
        for (int index : topic.partitionIndexes()) {
          WritableTxnMarkerPartitionResult result =
              new WritableTxnMarkerPartitionResult().setPartitionIndex(index);
          topicResult.partitions().add(result);
          TopicPartition tp = new TopicPartition(topic.name(), index);
          if (writer != null) {
            delegated.add(delegate(writer, tp, marker, result));
          } else {
            appends.add(append(tp, marker, result));
          }
        }
      }
    }
    if (!appends.isEmpty()) {
      delegated.add(
          CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new))
              .thenCompose(ignored -> replicated(appends)));
    }
    return CompletableFuture.allOf(delegated.toArray(CompletableFuture[]::new))
        .thenApply(ignored -> response);
  }

  /** Completes once every appended marker is replicated (or its wait failed or timed out). */
  private CompletableFuture<Void> replicated(List<CompletableFuture<Optional<Pending>>> appends) {
    List<Pending> waiting = new ArrayList<>();
    appends.forEach(appended -> appended.join().ifPresent(waiting::add));
    if (waiting.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> replicated = new CompletableFuture<>();
    replicaManager
        .delayedOperations()
        .submit(
            new DelayedAcksAll<>(
                waiting,
                (p, error) -> p.result().setErrorCode(error.code()),
                () -> replicated.complete(null)),
            timeoutMs);
    return replicated;
  }

  private CompletableFuture<Void> delegate(
      CoordinatorMarkerWriter writer,
      TopicPartition tp,
      WritableTxnMarker marker,
      WritableTxnMarkerPartitionResult out) {
    CompletableFuture<Void> written;
    try {
      written =
          writer.writeMarker(
              tp,
              marker.producerId(),
              marker.producerEpoch(),
              marker.coordinatorEpoch(),
              marker.transactionResult());
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    return written.handle(
        (ignored, failure) -> {
          out.setErrorCode(failure == null ? Errors.NONE.code() : writerError(failure).code());
          return null;
        });
  }

  /**
   * A coordinator that does not lead or has not loaded the partition answers with coordinator
   * errors, which a transaction coordinator does not expect from a partition; as Kafka, they become
   * NOT_LEADER_OR_FOLLOWER, which it retries after refreshing metadata.
   */
  static Errors writerError(Throwable failure) {
    Errors error = ApiFailure.of(failure).error();
    return switch (error) {
      case NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE ->
          Errors.NOT_LEADER_OR_FOLLOWER;
      default -> error;
    };
  }

  /** Completes with what the marker waits for, or empty when it failed (recorded in out). */
  private CompletableFuture<Optional<Pending>> append(
      TopicPartition tp, WritableTxnMarker marker, WritableTxnMarkerPartitionResult out) {
    Partition partition;
    try {
      partition = replicaManager.partitionOrThrow(tp);
    } catch (RuntimeException e) {
      out.setErrorCode(ApiFailure.of(e).code());
      return CompletableFuture.completedFuture(Optional.empty());
    }
    int leaderEpoch = partition.state().leaderEpoch();
    return partition
        .appendAsCoordinator(controlBatch(marker), marker.transactionVersion(), disk)
        .handle(
            (info, failure) -> {
              if (failure != null) {
                out.setErrorCode(ApiFailure.of(failure).code());
                return Optional.empty();
              }
              return Optional.of(new Pending(out, partition, info.lastOffset() + 1, leaderEpoch));
            });
  }

  private MemoryRecords controlBatch(WritableTxnMarker marker) {
    ControlRecordType type =
        marker.transactionResult() ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
    return MemoryRecords.withEndTransactionMarker(
        0L,
        time.milliseconds(),
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        marker.producerId(),
        marker.producerEpoch(),
        new EndTransactionMarker(type, marker.coordinatorEpoch()));
  }
}
