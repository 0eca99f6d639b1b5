package io.brook.broker.api;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.protocol.ZeroCopyRecords;
import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.log.LogOffsetMetadata;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.FileSlice;
import io.brook.storage.txn.AbortedTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Fetch: reads each partition from the requested offset up to the high watermark (consumers), the
 * last stable offset (read_committed consumers, which also get the aborted transactions in the
 * range from the transaction index) or the log end (followers) and answers with the
 * still-compressed batches as file regions, sent with zero copy. If less than {@code min_bytes} is
 * available the request waits, without holding a thread, until appends bring enough or {@code
 * max_wait_ms} passes. Fetch sessions are declined (session id 0): every request is a full fetch.
 */
public final class FetchHandler extends KafkaApi {
  /** {@code isolation_level} of a consumer that reads only committed transactions. */
  static final byte READ_COMMITTED = 1;

  private final ReplicaManager replicaManager;
  private final ReadReplicaSelector readReplicas;

  public FetchHandler(ReplicaManager replicaManager) {
    this(replicaManager, ReadReplicaSelector.LEADER);
  }

  /**
   * @param readReplicas which replica consumers read from ({@code replica.selector.class})
   */
  public FetchHandler(ReplicaManager replicaManager, ReadReplicaSelector readReplicas) {
    super(ApiKeys.FETCH);
    this.replicaManager = replicaManager;
    this.readReplicas = readReplicas;
  }

  /** One requested partition, resolved. */
  private record Wanted(
      int topicIndex,
      FetchRequestData.FetchPartition request,
      TopicPartition topicPartition,
      Errors lookupError) {}

  /** Where a partition's fetch starts on disk, for the wait condition. */
  private record Position(
      TopicPartition topicPartition, long fetchOffset, LogOffsetMetadata at, boolean fromLeader) {}

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    FetchRequestData request = (FetchRequestData) message;
    List<Wanted> wanted = new ArrayList<>();
    int topicIndex = 0;
    for (FetchRequestData.FetchTopic topic : request.topics()) {
      TopicLookup.Lookup lookup =
          TopicLookup.find(replicaManager.image(), topic.topic(), topic.topicId());
      for (FetchRequestData.FetchPartition partition : topic.partitions()) {
        TopicPartition tp =
            lookup.found()
                ? new TopicPartition(lookup.topic().name(), partition.partition())
                : null;
        wanted.add(new Wanted(topicIndex, partition, tp, lookup.error()));
      }
      topicIndex++;
    }
    int replicaId = replicaId(request);
    short version = context.header().apiVersion();
    boolean readCommitted = replicaId < 0 && request.isolationLevel() == READ_COMMITTED;
    Read first = read(request, version, wanted, replicaId);
    if (request.maxWaitMs() <= 0
        || first.bytes() >= request.minBytes()
        || first.hasErrors()
        || wanted.isEmpty()) {
      return CompletableFuture.completedFuture(first.response());
    }
    CompletableFuture<ApiMessage> done = new CompletableFuture<>();
    replicaManager
        .delayedOperations()
        .submit(
            new DelayedFetch(first.positions(), request.minBytes(), replicaId >= 0, readCommitted) {
              @Override
              protected void onComplete(boolean timedOut) {
                try {
                  done.complete(read(request, version, wanted, replicaId).response());
                } catch (RuntimeException e) {
                  done.completeExceptionally(e);
                }
              }
            },
            request.maxWaitMs());
    return done;
  }

  /** Replica id of a follower fetch: in the header field up to v14, in ReplicaState from v15. */
  private static int replicaId(FetchRequestData request) {
    if (request.replicaState() != null && request.replicaState().replicaId() >= 0) {
      return request.replicaState().replicaId();
    }
    return request.replicaId();
  }

  private static List<FetchableTopicResponse> freshTopics(FetchRequestData request) {
    List<FetchableTopicResponse> topics = new ArrayList<>();
    for (FetchRequestData.FetchTopic topic : request.topics()) {
      topics.add(new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId()));
    }
    return topics;
  }

  /** The response of one pass over the partitions, with what the wait condition needs. */
  private record Read(
      FetchResponseData response, int bytes, boolean hasErrors, List<Position> positions) {}

  private Read read(FetchRequestData request, short version, List<Wanted> wanted, int replicaId) {
    List<FetchableTopicResponse> topics = freshTopics(request);
    FetchResponseData response = new FetchResponseData().setSessionId(0);
    response.responses().addAll(topics);
    int remaining = request.maxBytes() > 0 ? request.maxBytes() : Integer.MAX_VALUE;
    int bytes = 0;
    boolean errors = false;
    List<Position> positions = new ArrayList<>(wanted.size());
    for (Wanted w : wanted) {
      FetchableTopicResponse topicResponse = topics.get(w.topicIndex());
      PartitionData data =
          new PartitionData()
              .setPartitionIndex(w.request().partition())
              .setHighWatermark(-1)
              .setLastStableOffset(-1)
              .setLogStartOffset(-1)
              .setRecords(MemoryRecords.EMPTY);
      topicResponse.partitions().add(data);
      if (w.topicPartition() == null) {
        data.setErrorCode(w.lookupError().code());
        errors = true;
        continue;
      }
      try {
        Partition partition = replicaManager.partitionOrThrow(w.topicPartition());
        partition.checkLeaderEpoch(epoch(w.request().currentLeaderEpoch()));
        int limit = Math.min(Math.max(0, w.request().partitionMaxBytes()), remaining);
        Optional<Position> position =
            replicaId >= 0
                ? readForFollower(
                    partition, w, replicaId, replicaEpoch(request), limit, bytes == 0, data)
                : readForConsumer(partition, w, request, version, limit, bytes == 0, data);
        if (position.isPresent()) {
          int size = data.records().sizeInBytes();
          remaining -= size;
          bytes += size;
          positions.add(position.get());
        } else {
          errors = true; // a diverging epoch or another read replica: answer without waiting
        }
      } catch (RuntimeException e) {
        ApiFailure failure = ApiFailure.of(e);
        data.setErrorCode(failure.code());
        errors = true;
        fillOffsetsAfterError(w.topicPartition(), data);
      }
    }
    return new Read(response, bytes, errors, positions);
  }

  /**
   * A follower's fetch: checks that its log has not diverged from this leader's (its last fetched
   * epoch must end at or after its fetch offset here), reads up to the log end, and records its
   * progress, which may move the ISR and the high watermark.
   *
   * @return empty when the follower must truncate first (the response names the diverging epoch)
   */
  private Optional<Position> readForFollower(
      Partition partition,
      Wanted w,
      int replicaId,
      long replicaEpoch,
      int limit,
      boolean minOneBatch,
      PartitionData data) {
    partition.ensureLeader();
    PartitionLog log = partition.log();
    long fetchOffset = w.request().fetchOffset();
    int lastFetchedEpoch = w.request().lastFetchedEpoch();
    if (lastFetchedEpoch >= 0) {
      EpochEndOffset end = log.endOffsetForEpoch(lastFetchedEpoch);
      if (end.epoch() != lastFetchedEpoch || end.endOffset() < fetchOffset) {
        data.divergingEpoch().setEpoch(end.epoch()).setEndOffset(end.endOffset());
        data.setHighWatermark(log.highWatermark())
            .setLastStableOffset(log.lastStableOffset())
            .setLogStartOffset(log.logStartOffset());
        return Optional.empty();
      }
    }
    long leaderEnd = log.logEndOffset();
    LogReadResult result = log.read(fetchOffset, limit, leaderEnd, minOneBatch);
    if (!partition.updateFollowerFetchState(replicaId, fetchOffset, leaderEnd, replicaEpoch)) {
      throw new NotLeaderOrFollowerException(
          "broker " + replicaId + " is not a replica of " + partition.topicPartition());
    }
    fill(data, result, log.highWatermark(), log.lastStableOffset());
    return Optional.of(
        new Position(w.topicPartition(), fetchOffset, result.fetchOffsetMetadata(), true));
  }

  /**
   * A consumer's fetch, up to the high watermark. The leader serves it, or points a consumer in
   * another rack to a replica in its own (KIP-392, with {@code replica.selector.class}); a follower
   * serves consumers that send client metadata (v11+), up to the high watermark it knows.
   */
  private Optional<Position> readForConsumer(
      Partition partition,
      Wanted w,
      FetchRequestData request,
      short version,
      int limit,
      boolean minOneBatch,
      PartitionData data) {
    boolean leader = partition.isLeader();
    if (!leader && !(version >= 11 && partition.isFollower())) {
      partition.ensureLeader();
    }
    PartitionLog log = partition.log();
    long fetchOffset = w.request().fetchOffset();
    if (leader && version >= 11) {
      Optional<Integer> preferred =
          readReplicas.select(partition, request.rackId(), fetchOffset, replicaManager.image());
      if (preferred.isPresent()) {
        data.setPreferredReadReplica(preferred.get())
            .setHighWatermark(log.highWatermark())
            .setLastStableOffset(log.lastStableOffset())
            .setLogStartOffset(log.logStartOffset());
        return Optional.empty();
      }
    }
    // Read before the high watermark, so it never ends up above the high watermark reported.
    long lastStable = log.lastStableOffset();
    boolean readCommitted = request.isolationLevel() == READ_COMMITTED;
    LogReadResult result =
        log.read(fetchOffset, limit, readCommitted ? lastStable : log.highWatermark(), minOneBatch);
    fill(data, result, result.highWatermark(), lastStable);
    if (readCommitted) {
      data.setAbortedTransactions(abortedTransactions(log, fetchOffset, lastStable, result));
    }
    return Optional.of(
        new Position(w.topicPartition(), fetchOffset, result.fetchOffsetMetadata(), leader));
  }

  /**
   * The aborted transactions a read_committed consumer must skip in what it was sent, null when it
   * was sent nothing. Bounded by the last stable offset the read stopped at rather than by the
   * exact end of the bytes sent, which would need a look into the file: an extra abort beyond the
   * data is ignored by the consumer.
   */
  private static List<FetchResponseData.AbortedTransaction> abortedTransactions(
      PartitionLog log, long fetchOffset, long lastStable, LogReadResult result) {
    List<FetchResponseData.AbortedTransaction> out = new ArrayList<>();
    if (result.slice().sizeInBytes() == 0) {
      return out;
    }
    for (AbortedTxn txn : log.collectAbortedTransactions(fetchOffset, lastStable)) {
      out.add(
          new FetchResponseData.AbortedTransaction()
              .setProducerId(txn.producerId())
              .setFirstOffset(txn.firstOffset()));
    }
    return out;
  }

  private static void fill(
      PartitionData data, LogReadResult result, long highWatermark, long lastStable) {
    FileSlice slice = result.slice();
    data.setHighWatermark(highWatermark)
        .setLastStableOffset(Math.min(lastStable, highWatermark))
        .setLogStartOffset(result.logStartOffset());
    if (slice.sizeInBytes() > 0) {
      data.setRecords(
          new ZeroCopyRecords(
              new SegmentFileSource(slice.file()), slice.position(), slice.sizeInBytes()));
    }
  }

  private static long replicaEpoch(FetchRequestData request) {
    return request.replicaState() == null ? -1 : request.replicaState().replicaEpoch();
  }

  private void fillOffsetsAfterError(TopicPartition tp, PartitionData data) {
    replicaManager
        .partition(tp)
        .ifPresent(
            p ->
                data.setHighWatermark(p.log().highWatermark())
                    .setLastStableOffset(p.log().lastStableOffset())
                    .setLogStartOffset(p.log().logStartOffset()));
  }

  private static Optional<Integer> epoch(int currentLeaderEpoch) {
    return currentLeaderEpoch < 0 ? Optional.empty() : Optional.of(currentLeaderEpoch);
  }

  /**
   * Waits until the partitions hold {@code minBytes} beyond the fetch positions, estimated from
   * file positions without reading: bytes between the fetch position and the bound in the same
   * segment, or "enough" once the bound is in a later segment. A partition that lost its leader or
   * vanished completes the wait so the client hears about it at once.
   */
  private abstract class DelayedFetch extends DelayedOperation {
    private final List<Position> positions;
    private final int minBytes;
    private final boolean follower;
    private final boolean readCommitted;

    DelayedFetch(List<Position> positions, int minBytes, boolean follower, boolean readCommitted) {
      super(positions.stream().map(Position::topicPartition).distinct().toList());
      this.positions = positions;
      this.minBytes = minBytes;
      this.follower = follower;
      this.readCommitted = readCommitted;
    }

    @Override
    protected boolean isSatisfied() {
      long available = 0;
      for (Position position : positions) {
        Optional<Partition> partition = replicaManager.partition(position.topicPartition());
        if (partition.isEmpty() || partition.get().isLeader() != position.fromLeader()) {
          return true; // the partition left or changed role: the client hears about it at once
        }
        PartitionLog log = partition.get().log();
        // read_committed counts only bytes below the LSO, and wakes when a marker moves it.
        LogOffsetMetadata bound =
            follower
                ? log.logEndOffsetMetadata()
                : readCommitted ? log.lastStableOffsetMetadata() : log.highWatermarkMetadata();
        if (bound.messageOffset() <= position.fetchOffset()) {
          continue;
        }
        LogOffsetMetadata at = position.at();
        if (!at.isResolved()
            || !bound.isResolved()
            || bound.segmentBaseOffset() != at.segmentBaseOffset()) {
          return true;
        }
        available +=
            Math.max(0, bound.relativePositionInSegment() - at.relativePositionInSegment());
        if (available >= minBytes) {
          return true;
        }
      }
      return false;
    }
  }
}
