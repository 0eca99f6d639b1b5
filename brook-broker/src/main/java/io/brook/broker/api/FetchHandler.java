package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.fetch.FetchContext;
import io.brook.broker.fetch.FetchKey;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.metrics.BrokerTopicStats;
import io.brook.broker.quota.ReplicationQuota;
import io.brook.broker.replica.FollowerRead;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import io.brook.protocol.ZeroCopyRecords;
import io.brook.storage.log.LogOffsetMetadata;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.segment.FileSlice;
import io.brook.storage.txn.AbortedTxn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
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
 * max_wait_ms} passes.
 *
 * <p>Fetch sessions (KIP-227, {@link FetchSessions}): a full request may open a session, and later
 * incremental requests of it list only partitions that changed; the response to one carries only
 * partitions with news (records, offsets the client has not been told, errors). A follower's fetch
 * that waits for {@code min_bytes} is also answered when the high watermark of one of its
 * partitions moves, so followers (and consumers reading from them, KIP-392) learn it at once; an
 * incremental follower fetch whose session has such news is answered without waiting.
 *
 * <p>Request fields are read as Kafka reads them: a partition listed twice is answered once, with
 * the parameters of its last listing in the place of its first (Kafka keys a request's partitions
 * in an insertion-ordered map, by topic id from v13, by name before); {@code max_bytes} bounds the
 * whole response and {@code partition_max_bytes} each partition, except that the first batch of the
 * first partition with data is sent whole even past both (KIP-74), so a consumer always moves on;
 * {@code min_bytes} counts at most {@code max_bytes}, as a response can hold no more. Brook adds
 * two bounds Kafka does not have: {@code max_wait_ms} at most {@link #MAX_WAIT_MS}, and a negative
 * {@code max_bytes} or {@code partition_max_bytes} reads as 0 (Kafka fails the partition read). An
 * {@code isolation_level} other than 0 or 1 fails the request with INVALID_REQUEST (Kafka fails it
 * too, as UNKNOWN_SERVER_ERROR).
 */
public final class FetchHandler extends KafkaApi {
  /** {@code isolation_level} of a consumer that reads only committed transactions. */
  static final byte READ_COMMITTED = 1;

  /** {@code isolation_level} of a consumer that reads up to the high watermark. */
  static final byte READ_UNCOMMITTED = 0;

  /**
   * The longest a fetch waits, whatever its {@code max_wait_ms}: kafka-clients' default {@code
   * request.timeout.ms}. A client abandons a request after its request timeout, so a longer wait
   * only keeps a parked request, its timer and its connection's later responses for nobody; a
   * client that asked for more gets an empty answer and fetches again. Followers send {@code
   * replica.fetch.wait.max.ms}, which is at most {@code replica.lag.time.max.ms} (30 s by default).
   */
  static final int MAX_WAIT_MS = 30_000;

  /** Kafka's default {@code fetch.max.bytes}: 55 MiB. */
  public static final int DEFAULT_FETCH_MAX_BYTES = 55 * 1024 * 1024;

  private final ReplicaManager replicaManager;
  private final ReplicationQuota leaderThrottle;
  private final ReadReplicaSelector readReplicas;
  private final int fetchMaxBytes;
  private final ToIntFunction<RequestContext> quotaWindowBytes;
  private final FetchSessions sessions;
  private final RequestAuthorizer authorizer;

  public FetchHandler(ReplicaManager replicaManager) {
    this(
        replicaManager,
        ReadReplicaSelector.LEADER,
        DEFAULT_FETCH_MAX_BYTES,
        FetchSessions.withDefaults());
  }

  public FetchHandler(ReplicaManager replicaManager, FetchSessions sessions) {
    this(replicaManager, ReadReplicaSelector.LEADER, DEFAULT_FETCH_MAX_BYTES, sessions);
  }

  /** With fetch sessions of its own, at Kafka's defaults. */
  public FetchHandler(
      ReplicaManager replicaManager, ReadReplicaSelector readReplicas, int fetchMaxBytes) {
    this(replicaManager, readReplicas, fetchMaxBytes, FetchSessions.withDefaults());
  }

  /**
   * @param readReplicas which replica consumers read from ({@code replica.selector.class})
   * @param fetchMaxBytes {@code fetch.max.bytes}: the largest response to a consumer's fetch,
   *     whatever its {@code max_bytes} (a follower's fetch is bounded by its own request, which
   *     {@code replica.fetch.response.max.bytes} sets)
   * @param sessions the broker's fetch sessions
   */
  public FetchHandler(
      ReplicaManager replicaManager,
      ReadReplicaSelector readReplicas,
      int fetchMaxBytes,
      FetchSessions sessions) {
    this(replicaManager, readReplicas, fetchMaxBytes, sessions, RequestAuthorizer.ALLOW_ALL);
  }

  /**
   * @param authorizer a consumer's fetch needs READ on each topic (TOPIC_AUTHORIZATION_FAILED per
   *     partition otherwise), a follower's CLUSTER_ACTION on the cluster
   */
  public FetchHandler(
      ReplicaManager replicaManager,
      ReadReplicaSelector readReplicas,
      int fetchMaxBytes,
      FetchSessions sessions,
      RequestAuthorizer authorizer) {
    this(
        replicaManager,
        readReplicas,
        fetchMaxBytes,
        sessions,
        authorizer,
        c -> Integer.MAX_VALUE,
        ReplicationQuota.none(ReplicationQuota.Side.LEADER));
  }

  /**
   * @param quotaWindowBytes the most a consumer's fetch may return under its {@code
   *     consumer_byte_rate} quota: a whole quota window's worth, as Kafka caps it, so a throttled
   *     consumer is never handed a huge response first
   * @param leaderThrottle the leader side of the replication throttle (KIP-73): a throttled replica
   *     outside the ISR gets no records while the throttled replicas' rate is over it
   */
  public FetchHandler(
      ReplicaManager replicaManager,
      ReadReplicaSelector readReplicas,
      int fetchMaxBytes,
      FetchSessions sessions,
      RequestAuthorizer authorizer,
      ToIntFunction<RequestContext> quotaWindowBytes,
      ReplicationQuota leaderThrottle) {
    super(ApiKeys.FETCH);
    this.quotaWindowBytes = quotaWindowBytes;
    this.leaderThrottle = leaderThrottle;
    this.replicaManager = replicaManager;
    this.readReplicas = readReplicas;
    this.fetchMaxBytes = fetchMaxBytes;
    this.sessions = sessions;
    this.authorizer = authorizer;
  }

  /**
   * One partition to read, resolved.
   *
   * @param session its entry in a follower's incremental session, which remembers the partition
   *     read, or null
   */
  private record Wanted(
      FetchKey key,
      FetchRequestData.FetchPartition request,
      TopicPartition topicPartition,
      Errors lookupError,
      FetchContext.Unlisted session) {}

  /**
   * The fetch's limits, read from the request as Kafka reads them (plus the wait cap); {@code
   * responseCap} bounds {@code max_bytes} ({@code fetch.max.bytes} for a consumer).
   */
  record Limits(long maxWaitMs, int minBytes, int maxBytes) {
    static Limits of(FetchRequestData request, int responseCap) {
      int maxBytes = Math.max(0, Math.min(request.maxBytes(), responseCap));
      return new Limits(
          Math.min(request.maxWaitMs(), MAX_WAIT_MS),
          Math.min(request.minBytes(), maxBytes),
          maxBytes);
    }
  }

  /**
   * Where a partition's fetch starts on disk, and the high watermark and leader epoch read with it,
   * for the wait condition.
   */
  private record Position(
      TopicPartition topicPartition,
      long fetchOffset,
      LogOffsetMetadata at,
      boolean fromLeader,
      long highWatermark,
      int leaderEpoch,
      boolean throttled) {}

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    FetchRequestData request = (FetchRequestData) message;
    if (request.isolationLevel() != READ_UNCOMMITTED
        && request.isolationLevel() != READ_COMMITTED) {
      return CompletableFuture.failedFuture(
          new InvalidRequestException("unknown isolation level " + request.isolationLevel()));
    }
    short version = context.header().apiVersion();
    int replicaId = replicaId(request);
    FetchContext fetch = sessions.newContext(request, version, replicaId >= 0);
    // Before the topics are resolved: an image applied after this one may name what they miss.
    MetadataImage imageAtRead = replicaManager.image();
    Selection selected = select(fetch, context, request, replicaId);
    List<Wanted> wanted = selected.wanted();
    boolean readCommitted = replicaId < 0 && request.isolationLevel() == READ_COMMITTED;
    Limits limits =
        Limits.of(
            request,
            replicaId < 0
                ? Math.min(fetchMaxBytes, quotaWindowBytes.applyAsInt(context))
                : Integer.MAX_VALUE);
    Read first = read(request, limits, version, wanted, replicaId);
    if (!first.remote().isEmpty()) {
      return answerAfterRemoteReads(first, wanted, replicaId, fetch);
    }
    if (limits.maxWaitMs() <= 0
        || first.bytes() >= limits.minBytes()
        || first.answerNow()
        || (wanted.isEmpty() && selected.quiet().isEmpty())
        || (replicaId >= 0 && fetch.hasNews(news(first), highWatermarkAtOnce()))) {
      countFetch(wanted, first, replicaId);
      return CompletableFuture.completedFuture(fetch.respond(first.answers()));
    }
    CompletableFuture<ApiMessage> done = new CompletableFuture<>();
    DelayedOperations delayed = replicaManager.delayedOperations();
    delayed.submit(
        new DelayedFetch(
            selected.watched(first.positions()),
            first.awaitsMetadata() ? imageAtRead : null,
            limits.minBytes(),
            replicaId >= 0,
            readCommitted) {
          @Override
          protected void onComplete(boolean timedOut) {
            try {
              if (timedOut
                  && replicaId >= 0
                  && !first.awaitsMetadata()
                  && refreshedOffsets(first, wanted)) {
                countFetch(wanted, first, replicaId);
                done.complete(fetch.respond(first.answers()));
                return;
              }
              // Topics this node did not know at the first read may be in its image now, and
              // a quiet partition may have woken the wait.
              List<Wanted> now =
                  first.awaitsMetadata() || !selected.quiet().isEmpty()
                      ? select(fetch, context, request, replicaId).wanted()
                      : wanted;
              Read last = read(request, limits, version, now, replicaId);
              if (last.remote().isEmpty()) {
                countFetch(now, last, replicaId);
                done.complete(fetch.respond(last.answers()));
              } else {
                // Retention moved a partition's local log start past its offset meanwhile.
                answerAfterRemoteReads(last, now, replicaId, fetch)
                    .whenComplete(
                        (answer, failure) -> {
                          if (failure != null) {
                            done.completeExceptionally(failure);
                          } else {
                            done.complete(answer);
                          }
                        });
              }
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
            }
          }
        },
        limits.maxWaitMs(),
        // A fetch waiting for this node's metadata watches the next image as well: not
        // through the session's watch, which holds only partitions.
        first.awaitsMetadata() ? null : fetch.standingWatch(delayed));
    return done;
  }

  /**
   * Data below a local log start comes from remote storage, on its reader threads: the answer, with
   * what the other partitions read locally, goes when every remote read is done (or its wait
   * ended).
   */
  private CompletableFuture<ApiMessage> answerAfterRemoteReads(
      Read read, List<Wanted> wanted, int replicaId, FetchContext fetch) {
    return TieredReads.complete(read.remote())
        .thenApply(
            v -> {
              countFetch(wanted, read, replicaId);
              return fetch.respond(read.answers());
            });
  }

  /**
   * Whether a follower's first read still stands after its wait timed out, its offsets brought up
   * to date; false when something changed that only a new read answers. Nothing was appended to any
   * of its partitions meanwhile (an append wakes a follower's wait), so the read would find the
   * same empty ends again; only the high watermark, the last stable offset and the log start may
   * have moved, and a follower learns those from this answer. A read per partition costs a log
   * lookup and a record of the follower's progress (taken at the first read, as Kafka takes it when
   * a fetch arrives); a broker leading thousands of partitions for a follower whose session holds
   * them all answers a fetch of its idle partitions twice a second, so this check halves that work.
   */
  private boolean refreshedOffsets(Read read, List<Wanted> wanted) {
    List<FetchContext.Answered> answers = read.answers();
    List<Position> positions = read.positions();
    if (read.bytes() > 0 || answers.size() != wanted.size() || positions.size() != wanted.size()) {
      return false;
    }
    for (int i = 0; i < positions.size(); i++) {
      Position position = positions.get(i);
      Wanted w = wanted.get(i);
      if (!position.topicPartition().equals(w.topicPartition())) {
        return false;
      }
      Optional<Partition> partition = replicaManager.partition(position.topicPartition());
      if (partition.isEmpty() || !partition.get().isLeader()) {
        return false;
      }
      ReplicaLog log = partition.get().log();
      long logStart = log.logStartOffset();
      if (log.logEndOffset() != position.fetchOffset() || logStart > position.fetchOffset()) {
        return false;
      }
      try {
        partition.get().checkLeaderEpoch(epoch(w.request().currentLeaderEpoch()));
      } catch (RuntimeException e) {
        return false;
      }
      long highWatermark = log.highWatermark();
      answers
          .get(i)
          .data()
          .setHighWatermark(highWatermark)
          .setLastStableOffset(Math.min(log.lastStableOffset(), highWatermark))
          .setLogStartOffset(logStart);
    }
    return true;
  }

  /**
   * The partitions a fetch reads, and those of a follower's incremental session it skips because
   * nothing changed for them since their last answer ({@link FetchContext.Unlisted}): quiet
   * partitions are not read, but watched like the others while the fetch waits, so an append to one
   * wakes it. At 8,000 partitions per session, most of them idle, reading every partition of every
   * fetch was most of what an idle cluster spent (a lookup, a follower's progress, an empty read
   * and the offsets, per partition, twice a second per follower).
   *
   * @param quiet where each quiet partition's fetch starts, for the wait
   */
  private record Selection(List<Wanted> wanted, List<Position> quiet) {
    /** What a parked fetch watches: the partitions read and the quiet ones. */
    List<Position> watched(List<Position> read) {
      if (quiet.isEmpty()) {
        return read;
      }
      List<Position> all = new ArrayList<>(read.size() + quiet.size());
      all.addAll(read);
      all.addAll(quiet);
      return all;
    }
  }

  private Selection select(
      FetchContext fetch, RequestContext context, FetchRequestData request, int replicaId) {
    List<FetchContext.Requested> partitions = fetch.partitions();
    // A follower's fetch needs CLUSTER_ACTION; without it every partition is refused, as in Kafka.
    TopicLookup.Lookup replicaDenied =
        replicaId >= 0 && !authorizer.authorizeCluster(context, AclOperation.CLUSTER_ACTION)
            ? new TopicLookup.Lookup(null, Errors.TOPIC_AUTHORIZATION_FAILED)
            : null;
    if (replicaId < 0 || replicaDenied != null) {
      return new Selection(wanted(partitions, replicaId, context, replicaDenied), List.of());
    }
    long replicaEpoch = replicaEpoch(request);
    List<FetchContext.Requested> toRead = new ArrayList<>();
    List<Position> quiet = new ArrayList<>();
    for (FetchContext.Requested requested : partitions) {
      Position position =
          requested.mayBeQuiet() ? quietPosition(requested, replicaId, replicaEpoch) : null;
      if (position != null) {
        quiet.add(position);
      } else {
        toRead.add(requested);
      }
    }
    if (!quiet.isEmpty()) {
      sessions.recordQuiet(quiet.size());
    }
    return new Selection(wanted(toRead, replicaId, context, null), quiet);
  }

  /**
   * Where a quiet partition's fetch starts, or null when it must be read: the answer would repeat
   * the last one (the offsets it reported are still the partition's, the follower is at the log
   * end, this broker leads in the follower's epoch and the follower is in the ISR), with the
   * follower's fetch recorded as a read would record it ({@link Partition#fetchFromQuietFollower}).
   */
  private Position quietPosition(
      FetchContext.Requested requested, int replicaId, long replicaEpoch) {
    FetchContext.Unlisted session = requested.session();
    Partition partition = session.leader();
    if (partition == null) {
      return null;
    }
    ReplicaLog log = partition.log();
    long highWatermark = log.highWatermark();
    if (highWatermark != session.reportedHighWatermark()
        || Math.min(log.lastStableOffset(), highWatermark) != session.reportedLastStableOffset()
        || log.logStartOffset() != session.reportedLogStartOffset()) {
      return null;
    }
    FetchRequestData.FetchPartition fields = requested.request();
    // Read first: if it moves before the check below, the parked fetch wakes for it at once.
    int leaderEpoch = partition.state().leaderEpoch();
    LogOffsetMetadata end =
        partition.fetchFromQuietFollower(
            replicaId,
            replicaEpoch,
            fields.fetchOffset(),
            fields.logStartOffset(),
            fields.currentLeaderEpoch());
    if (end == null) {
      return null;
    }
    return new Position(
        partition.topicPartition(),
        fields.fetchOffset(),
        end,
        true,
        highWatermark,
        leaderEpoch,
        false);
  }

  /**
   * The partitions to read, their topics resolved once per topic (a session's partitions are
   * resolved at every fetch: a topic may have been deleted or recreated since it joined).
   *
   * @param replicaDenied the answer to every partition of a follower's fetch refused, or null
   */
  private List<Wanted> wanted(
      List<FetchContext.Requested> partitions,
      int replicaId,
      RequestContext context,
      TopicLookup.Lookup replicaDenied) {
    List<Wanted> wanted = new ArrayList<>(partitions.size());
    Map<FetchKey, TopicLookup.Lookup> topics = new HashMap<>();
    for (FetchContext.Requested requested : partitions) {
      FetchKey key = requested.key();
      TopicLookup.Lookup lookup =
          replicaDenied != null
              ? replicaDenied
              : topics.computeIfAbsent(
                  new FetchKey(key.topic(), key.topicId(), 0),
                  t ->
                      replicaId >= 0
                          ? TopicLookup.find(replicaManager.image(), t.topic(), t.topicId())
                          : TopicLookup.findAuthorized(
                              replicaManager.image(),
                              t.topic(),
                              t.topicId(),
                              authorizer,
                              context,
                              AclOperation.READ));
      TopicPartition tp =
          lookup.found() ? new TopicPartition(lookup.topic().name(), key.partition()) : null;
      wanted.add(new Wanted(key, requested.request(), tp, lookup.error(), requested.session()));
    }
    return wanted;
  }

  /** Replica id of a follower fetch: in the header field up to v14, in ReplicaState from v15. */
  /** The fetching follower's id, negative for a consumer. */
  public static int replicaId(FetchRequestData request) {
    if (request.replicaState() != null && request.replicaState().replicaId() >= 0) {
      return request.replicaState().replicaId();
    }
    return request.replicaId();
  }

  /**
   * Kafka's BrokerTopicMetrics for a consumer's fetch, from the read that answers it: per partition
   * a fetch request, its bytes out, or a failure. Replication fetches are not counted there (as in
   * Kafka); the bytes of their throttled replicas go to the leader's replication throttle.
   */
  private void countFetch(List<Wanted> wanted, Read read, int replicaId) {
    if (replicaId >= 0) {
      recordThrottled(wanted, read);
      return;
    }
    BrokerTopicStats stats = replicaManager.metrics().topicStats();
    List<FetchContext.Answered> answers = read.answers();
    for (int i = 0; i < answers.size(); i++) {
      TopicPartition tp = wanted.get(i).topicPartition();
      if (tp != null) {
        PartitionData data = answers.get(i).data();
        stats.fetched(tp.topic(), data.records().sizeInBytes(), data.errorCode() != 0);
      }
    }
  }

  /** Counts the bytes sent for throttled replicas, in sync or not, as Kafka's leader does. */
  private void recordThrottled(List<Wanted> wanted, Read read) {
    long bytes = 0;
    List<FetchContext.Answered> answers = read.answers();
    for (int i = 0; i < answers.size(); i++) {
      TopicPartition tp = wanted.get(i).topicPartition();
      if (tp != null && leaderThrottle.isThrottled(tp)) {
        bytes += answers.get(i).data().records().sizeInBytes();
      }
    }
    leaderThrottle.record(bytes);
  }

  /**
   * Whether a follower's read of a partition is held back: its replica is throttled on this leader,
   * outside the ISR, and the throttled replicas' rate is over {@code leader.replication
   * .throttled.rate}. An in-sync follower is never held back (KIP-73).
   */
  private boolean leaderThrottled(Partition partition, TopicPartition tp, int replicaId) {
    return leaderThrottle.isThrottled(tp)
        && !partition.state().isr().contains(replicaId)
        && leaderThrottle.isQuotaExceeded();
  }

  /**
   * The response of one pass over the partitions, with what the wait condition needs: the bytes
   * read locally, whether to answer without waiting for more (an error, a diverging epoch, a
   * preferred read replica, remote data the fetch had no room for), and whether a follower asked
   * for a partition this node's metadata does not place yet ({@link #metadataBehind}).
   */
  private record Read(
      List<FetchContext.Answered> answers,
      int bytes,
      boolean answerNow,
      boolean awaitsMetadata,
      List<Position> positions,
      List<TieredReads.Pending> remote) {}

  /**
   * The answers of {@code read} that may be news to the follower: not those waiting for this node's
   * metadata, whose errors are for the moment only ({@link #metadataBehind}).
   */
  private static List<FetchContext.Answered> news(Read read) {
    if (!read.awaitsMetadata()) {
      return read.answers();
    }
    List<FetchContext.Answered> news = new ArrayList<>(read.answers().size());
    for (FetchContext.Answered answered : read.answers()) {
      if (!metadataBehind(answered.data().errorCode())) {
        news.add(answered);
      }
    }
    return news;
  }

  /**
   * Whether a follower's fetch of a partition failed with {@code errorCode} because this node has
   * not yet applied the metadata the follower acts on: the topic or partition is unknown here, the
   * follower's leader epoch is newer, or this node does not lead it yet. While topics are created
   * or leaders move, every follower applies each metadata image at its own pace, so for a moment
   * one asks a leader that does not know yet. Such a partition does not answer the fetch at once:
   * answering makes the follower send its next fetch right away, and while thousands of new
   * partitions trickle in (creating 24,000 takes a few dozen images) those fetches would follow one
   * another back to back, each a pass over every partition of the session on both sides. The fetch
   * waits instead, for data or a high watermark as usual, or until this node applies its next
   * metadata image (the partition's answer is then read again), whichever comes first.
   */
  private static boolean metadataBehind(short errorCode) {
    return errorCode == Errors.UNKNOWN_TOPIC_ID.code()
        || errorCode == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()
        || errorCode == Errors.UNKNOWN_LEADER_EPOCH.code()
        || errorCode == Errors.NOT_LEADER_OR_FOLLOWER.code();
  }

  private Read read(
      FetchRequestData request, Limits limits, short version, List<Wanted> wanted, int replicaId) {
    List<FetchContext.Answered> answers = new ArrayList<>(wanted.size());
    FetchBudget budget = new FetchBudget(limits.maxBytes());
    boolean answerNow = false;
    boolean awaitsMetadata = false;
    List<Position> positions = new ArrayList<>(wanted.size());
    List<TieredReads.Pending> remote = new ArrayList<>();
    for (Wanted w : wanted) {
      PartitionData data =
          new PartitionData()
              .setPartitionIndex(w.request().partition())
              .setHighWatermark(-1)
              .setLastStableOffset(-1)
              .setLogStartOffset(-1)
              .setRecords(MemoryRecords.EMPTY);
      answers.add(new FetchContext.Answered(w.key(), data));
      if (w.topicPartition() == null) {
        data.setErrorCode(w.lookupError().code());
        if (replicaId >= 0 && metadataBehind(data.errorCode())) {
          awaitsMetadata = true;
        } else {
          answerNow = true;
        }
        continue;
      }
      try {
        Partition partition = replicaManager.partitionOrThrow(w.topicPartition());
        if (w.session() != null) {
          w.session().rememberLeader(partition);
        }
        // Read first: if it moves before the read, the parked fetch wakes for it at once.
        int leaderEpoch = partition.state().leaderEpoch();
        partition.checkLeaderEpoch(epoch(w.request().currentLeaderEpoch()));
        int limit = budget.limitFor(w.request().partitionMaxBytes());
        boolean throttled =
            replicaId >= 0 && leaderThrottled(partition, w.topicPartition(), replicaId);
        int remoteBefore = remote.size();
        Optional<Position> position =
            replicaId >= 0
                ? readForFollower(
                    partition,
                    leaderEpoch,
                    w,
                    replicaId,
                    replicaEpoch(request),
                    throttled ? 0 : limit,
                    !throttled && budget.minOneBatch(),
                    throttled,
                    data)
                : readForConsumer(
                    partition, leaderEpoch, w, request, version, budget, limit, data, remote);
        if (position.isPresent()) {
          // The first batch may exceed what was left (KIP-74); nothing more is read after it.
          budget.readLocally(data.records().sizeInBytes());
          positions.add(position.get());
        } else if (remote.size() == remoteBefore) {
          // A diverging epoch, another read replica, or remote data with no room left for it.
          answerNow = true;
        }
      } catch (RuntimeException e) {
        ApiFailure failure = ApiFailure.of(e);
        data.setErrorCode(failure.code());
        if (replicaId >= 0 && metadataBehind(data.errorCode())) {
          awaitsMetadata = true;
        } else {
          answerNow = true;
        }
        fillOffsetsAfterError(w.topicPartition(), data);
      }
    }
    return new Read(answers, budget.localBytes(), answerNow, awaitsMetadata, positions, remote);
  }

  /**
   * A follower's fetch: the leader partition reads it and records the follower's progress ({@link
   * Partition#fetchFromFollower}); this builds the answer.
   *
   * @return empty when the follower must truncate first (the response names the diverging epoch)
   */
  private static Optional<Position> readForFollower(
      Partition partition,
      int leaderEpoch,
      Wanted w,
      int replicaId,
      long replicaEpoch,
      int limit,
      boolean minOneBatch,
      boolean throttled,
      PartitionData data) {
    long fetchOffset = w.request().fetchOffset();
    FollowerRead read =
        partition.fetchFromFollower(
            replicaId,
            replicaEpoch,
            fetchOffset,
            w.request().logStartOffset(),
            w.request().lastFetchedEpoch(),
            limit,
            minOneBatch);
    if (read.diverged()) {
      data.divergingEpoch()
          .setEpoch(read.divergingEpoch().epoch())
          .setEndOffset(read.divergingEpoch().endOffset());
      data.setHighWatermark(read.highWatermark())
          .setLastStableOffset(read.lastStableOffset())
          .setLogStartOffset(read.logStartOffset());
      return Optional.empty();
    }
    fill(data, read.read(), read.highWatermark(), read.lastStableOffset());
    return Optional.of(
        new Position(
            w.topicPartition(),
            fetchOffset,
            read.read().fetchOffsetMetadata(),
            true,
            read.highWatermark(),
            leaderEpoch,
            throttled));
  }

  /**
   * A consumer's fetch, up to the high watermark. The leader serves it, or points a consumer in
   * another rack to a replica in its own (KIP-392, with {@code replica.selector.class}); a follower
   * serves consumers that send client metadata (v11+), up to the high watermark it knows.
   */
  private Optional<Position> readForConsumer(
      Partition partition,
      int leaderEpoch,
      Wanted w,
      FetchRequestData request,
      short version,
      FetchBudget budget,
      int limit,
      PartitionData data,
      List<TieredReads.Pending> remote) {
    boolean leader = partition.isLeader();
    if (!leader && !(version >= 11 && partition.isFollower())) {
      partition.ensureLeader();
    }
    ReplicaLog log = partition.log();
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
    long maxOffset = readCommitted ? lastStable : log.highWatermark();
    if (leader
        && TieredReads.maybeReadRemote(
                replicaManager.logManager(),
                log,
                fetchOffset,
                budget,
                limit,
                maxOffset,
                readCommitted,
                data,
                remote)
            != TieredReads.Source.LOCAL) {
      data.setHighWatermark(log.highWatermark())
          .setLastStableOffset(Math.min(lastStable, log.highWatermark()));
      return Optional.empty();
    }
    LogReadResult result = log.read(fetchOffset, limit, maxOffset, budget.minOneBatch());
    fill(data, result, result.highWatermark(), lastStable);
    TieredReads.reportLogStart(replicaManager.logManager(), log, data);
    if (readCommitted) {
      data.setAbortedTransactions(abortedTransactions(log, fetchOffset, lastStable, result));
    }
    return Optional.of(
        new Position(
            w.topicPartition(),
            fetchOffset,
            result.fetchOffsetMetadata(),
            leader,
            result.highWatermark(),
            leaderEpoch,
            false));
  }

  /**
   * The aborted transactions a read_committed consumer must skip in what it was sent, null when it
   * was sent nothing. Bounded by the last stable offset the read stopped at rather than by the
   * exact end of the bytes sent, which would need a look into the file: an extra abort beyond the
   * data is ignored by the consumer.
   */
  private static List<FetchResponseData.AbortedTransaction> abortedTransactions(
      ReplicaLog log, long fetchOffset, long lastStable, LogReadResult result) {
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

  /**
   * Whether a follower's fetch is answered as soon as the high watermark moves, even with no
   * records for it: only when consumers may read from followers ({@code replica.selector.class}),
   * who otherwise see new records up to {@code replica.fetch.wait.max.ms} late, and during a
   * controlled shutdown. Otherwise a follower learns the high watermark with its next records, as
   * in Kafka: answering every move doubles the followers' fetches on a busy partition (each append
   * would be answered twice, once with the records and once with the high watermark they moved).
   */
  private boolean highWatermarkAtOnce() {
    return readReplicas != ReadReplicaSelector.LEADER
        || replicaManager.highWatermarkToFollowersAtOnce();
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
   * segment, or "enough" once the bound is in a later segment. A partition that lost its leader,
   * moved to another leader epoch or vanished completes the wait so the client hears about it at
   * once. When {@link #highWatermarkAtOnce} holds, a follower's wait also ends when the high
   * watermark of one of its partitions moves from the one read: the answer reports it (a session
   * reports a partition whose high watermark changed), and the follower, and consumers reading from
   * it, learn the new high watermark without waiting for more data or the timeout.
   */
  private abstract class DelayedFetch extends DelayedOperation {
    private final List<Position> positions;
    private final MetadataImage awaitedAfter;
    private final int minBytes;
    private final boolean follower;
    private final boolean readCommitted;

    /**
     * @param awaitedAfter the image the first read resolved against, when a partition waits for
     *     this node's metadata to catch up ({@link #metadataBehind}); null otherwise
     */
    DelayedFetch(
        List<Position> positions,
        MetadataImage awaitedAfter,
        int minBytes,
        boolean follower,
        boolean readCommitted) {
      // A follower reads up to the log end, so every append may satisfy it (and a high watermark
      // move, which wakes both kinds); a consumer reads up to the high watermark or the last
      // stable offset, which only a high watermark move changes.
      super(
          watched(positions, awaitedAfter != null),
          follower ? WaitsOn.LOG_END : WaitsOn.HIGH_WATERMARK);
      this.positions = positions;
      this.awaitedAfter = awaitedAfter;
      this.minBytes = minBytes;
      this.follower = follower;
      this.readCommitted = readCommitted;
    }

    private static List<TopicPartition> watched(List<Position> positions, boolean nextImage) {
      List<TopicPartition> watched = new ArrayList<>(positions.size() + 1);
      for (Position position : positions) {
        watched.add(position.topicPartition());
      }
      if (nextImage) {
        watched.add(DelayedOperations.NEXT_METADATA_IMAGE);
      }
      return watched;
    }

    @Override
    protected boolean isSatisfied() {
      if (awaitedAfter != null && replicaManager.image() != awaitedAfter) {
        return true; // the partitions this node did not know may be here now: read them again
      }
      long available = 0;
      for (Position position : positions) {
        Optional<Partition> partition = replicaManager.partition(position.topicPartition());
        if (partition.isEmpty()
            || partition.get().isLeader() != position.fromLeader()
            || partition.get().state().leaderEpoch() != position.leaderEpoch()) {
          return true; // the partition left, changed role or epoch: the client hears of it at once
        }
        ReplicaLog log = partition.get().log();
        if (position.fetchOffset() < log.logStartOffset()) {
          return true; // DeleteRecords or retention passed it: OFFSET_OUT_OF_RANGE now
        }
        if (follower && highWatermarkAtOnce() && log.highWatermark() != position.highWatermark()) {
          return true;
        }
        // read_committed counts only bytes below the LSO, and wakes when a marker moves it.
        LogOffsetMetadata bound =
            follower
                ? log.logEndOffsetMetadata()
                : readCommitted ? log.lastStableOffsetMetadata() : log.highWatermarkMetadata();
        if (bound.messageOffset() <= position.fetchOffset() || position.throttled()) {
          continue; // nothing new, or held back by the replication throttle: not worth waking for
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
