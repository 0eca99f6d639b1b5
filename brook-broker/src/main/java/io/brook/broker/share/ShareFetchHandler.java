package io.brook.broker.share;

import io.brook.broker.api.KafkaApi;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.delayed.DelayedOperation;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareFetch (KIP-932): a share group member's fetch from the partitions this broker leads. In
 * order: the share session (epoch 0 opens one, each next epoch continues it with partitions added
 * and forgotten, -1 closes it and releases what the member holds), the piggy-backed
 * acknowledgements, then acquisition: for each session partition, the records available to the
 * group are locked for this member and sent with their acquired offset ranges, up to {@code
 * MaxRecords} and {@code MaxBytes} over the request. A fetch that acquires nothing waits up to
 * {@code MaxWaitMs} in the broker's purgatory, woken by new records (the high watermark) or by
 * records that came back (released, rejected locks expired).
 */
public final class ShareFetchHandler extends KafkaApi {
  private final ShareDelivery delivery;

  public ShareFetchHandler(SharePartitionManager manager, RequestAuthorizer authorizer) {
    super(ApiKeys.SHARE_FETCH);
    this.delivery = new ShareDelivery(manager, authorizer);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ShareFetchRequestData request = (ShareFetchRequestData) message;
    SharePartitionManager manager = delivery.manager();
    int lockMs = manager.recordLockDurationMs(request.groupId());
    if (isEmpty(request.groupId()) || isEmpty(request.memberId())) {
      return done(error(Errors.INVALID_REQUEST, "GroupId and MemberId must be set.", lockMs));
    }
    int epoch = request.shareSessionEpoch();
    Map<ShareSessions.SessionPartition, List<ShareDelivery.Ack>> acks = new LinkedHashMap<>();
    List<ShareSessions.SessionPartition> added = new ArrayList<>();
    for (ShareFetchRequestData.FetchTopic topic : request.topics()) {
      for (ShareFetchRequestData.FetchPartition p : topic.partitions()) {
        ShareSessions.SessionPartition sp =
            new ShareSessions.SessionPartition(topic.topicId(), p.partitionIndex());
        added.add(sp);
        for (ShareFetchRequestData.AcknowledgementBatch b : p.acknowledgementBatches()) {
          acks.computeIfAbsent(sp, k -> new ArrayList<>())
              .add(new ShareDelivery.Ack(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()));
        }
      }
    }
    List<ShareSessions.SessionPartition> forgotten = new ArrayList<>();
    for (ShareFetchRequestData.ForgottenTopic topic : request.forgottenTopicsData()) {
      for (int partition : topic.partitions()) {
        forgotten.add(new ShareSessions.SessionPartition(topic.topicId(), partition));
      }
    }
    if (epoch == ShareSessions.INITIAL_EPOCH && !acks.isEmpty()) {
      return done(
          error(
              Errors.INVALID_REQUEST,
              "Acknowledgements are not allowed in a new session.",
              lockMs));
    }
    ShareSessions.Key key = new ShareSessions.Key(request.groupId(), request.memberId());
    ShareSessions sessions = manager.sessions();
    List<ShareSessions.SessionPartition> partitions;
    try {
      if (epoch == ShareSessions.INITIAL_EPOCH) {
        List<ShareSessions.SessionPartition> replaced = new ArrayList<>();
        partitions = sessions.open(key, added, context.connectionId(), manager.nowMs(), replaced);
        release(key, replaced);
      } else if (epoch == ShareSessions.FINAL_EPOCH) {
        if (!sessions.contains(key)) {
          return done(error(Errors.SHARE_SESSION_NOT_FOUND, null, lockMs));
        }
        partitions = List.of();
      } else {
        partitions =
            sessions.next(key, epoch, added, forgotten, context.connectionId(), manager.nowMs());
      }
    } catch (ApiException e) {
      return done(error(Errors.forException(e), e.getMessage(), lockMs));
    }

    ShareDelivery.Resolver resolver = delivery.new Resolver(context);
    Answer answer = new Answer(lockMs);
    // The acknowledgements are answered (with the fetch) once they are durable.
    List<CompletableFuture<Void>> durable = new ArrayList<>();
    for (Map.Entry<ShareSessions.SessionPartition, List<ShareDelivery.Ack>> e : acks.entrySet()) {
      ShareDelivery.Resolved resolved =
          resolver.resolve(e.getKey().topicId(), e.getKey().partition());
      PartitionData data = answer.partition(e.getKey());
      durable.add(
          delivery
              .acknowledge(key.groupId(), key.memberId(), resolved, e.getValue())
              .thenAccept(ackError -> data.setAcknowledgeErrorCode(ackError.code())));
    }
    CompletableFuture<Void> acked =
        CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new));
    if (epoch == ShareSessions.FINAL_EPOCH) {
      try {
        release(key, sessions.close(key));
      } catch (ApiException e) {
        // Closed meanwhile by its connection or the idle sweep, which released the records.
      }
      return acked.thenApply(v -> answer.build());
    }
    boolean full = epoch == ShareSessions.INITIAL_EPOCH;
    boolean renewOnly = request.isRenewAck();
    List<Target> targets = new ArrayList<>(partitions.size());
    boolean errors = false;
    for (ShareSessions.SessionPartition sp : partitions) {
      ShareDelivery.Resolved resolved = resolver.resolve(sp.topicId(), sp.partition());
      if (!resolved.ok()) {
        PartitionData data = answer.partition(sp).setErrorCode(resolved.error().code());
        resolver.fillLeader(resolved, data.currentLeader());
        errors = true;
        continue;
      }
      if (full) {
        answer.partition(sp);
      }
      targets.add(new Target(sp, resolved));
    }
    int maxRecords = request.maxRecords() > 0 ? request.maxRecords() : 500;
    int maxBytes = request.maxBytes() > 0 ? request.maxBytes() : Integer.MAX_VALUE;
    if (renewOnly) {
      return acked.thenApply(v -> answer.build());
    }
    int acquired = acquire(key, targets, maxRecords, maxBytes, answer);
    if (acquired > 0 || errors || targets.isEmpty() || request.maxWaitMs() <= 0) {
      return acked.thenApply(v -> answer.build());
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    List<TopicPartition> watched =
        targets.stream().map(t -> t.resolved().topicPartition()).toList();
    manager
        .replicaManager()
        .delayedOperations()
        .submit(
            new DelayedOperation(watched) {
              @Override
              protected boolean isSatisfied() {
                for (Target t : targets) {
                  if (delivery.canAcquire(key.groupId(), t.resolved())) {
                    return true;
                  }
                }
                return false;
              }

              @Override
              protected void onComplete(boolean timedOut) {
                try {
                  acquire(key, targets, maxRecords, maxBytes, answer);
                  result.complete(null);
                } catch (RuntimeException e) {
                  result.completeExceptionally(e);
                }
              }
            },
            request.maxWaitMs());
    return CompletableFuture.allOf(acked, result).thenApply(v -> answer.build());
  }

  /** A session partition this broker leads. */
  private record Target(
      ShareSessions.SessionPartition partition, ShareDelivery.Resolved resolved) {}

  private int acquire(
      ShareSessions.Key key, List<Target> targets, int maxRecords, int maxBytes, Answer answer) {
    int records = 0;
    int bytes = 0;
    for (Target t : targets) {
      if (records >= maxRecords || bytes >= maxBytes) {
        break;
      }
      PartitionData data = answer.partition(t.partition());
      int n =
          delivery.acquire(
              key.groupId(),
              key.memberId(),
              t.resolved(),
              maxRecords - records,
              maxBytes - bytes,
              data);
      records += n;
      bytes += data.records() == null ? 0 : data.records().sizeInBytes();
    }
    return records;
  }

  private void release(ShareSessions.Key key, List<ShareSessions.SessionPartition> partitions) {
    if (!partitions.isEmpty()) {
      SharePartitionManager manager = delivery.manager();
      manager.release(
          key.groupId(),
          key.memberId(),
          SharePartitionManager.topicPartitions(manager.replicaManager(), partitions));
    }
  }

  /** The response being built, partitions in the order first touched. */
  private static final class Answer {
    private final int lockMs;
    private final Map<ShareSessions.SessionPartition, PartitionData> partitions =
        new LinkedHashMap<>();

    Answer(int lockMs) {
      this.lockMs = lockMs;
    }

    PartitionData partition(ShareSessions.SessionPartition sp) {
      return partitions.computeIfAbsent(
          sp,
          k ->
              new PartitionData()
                  .setPartitionIndex(k.partition())
                  .setRecords(org.apache.kafka.common.record.internal.MemoryRecords.EMPTY));
    }

    ShareFetchResponseData build() {
      ShareFetchResponseData response =
          new ShareFetchResponseData().setAcquisitionLockTimeoutMs(lockMs);
      Map<Uuid, ShareFetchResponseData.ShareFetchableTopicResponse> topics = new LinkedHashMap<>();
      partitions.forEach(
          (sp, data) ->
              topics
                  .computeIfAbsent(
                      sp.topicId(),
                      id -> new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(id))
                  .partitions()
                  .add(data));
      topics.values().forEach(t -> response.responses().add(t));
      return response;
    }
  }

  private static ShareFetchResponseData error(Errors error, String message, int lockMs) {
    return new ShareFetchResponseData()
        .setErrorCode(error.code())
        .setErrorMessage(message == null ? error.message() : message)
        .setAcquisitionLockTimeoutMs(lockMs);
  }

  private static CompletionStage<ApiMessage> done(ApiMessage response) {
    return CompletableFuture.completedFuture(response);
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }
}
