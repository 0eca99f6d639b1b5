package io.brook.broker.api;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * DeleteRecords: moves a partition's log start offset forward (offset -1 means the high watermark);
 * records below it become unreadable and their segments are reclaimed by retention. With
 * replication the answer will wait for followers to move their start too; on one replica it is
 * immediate.
 */
public final class DeleteRecordsHandler extends KafkaApi {
  /** Kafka's "delete everything up to the high watermark" offset. */
  private static final long HIGH_WATERMARK = -1L;

  private final ReplicaManager replicaManager;

  public DeleteRecordsHandler(ReplicaManager replicaManager) {
    super(ApiKeys.DELETE_RECORDS);
    this.replicaManager = replicaManager;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DeleteRecordsRequestData request = (DeleteRecordsRequestData) message;
    DeleteRecordsResponseData response = new DeleteRecordsResponseData();
    for (DeleteRecordsRequestData.DeleteRecordsTopic topic : request.topics()) {
      DeleteRecordsTopicResult result = new DeleteRecordsTopicResult().setName(topic.name());
      response.topics().add(result);
      for (DeleteRecordsRequestData.DeleteRecordsPartition p : topic.partitions()) {
        DeleteRecordsPartitionResult out =
            new DeleteRecordsPartitionResult()
                .setPartitionIndex(p.partitionIndex())
                .setLowWatermark(-1L);
        result.partitions().add(out);
        try {
          Partition partition =
              replicaManager.partitionOrThrow(new TopicPartition(topic.name(), p.partitionIndex()));
          partition.ensureLeader();
          long target = p.offset() == HIGH_WATERMARK ? partition.log().highWatermark() : p.offset();
          if (target < 0) {
            throw new org.apache.kafka.common.errors.OffsetOutOfRangeException(
                "invalid offset " + p.offset());
          }
          partition.log().maybeIncrementLogStartOffset(target);
          out.setLowWatermark(partition.log().logStartOffset());
        } catch (RuntimeException e) {
          out.setErrorCode(ApiFailure.of(e).code());
        }
      }
    }
    return CompletableFuture.completedFuture(response);
  }
}
