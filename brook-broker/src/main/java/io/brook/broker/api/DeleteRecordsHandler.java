package io.brook.broker.api;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteRecords, as Kafka: on each partition's leader, moves the log start offset forward (offset
 * -1 means the high watermark; above it is OFFSET_OUT_OF_RANGE, a compact-only topic
 * POLICY_VIOLATION). Records below it are unreadable at once. The answer waits until every live
 * replica has moved its start too (the partition's low watermark, which followers report in their
 * fetches), at most the request's timeout, after which the partitions still behind answer
 * REQUEST_TIMED_OUT; each answered partition reports its low watermark.
 */
public final class DeleteRecordsHandler extends KafkaApi {
  private final ReplicaManager replicaManager;

  public DeleteRecordsHandler(ReplicaManager replicaManager) {
    super(ApiKeys.DELETE_RECORDS);
    this.replicaManager = replicaManager;
  }

  /** A partition whose start moved on the leader, and the offset its replicas must reach. */
  private record Deleted(Partition partition, long start, DeleteRecordsPartitionResult out) {
    boolean replicated() {
      return partition.lowWatermark() >= start;
    }
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DeleteRecordsRequestData request = (DeleteRecordsRequestData) message;
    DeleteRecordsResponseData response = new DeleteRecordsResponseData();
    List<Deleted> deleted = new ArrayList<>();
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
          deleted.add(new Deleted(partition, partition.deleteRecordsBefore(p.offset()), out));
        } catch (RuntimeException e) {
          out.setErrorCode(ApiFailure.of(e).code());
        }
      }
    }
    if (deleted.stream().allMatch(Deleted::replicated)) {
      answer(deleted, false);
      return CompletableFuture.completedFuture(response);
    }
    CompletableFuture<ApiMessage> done = new CompletableFuture<>();
    replicaManager
        .delayedOperations()
        .submit(
            new DelayedOperation(
                deleted.stream().map(d -> d.partition().topicPartition()).toList()) {
              @Override
              protected boolean isSatisfied() {
                return deleted.stream().allMatch(Deleted::replicated);
              }

              @Override
              protected void onComplete(boolean timedOut) {
                answer(deleted, timedOut);
                done.complete(response);
              }
            },
            Math.max(0, request.timeoutMs()));
    return done;
  }

  private static void answer(List<Deleted> deleted, boolean timedOut) {
    for (Deleted d : deleted) {
      long low = d.partition().lowWatermark();
      if (low >= d.start()) {
        d.out().setLowWatermark(low);
      } else if (timedOut) {
        d.out().setErrorCode(Errors.REQUEST_TIMED_OUT.code());
      }
    }
  }
}
