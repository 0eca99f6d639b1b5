package io.brook.broker.api;

import io.brook.broker.InternalTopics;
import io.brook.broker.api.txn.ProduceVerification;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.protocol.RequestContext;
import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.producer.VerificationGuard;
import io.brook.storage.record.RecordValidationException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Produce: appends each partition's batch on its leader. acks=0 gets no response, acks=1 is
 * answered once the leader appended, acks=all once the high watermark passes every appended batch
 * (or the request's timeout, with REQUEST_TIMED_OUT). Internal topics are refused with
 * INVALID_TOPIC_EXCEPTION unless the client id is Kafka's admin client id ({@link
 * InternalTopics#clientMayAppend}). Each topic needs WRITE (TOPIC_AUTHORIZATION_FAILED), and a
 * transactional produce WRITE on its transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED for
 * every partition), as in Kafka.
 *
 * <p>A transactional batch that would open its producer's transaction on a partition waits for the
 * transaction coordinator to confirm the partition is in the transaction ({@link
 * ProduceVerification}); nothing waits on the event loop meanwhile. Kafka reads one request of a
 * connection at a time, Brook several: so the producer's later batches for that partition, which
 * arrive while the first waits, queue behind it and are appended in the order they came (an
 * idempotent producer's sequence numbers would be out of order otherwise).
 *
 * <p>An append that only writes to the page cache runs here, on the event loop; one that would roll
 * a segment or fsync runs on {@link DiskWork} (see {@link Partition#appendAsLeader(MemoryRecords,
 * short, DiskWork)}) and the response waits for it.
 */
public final class ProduceHandler extends KafkaApi {
  private final ReplicaManager replicaManager;
  private final DiskWork disk;
  private final Optional<TxnPartitionVerifier> verifier;
  private final RequestAuthorizer authorizer;

  /**
   * Per producer and partition, the last transactional append queued behind a verification; an
   * entry lives only while one waits.
   */
  private final ConcurrentHashMap<QueueKey, CompletableFuture<Void>> queued =
      new ConcurrentHashMap<>();

  private record QueueKey(TopicPartition tp, long producerId) {}

  /**
   * Appends that wait for the disk run on the caller, and transactions are not verified: for tests
   * without an event loop.
   */
  public ProduceHandler(ReplicaManager replicaManager) {
    this(replicaManager, DiskWork.inline(), Optional.empty());
  }

  public ProduceHandler(
      ReplicaManager replicaManager, DiskWork disk, Optional<TxnPartitionVerifier> verifier) {
    this(replicaManager, disk, verifier, RequestAuthorizer.ALLOW_ALL);
  }

  /**
   * @param verifier asks transaction coordinators about partitions (KIP-890); empty when {@code
   *     transaction.partition.verification.enable} is false
   * @param authorizer checks WRITE on each topic and on the transactional id
   */
  public ProduceHandler(
      ReplicaManager replicaManager,
      DiskWork disk,
      Optional<TxnPartitionVerifier> verifier,
      RequestAuthorizer authorizer) {
    super(ApiKeys.PRODUCE);
    this.replicaManager = replicaManager;
    this.disk = disk;
    this.verifier = verifier;
    this.authorizer = authorizer;
  }

  /** One partition's outcome, and the offset the high watermark must reach for acks=all. */
  private record Pending(
      PartitionProduceResponse response, Partition partition, long requiredOffset, int leaderEpoch)
      implements DelayedAcksAll.Appended {}

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ProduceRequestData request = (ProduceRequestData) message;
    short acks = request.acks();
    ProduceResponseData response = new ProduceResponseData();
    List<Pending> waiting = new ArrayList<>();
    List<CompletableFuture<Optional<Pending>>> offLoop = null;
    ProduceVerification verification =
        ProduceVerification.of(verifier, request.transactionalId(), context.apiVersion());
    boolean txnDenied =
        request.transactionalId() != null
            && !authorizer.authorize(
                context,
                AclOperation.WRITE,
                ResourceType.TRANSACTIONAL_ID,
                request.transactionalId());
    for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
      TopicProduceResponse topicResponse =
          new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
      response.responses().add(topicResponse);
      TopicLookup.Lookup lookup =
          txnDenied
              ? new TopicLookup.Lookup(null, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
              : TopicLookup.findAuthorized(
                  replicaManager.image(),
                  topic.name(),
                  topic.topicId(),
                  authorizer,
                  context,
                  AclOperation.WRITE);
      for (ProduceRequestData.PartitionProduceData data : topic.partitionData()) {
        PartitionProduceResponse partitionResponse =
            new PartitionProduceResponse()
                .setIndex(data.index())
                .setBaseOffset(-1L)
                .setLogAppendTimeMs(-1L)
                .setLogStartOffset(-1L);
        topicResponse.partitionResponses().add(partitionResponse);
        if (acks != 0 && acks != 1 && acks != -1) {
          fail(partitionResponse, ApiFailure.of(Errors.INVALID_REQUIRED_ACKS));
        } else if (!lookup.found()) {
          fail(partitionResponse, ApiFailure.of(lookup.error()));
        } else if (!InternalTopics.clientMayAppend(lookup.topic().name(), context.clientId())) {
          fail(partitionResponse, internalTopicRefusal(lookup.topic().name(), data));
        } else {
          TopicPartition tp = new TopicPartition(lookup.topic().name(), data.index());
          CompletableFuture<Optional<Pending>> appended =
              append(tp, data, acks, partitionResponse, verification);
          if (appended.isDone()) {
            appended.join().ifPresent(waiting::add);
          } else {
            offLoop = offLoop == null ? new ArrayList<>() : offLoop;
            offLoop.add(appended);
          }
        }
      }
    }
    verification.send();
    if (offLoop == null) {
      return respond(context, request, response, waiting);
    }
    List<CompletableFuture<Optional<Pending>>> handedOff = offLoop;
    return CompletableFuture.allOf(handedOff.toArray(CompletableFuture[]::new))
        .thenCompose(
            ignored -> {
              handedOff.forEach(appended -> appended.join().ifPresent(waiting::add));
              return respond(context, request, response, waiting);
            });
  }

  /**
   * Answers once every append is done: at once, or for acks=all once the replicas have them. The
   * records are in the log by then, so an acks=all wait gives the request's memory back first (as
   * Kafka releases a produce's buffer after the append): waiting produces must not hold the budget
   * that the followers' fetches need to complete them.
   */
  private CompletionStage<ApiMessage> respond(
      RequestContext context,
      ProduceRequestData request,
      ProduceResponseData response,
      List<Pending> waiting) {
    short acks = request.acks();
    if (acks == 0) {
      // No response is expected; like Kafka, tell the producer about a failure by closing the
      // connection, which the network layer does for a failed request that has no response.
      Errors firstError = firstError(response);
      return firstError == Errors.NONE
          ? CompletableFuture.completedFuture(null)
          : CompletableFuture.failedFuture(firstError.exception());
    }
    if (acks != -1 || waiting.isEmpty()) {
      return CompletableFuture.completedFuture(response);
    }
    context.releaseRequestBytes();
    CompletableFuture<ApiMessage> done = new CompletableFuture<>();
    replicaManager
        .delayedOperations()
        .submit(
            new DelayedAcksAll<>(
                waiting,
                (p, error) -> {
                  if (error != Errors.NONE) {
                    fail(p.response(), ApiFailure.of(error));
                  }
                },
                () -> done.complete(response)),
            Math.max(0, request.timeoutMs()));
    return done;
  }

  /** Completes with what acks=all waits for, or empty when the append failed (recorded in out). */
  private CompletableFuture<Optional<Pending>> append(
      TopicPartition tp,
      ProduceRequestData.PartitionProduceData data,
      short acks,
      PartitionProduceResponse out,
      ProduceVerification verification) {
    try {
      Partition partition = replicaManager.partitionOrThrow(tp);
      MemoryRecords records = singleV2Batch(data);
      VerificationGuard guard = verification.guardFor(partition, records);
      boolean mustWait = ProduceVerification.mustWait(guard);
      RecordBatch first = records.firstBatch();
      QueueKey key =
          first != null && first.isTransactional() && guard != VerificationGuard.NOT_CHECKED
              ? new QueueKey(tp, first.producerId())
              : null;
      if (!mustWait && (key == null || !queued.containsKey(key))) {
        return append(partition, records, acks, out, guard);
      }
      MemoryRecords copy = Partition.ownCopy(records);
      CompletableFuture<Optional<ApiFailure>> verified =
          mustWait
              ? verification.await(tp, copy)
              : CompletableFuture.completedFuture(Optional.empty());
      CompletableFuture<Void> turn = new CompletableFuture<>();
      CompletableFuture<Void> before = queued.put(key, turn);
      CompletableFuture<Optional<ApiFailure>> ready =
          before == null ? verified : verified.thenCombine(before, (refused, done) -> refused);
      return ready
          .thenCompose(
              refused -> {
                if (refused.isPresent()) {
                  fail(out, refused.get());
                  return CompletableFuture.<Optional<Pending>>completedFuture(Optional.empty());
                }
                return append(partition, copy, acks, out, guard);
              })
          .whenComplete(
              (appended, error) -> {
                turn.complete(null);
                queued.remove(key, turn);
              });
    } catch (RuntimeException e) {
      replicaManager.metrics().topicStats().produceFailed(tp.topic());
      fail(out, ApiFailure.of(e));
      nameBadRecord(out, e);
      return CompletableFuture.completedFuture(Optional.empty());
    }
  }

  private CompletableFuture<Optional<Pending>> append(
      Partition partition,
      MemoryRecords records,
      short acks,
      PartitionProduceResponse out,
      VerificationGuard guard) {
    try {
      int leaderEpoch = partition.state().leaderEpoch();
      CompletableFuture<LogAppendInfo> appended =
          partition.appendAsLeader(records, acks, disk, guard);
      if (appended.isDone() && !appended.isCompletedExceptionally()) {
        return CompletableFuture.completedFuture(
            Optional.of(appended(partition, leaderEpoch, appended.join(), out)));
      }
      return appended.handle(
          (info, failure) -> {
            if (failure != null) {
              replicaManager
                  .metrics()
                  .topicStats()
                  .produceFailed(partition.topicPartition().topic());
              fail(out, ApiFailure.of(failure));
              nameBadRecord(out, failure);
              return Optional.empty();
            }
            return Optional.of(appended(partition, leaderEpoch, info, out));
          });
    } catch (RuntimeException e) {
      replicaManager.metrics().topicStats().produceFailed(partition.topicPartition().topic());
      fail(out, ApiFailure.of(e));
      nameBadRecord(out, e);
      return CompletableFuture.completedFuture(Optional.empty());
    }
  }

  /** Kafka's {@code record_errors}: the index of the record that got its batch refused. */
  private static void nameBadRecord(PartitionProduceResponse out, Throwable failure) {
    Throwable cause =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof RecordValidationException bad) {
      out.recordErrors()
          .add(
              new ProduceResponseData.BatchIndexAndErrorMessage()
                  .setBatchIndex(bad.recordIndex())
                  .setBatchIndexErrorMessage(bad.getMessage()));
    }
  }

  /**
   * Why a client's append to an internal topic is refused. As in Kafka, the request's records are
   * checked first (a malformed batch is INVALID_RECORD whatever its topic), then the topic:
   * INVALID_TOPIC_EXCEPTION. The coordinators write their topics through their own path, never
   * through Produce.
   */
  private static ApiFailure internalTopicRefusal(
      String topic, ProduceRequestData.PartitionProduceData data) {
    try {
      singleV2Batch(data);
    } catch (RuntimeException e) {
      return ApiFailure.of(e);
    }
    return new ApiFailure(
        Errors.INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic " + topic);
  }

  private Pending appended(
      Partition partition, int leaderEpoch, LogAppendInfo info, PartitionProduceResponse out) {
    replicaManager
        .metrics()
        .topicStats()
        .produced(partition.topicPartition().topic(), info.validBytes(), info.recordCount());
    out.setBaseOffset(info.firstOffset())
        .setLogAppendTimeMs(info.logAppendTimeMs())
        .setLogStartOffset(info.logStartOffset());
    return new Pending(out, partition, info.lastOffset() + 1, leaderEpoch);
  }

  /**
   * Produce v3+ carries exactly one record batch per partition, in message format v2; anything else
   * is INVALID_RECORD, as in Kafka.
   */
  private static MemoryRecords singleV2Batch(ProduceRequestData.PartitionProduceData data) {
    if (!(data.records() instanceof MemoryRecords records)) {
      throw new org.apache.kafka.common.InvalidRecordException(
          "produce requests must carry record batches");
    }
    Iterator<? extends RecordBatch> batches = records.batches().iterator();
    if (!batches.hasNext()) {
      throw new org.apache.kafka.common.InvalidRecordException(
          "produce requests must have at least one record batch per partition");
    }
    RecordBatch first = batches.next();
    if (first.magic() != RecordBatch.MAGIC_VALUE_V2) {
      throw new org.apache.kafka.common.InvalidRecordException(
          "produce requests are only allowed to contain record batches with magic version 2");
    }
    if (batches.hasNext()) {
      throw new org.apache.kafka.common.InvalidRecordException(
          "produce requests are only allowed to contain exactly one record batch per partition");
    }
    return records;
  }

  private static Errors firstError(ProduceResponseData response) {
    for (TopicProduceResponse topic : response.responses()) {
      for (PartitionProduceResponse partition : topic.partitionResponses()) {
        if (partition.errorCode() != Errors.NONE.code()) {
          return Errors.forCode(partition.errorCode());
        }
      }
    }
    return Errors.NONE;
  }

  private static void fail(PartitionProduceResponse out, ApiFailure failure) {
    out.setErrorCode(failure.code()).setErrorMessage(failure.message());
  }
}
