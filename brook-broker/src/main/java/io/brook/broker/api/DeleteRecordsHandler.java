package io.brook.broker.api;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.remote.RemoteLogManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 *
 * <p>On a tiered partition (KIP-405) the remote log start moves too, before anything is answered:
 * the leader writes it to the partition's remote manifest (off the event loop), so offsets below it
 * are unreadable from remote storage as well, and the low watermark reported is the remote log
 * start when it is below the local ones. The remote segments wholly below it are deleted after.
 */
public final class DeleteRecordsHandler extends KafkaApi {
  private final ReplicaManager replicaManager;

  public DeleteRecordsHandler(ReplicaManager replicaManager) {
    super(ApiKeys.DELETE_RECORDS);
    this.replicaManager = replicaManager;
  }

  /**
   * A partition whose start moved on the leader, the offset its replicas must reach, and for a
   * tiered partition its log start across both tiers once the remote manifest has it.
   */
  private record Deleted(
      Partition partition,
      long start,
      DeleteRecordsPartitionResult out,
      CompletableFuture<Long> remoteStart) {
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
          long start = partition.deleteRecordsBefore(p.offset());
          // -1 resolved to the high watermark, which is then the start.
          long target = p.offset() == -1 ? start : p.offset();
          deleted.add(new Deleted(partition, start, out, moveRemoteStart(partition, target)));
        } catch (RuntimeException e) {
          out.setErrorCode(ApiFailure.of(e).code());
        }
      }
    }
    CompletableFuture<?>[] remote =
        deleted.stream().map(Deleted::remoteStart).toArray(CompletableFuture<?>[]::new);
    return CompletableFuture.allOf(remote)
        .handle((ignored, failure) -> null)
        .thenCompose(
            ignored -> {
              List<Deleted> local = new ArrayList<>();
              for (Deleted d : deleted) {
                if (d.remoteStart().isCompletedExceptionally()) {
                  d.out().setErrorCode(ApiFailure.of(failure(d.remoteStart())).code());
                } else {
                  local.add(d);
                }
              }
              return awaitReplicas(request, response, local);
            });
  }

  /**
   * For a tiered partition, moves its remote log start to {@code target}; completes with -1 for a
   * partition that is not tiered.
   */
  private CompletableFuture<Long> moveRemoteStart(Partition partition, long target) {
    Optional<RemoteLogManager> remote = replicaManager.logManager().remote();
    if (remote.isEmpty()
        || !(partition.log() instanceof PartitionLog log)
        || !log.config().remoteStorageEnable()) {
      return CompletableFuture.completedFuture(-1L);
    }
    int epoch = partition.state().leaderEpoch();
    return remote
        .get()
        .moveLogStart(
            log,
            epoch,
            () -> partition.isLeader() && partition.state().leaderEpoch() == epoch,
            target);
  }

  private static Throwable failure(CompletableFuture<Long> future) {
    try {
      future.join();
      throw new IllegalStateException("not failed");
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }

  private CompletionStage<ApiMessage> awaitReplicas(
      DeleteRecordsRequestData request, DeleteRecordsResponseData response, List<Deleted> deleted) {
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
        long remoteStart = d.remoteStart().join();
        d.out().setLowWatermark(remoteStart >= 0 ? Math.min(low, remoteStart) : low);
      } else if (timedOut) {
        d.out().setErrorCode(Errors.REQUEST_TIMED_OUT.code());
      }
    }
  }
}
