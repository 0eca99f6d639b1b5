package io.brook.broker.replica.fetcher;

import io.brook.broker.quota.ReplicationQuota;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.time.MonotonicWait;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.NodeResponse;
import io.brook.storage.log.ReplicaLog;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.FetchSessionHandler;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches a set of partitions from one leader broker, in a loop, and appends what it gets: one
 * Fetch per round for all of them, sent with this broker's replica id so the leader reads up to its
 * log end and learns each follower's log end offset from the fetch offset.
 *
 * <p>Each partition sends its last fetched leader epoch (KIP-320). When the leader answers with a
 * diverging epoch, this log holds a tail the leader never had; the fetcher truncates it to where
 * the two logs agree and fetches on from there.
 *
 * <p>Fetches use an incremental fetch session (KIP-227) with the leader, through kafka-clients'
 * {@link FetchSessionHandler}, the client side Kafka's own replica fetcher and consumers use: after
 * the first full fetch a request lists only the partitions whose fetch fields changed (those that
 * appended data, changed epoch, joined) and forgets those that left, and the leader answers only
 * partitions with news. A session error or a failed or abandoned fetch makes the next request a
 * full one, which opens a new session.
 */
final class ReplicaFetcherThread extends Thread {
  private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherThread.class);

  /** Retry of a partition whose leader has not applied the metadata this follower has. */
  static final long LEADER_NOT_READY_RETRY_MS = 50;

  /**
   * How soon a fetcher whose partitions are all held back by the replication throttle looks again:
   * often enough that the rate stays close to the bound.
   */
  static final long THROTTLE_RECHECK_MS = 100;

  /** Fetch v12, the last naming topics by name, for partitions without a topic id. */
  private static final short LAST_VERSION_WITHOUT_TOPIC_IDS = 12;

  /** Errors about the fetch session, after which the next fetch is a full one. */
  private static final Set<Errors> SESSION_ERRORS =
      EnumSet.of(
          Errors.FETCH_SESSION_ID_NOT_FOUND,
          Errors.INVALID_FETCH_SESSION_EPOCH,
          Errors.FETCH_SESSION_TOPIC_ID_ERROR);

  private final int leaderId;
  private final int brokerId;
  private final LongSupplier brokerEpoch;
  private final IntFunction<Optional<Node>> leaderNode;
  private final ReplicaFetchConfig config;
  private final ReplicationQuota throttle;
  private final Time time;
  private final InterNodeClient client;
  private final Supplier<TieredFollowerStart> tieredStart;
  private final FetchSessionHandler session;
  private volatile CompletableFuture<NodeResponse> inFlight;
  private volatile boolean abandonRequested;
  private final Map<TopicPartition, FetchState> partitions = new ConcurrentHashMap<>();
  private volatile boolean running = true;
  private boolean failing;

  /** Fetches given up unanswered in a row ({@link #fetchTimeoutMs}); an answer resets it. */
  private int stalls;

  /** Ends the current (or next) back-off early: a partition joined or the thread stops. */
  private boolean woken; // guarded by this

  /**
   * A partition this thread fetches; {@code delayedUntilMs} after an error, on the clock's
   * monotonic milliseconds ({@link Time#hiResClockMs}), so a wall clock stepped back (NTP, an
   * operator) cannot stretch the back-off; {@code lag}, Kafka's follower lag: the leader's high
   * watermark in the last fetch response minus this log's end after appending it (0 when caught
   * up).
   */
  private static final class FetchState {
    final Partition partition;
    volatile long delayedUntilMs = Long.MIN_VALUE;
    volatile long lag;

    /**
     * What this thread last asked the leader for this partition (the fetcher thread's own field):
     * asked again unchanged, as most partitions of a quiet session are, the same object goes out,
     * so a fetch of thousands of partitions allocates for the few that moved, and the session's
     * comparison of each partition with the last request ends on identity.
     */
    FetchRequest.PartitionData lastSent;

    FetchState(Partition partition) {
      this.partition = partition;
    }
  }

  ReplicaFetcherThread(
      String name,
      int leaderId,
      int brokerId,
      LongSupplier brokerEpoch,
      IntFunction<Optional<Node>> leaderNode,
      ReplicaFetchConfig config,
      ReplicationQuota throttle,
      Time time,
      InterNodeClient client,
      Supplier<TieredFollowerStart> tieredStart) {
    super(name);
    this.throttle = throttle;
    setDaemon(true);
    this.leaderId = leaderId;
    this.brokerId = brokerId;
    this.brokerEpoch = brokerEpoch;
    this.leaderNode = leaderNode;
    this.config = config;
    this.time = time;
    this.client = client;
    this.tieredStart = tieredStart;
    this.session =
        new FetchSessionHandler(
            new LogContext("[ReplicaFetcher broker=" + brokerId + " leader=" + leaderId + "] "),
            leaderId);
  }

  /**
   * Fetches {@code partition} from the next round on; {@link #fetchAgainNow} makes that round start
   * at once rather than after the fetch in flight (which the leader may hold open for up to {@code
   * replica.fetch.wait.max.ms}).
   */
  void add(Partition partition) {
    partitions.put(partition.topicPartition(), new FetchState(partition));
    wake();
  }

  /** Gives up the fetch in flight, if any, and sends the next one at once. */
  void fetchAgainNow() {
    abandonInFlight();
    wake();
  }

  void remove(TopicPartition tp) {
    partitions.remove(tp);
  }

  boolean isIdle() {
    return partitions.isEmpty();
  }

  int partitionCount() {
    return partitions.size();
  }

  /** The largest {@link FetchState#lag} of this thread's partitions, 0 without any. */
  long maxLag() {
    long max = 0;
    for (FetchState state : partitions.values()) {
      max = Math.max(max, state.lag);
    }
    return max;
  }

  /**
   * Stops the loop after the current round. Never by interrupting: an interrupt during a write
   * closes the segment's file channel (ClosedByInterruptException) and takes the partition offline.
   */
  void shutdown() {
    running = false;
    abandonInFlight();
    wake();
  }

  private synchronized void wake() {
    woken = true;
    notifyAll();
  }

  @Override
  public void run() {
    try {
      while (running) {
        try {
          fetchOnce();
        } catch (RuntimeException e) {
          log.error("Replica fetcher round failed leaderId={}", leaderId, e);
          pause(config.fetchBackoffMs());
        }
      }
    } finally {
      client.close();
    }
  }

  /**
   * Makes the fetch in flight give up at once, so a partition that joins need not wait for a fetch
   * the leader may hold open for up to {@code replica.fetch.wait.max.ms} (after a leader change,
   * that wait would hold acks=all writes); also used to stop.
   */
  private void abandonInFlight() {
    abandonRequested = true;
    CompletableFuture<NodeResponse> sent = inFlight;
    if (sent != null) {
      sent.completeExceptionally(new AbandonedException());
    }
  }

  /** A fetch given up because the fetcher's partitions changed (see {@link #abandonInFlight}). */
  private static final class AbandonedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AbandonedException() {
      super("fetch abandoned: the fetcher's partitions changed", null, false, false);
    }
  }

  /**
   * How long the next fetch may go unanswered. The leader answers within {@code
   * replica.fetch.wait.max.ms}, so a fetch silent for the stall timeout past that waits on a
   * connection whose packets were lost: once a network cut heals, TCP's retransmission back-off can
   * keep it silent for many more seconds, with the follower still in the ISR holding every acks=all
   * write. Giving the fetch up closes that connection and the next fetch opens a new one at once.
   * The allowance doubles with each stall in a row, so a leader that is only slow (a full fetch of
   * thousands of partitions, a loaded disk) is not asked again and again, and never exceeds {@code
   * replica.socket.timeout.ms}.
   */
  private int fetchTimeoutMs() {
    return fetchTimeoutMs(config, stalls);
  }

  /** {@link #fetchTimeoutMs()} after {@code stallsInARow} fetches given up in a row. */
  static int fetchTimeoutMs(ReplicaFetchConfig config, int stallsInARow) {
    long stallMs = (long) config.fetchStallTimeoutMs() << Math.min(stallsInARow, 20);
    return (int) Math.min(config.socketTimeoutMs(), config.fetchWaitMaxMs() + stallMs);
  }

  /** Sends {@code request} to the leader and waits (on this thread) for its answer. */
  private NodeResponse send(Node leader, FetchRequest.Builder request)
      throws ExecutionException, InterruptedException {
    CompletableFuture<NodeResponse> sent =
        client.send(leader, ApiKeys.FETCH, v -> request.build(v).data(), fetchTimeoutMs());
    inFlight = sent;
    if (abandonRequested) {
      sent.completeExceptionally(new AbandonedException());
    }
    try {
      return sent.get();
    } finally {
      inFlight = null;
    }
  }

  private void fetchOnce() {
    abandonRequested = false;
    long now = time.hiResClockMs();
    FetchSessionHandler.Builder sessionRequest = session.newBuilder();
    Map<TopicPartition, FetchState> fetched = new HashMap<>();
    long nextDelayEnd = Long.MAX_VALUE;
    boolean overThrottle = throttle.isQuotaExceeded();
    for (Map.Entry<TopicPartition, FetchState> entry : partitions.entrySet()) {
      FetchState fetchState = entry.getValue();
      Partition partition = fetchState.partition;
      PartitionState state = partition.state();
      if (state.leader() != leaderId) {
        continue; // leadership moved; the manager moves the partition
      }
      if (fetchState.delayedUntilMs > now) {
        nextDelayEnd = Math.min(nextDelayEnd, fetchState.delayedUntilMs);
        continue;
      }
      if (overThrottle && fetchState.lag > 0 && throttle.isThrottled(entry.getKey())) {
        // KIP-73: a throttled replica still catching up waits while the throttled replicas'
        // rate is over follower.replication.throttled.rate; one in sync is never held back.
        nextDelayEnd = Math.min(nextDelayEnd, now + THROTTLE_RECHECK_MS);
        continue;
      }
      FetchRequest.PartitionData partitionData = partitionData(fetchState, state.leaderEpoch());
      fetchState.lastSent = partitionData;
      sessionRequest.add(entry.getKey(), partitionData);
      fetched.put(entry.getKey(), fetchState);
    }
    if (fetched.isEmpty()) {
      long waitMs = nextDelayEnd == Long.MAX_VALUE ? 1_000 : Math.max(1, nextDelayEnd - now);
      pause(Math.min(waitMs, 1_000));
      return;
    }
    Optional<Node> node = leaderNode.apply(leaderId);
    if (node.isEmpty()) {
      delayAll(fetched, now);
      return;
    }
    FetchResponse response;
    short version;
    FetchSessionHandler.FetchRequestData sessionData = sessionRequest.build();
    try {
      FetchRequest.Builder request =
          FetchRequest.Builder.forReplica(
                  sessionData.canUseTopicIds()
                      ? ApiKeys.FETCH.latestVersion()
                      : LAST_VERSION_WITHOUT_TOPIC_IDS,
                  brokerId,
                  brokerEpoch.getAsLong(),
                  config.fetchWaitMaxMs(),
                  config.fetchMinBytes(),
                  sessionData.toSend())
              .setMaxBytes(config.fetchResponseMaxBytes())
              .metadata(sessionData.metadata())
              .removed(sessionData.toForget())
              .replaced(sessionData.toReplace());
      NodeResponse answer = send(node.get(), request);
      response = FetchResponse.of(answer.body(FetchResponseData.class));
      version = answer.apiVersion();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
      return;
    } catch (ExecutionException failed) {
      Throwable e = failed.getCause();
      // The leader may or may not have seen the request: the next one is full, on a new session.
      session.handleError(e);
      if (e instanceof AbandonedException) {
        // A partition joined: fetch again at once, with it, on a new connection (the leader may
        // still hold the abandoned fetch open, and answers leave a connection in order).
        client.disconnect(leaderId);
        return;
      }
      if (e instanceof TimeoutException && running) {
        // Unanswered in time: the connection carrying it is closed (a late answer could not be
        // told from the next one's); ask again at once, on a new one. Not sent in time (still
        // connecting) goes the same way: the attempt goes on, and its failure backs off below.
        log.info(
            "Fetch from leader unanswered, asking again on a new connection leaderId={} node={}"
                + " timeoutMs={} stallsInARow={}",
            leaderId,
            node.get(),
            fetchTimeoutMs(),
            stalls + 1);
        stalls++;
        return;
      }
      if (running) {
        // Once per outage at INFO: a dead leader fails every round until the metadata moves on.
        if (!failing) {
          log.info(
              "Fetch from leader failed leaderId={} node={} error={}",
              leaderId,
              node.get(),
              e.toString());
        } else {
          log.debug("Fetch from leader failed again leaderId={} error={}", leaderId, e.toString());
        }
        failing = true;
        delayAll(fetched, now);
      }
      return;
    }
    failing = false;
    stalls = 0;
    if (!session.handleResponse(response, version)) {
      if (!SESSION_ERRORS.contains(response.error())) {
        log.warn("Fetch refused leaderId={} error={}", leaderId, response.error());
        delayAll(fetched, now);
      }
      // A session error: the handler made the next request a full one, sent at once.
      return;
    }
    // The session's names hold every topic of the session, so every topic an answer can carry.
    Map<TopicPartition, FetchResponseData.PartitionData> data =
        response.responseData(session.sessionTopicNames(), version);
    for (Map.Entry<TopicPartition, FetchResponseData.PartitionData> entry : data.entrySet()) {
      FetchState fetchState = fetched.get(entry.getKey());
      if (fetchState != null && partitions.get(entry.getKey()) == fetchState) {
        handlePartition(fetchState, fetchState.lastSent, entry.getValue());
      }
    }
  }

  /** What to ask the leader for the partition now: the last request's object when unchanged. */
  private FetchRequest.PartitionData partitionData(FetchState fetchState, int leaderEpoch) {
    Partition partition = fetchState.partition;
    ReplicaLog partitionLog = partition.log();
    long fetchOffset = partitionLog.logEndOffset();
    long logStartOffset = partitionLog.logStartOffset();
    int lastFetchedEpoch = partitionLog.latestEpoch().orElse(-1);
    FetchRequest.PartitionData last = fetchState.lastSent;
    if (last != null
        && last.fetchOffset == fetchOffset
        && last.logStartOffset == logStartOffset
        && last.maxBytes == config.fetchMaxBytes()
        && last.currentLeaderEpoch.orElse(-1) == leaderEpoch
        && last.lastFetchedEpoch.orElse(-1) == lastFetchedEpoch
        && last.topicId.equals(partition.topicId())) {
      return last;
    }
    return new FetchRequest.PartitionData(
        partition.topicId(),
        fetchOffset,
        logStartOffset,
        config.fetchMaxBytes(),
        Optional.of(leaderEpoch),
        lastFetchedEpoch < 0 ? Optional.empty() : Optional.of(lastFetchedEpoch));
  }

  private void handlePartition(
      FetchState fetchState,
      FetchRequest.PartitionData sent,
      FetchResponseData.PartitionData data) {
    Partition partition = fetchState.partition;
    Errors error = Errors.forCode(data.errorCode());
    try {
      switch (error) {
        case NONE -> {
          if (FetchResponse.isDivergingEpoch(data)) {
            FollowerTruncation.onDivergingEpoch(partition, data.divergingEpoch());
          } else if (partition.log().logEndOffset() == sent.fetchOffset) {
            MemoryRecords records =
                WholeBatches.of((MemoryRecords) FetchResponse.recordsOrFail(data));
            partition.appendAsFollower(records, data.highWatermark(), data.logStartOffset());
            if (throttle.isThrottled(partition.topicPartition())) {
              throttle.record(records.sizeInBytes());
            }
            fetchState.lag = Math.max(0, data.highWatermark() - partition.log().logEndOffset());
          }
        }
        // KIP-405: what this follower needs is in remote storage; it never fetches that from the
        // leader, but starts at the leader's local log start (sent as the log start offset) with
        // the state of the records below it, rebuilt from remote storage.
        case OFFSET_MOVED_TO_TIERED_STORAGE ->
            partition.restartAsFollowerFromTier(data.logStartOffset(), tieredStart.get());
        case OFFSET_OUT_OF_RANGE ->
            FollowerTruncation.onOutOfRange(
                partition, sent.fetchOffset, data.logStartOffset(), data.highWatermark());
        // The leader's metadata is behind this follower's (it does not know the topic yet, or
        // does not lead in this epoch yet): it catches up within milliseconds, so retry soon
        // rather than after a full back-off, which would hold acks=all writes after a failover and
        // slow a topic's creation. The leader answers these errors only once it has applied its
        // next metadata image (or the fetch's wait ended), so a quick retry does not spin.
        case UNKNOWN_LEADER_EPOCH,
            NOT_LEADER_OR_FOLLOWER,
            UNKNOWN_TOPIC_ID,
            UNKNOWN_TOPIC_OR_PARTITION -> {
          log.debug(
              "Leader not ready topicPartition={} leaderId={} error={}",
              partition.topicPartition(),
              leaderId,
              error);
          fetchState.delayedUntilMs =
              time.hiResClockMs() + Math.min(config.fetchBackoffMs(), LEADER_NOT_READY_RETRY_MS);
        }
        default -> {
          log.debug(
              "Fetch of a partition failed topicPartition={} leaderId={} error={}",
              partition.topicPartition(),
              leaderId,
              error);
          fetchState.delayedUntilMs = time.hiResClockMs() + config.fetchBackoffMs();
        }
      }
    } catch (RuntimeException e) {
      log.error(
          "Appending fetched data failed topicPartition={} leaderId={}",
          partition.topicPartition(),
          leaderId,
          e);
      fetchState.delayedUntilMs = time.hiResClockMs() + config.fetchBackoffMs();
    }
  }

  private void delayAll(Map<TopicPartition, FetchState> states, long now) {
    for (FetchState state : states.values()) {
      state.delayedUntilMs = now + config.fetchBackoffMs();
    }
  }

  /** Backs off for {@code ms} of the injected clock's monotonic time, or until {@link #wake}. */
  private void pause(long ms) {
    if (!running) {
      return;
    }
    try {
      MonotonicWait.until(time, this, () -> woken || !running, time.hiResClockMs() + ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
    synchronized (this) {
      woken = false;
    }
  }
}
