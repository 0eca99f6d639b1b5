package io.brook.broker.fetch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.utils.Time;

/**
 * Turns a Fetch request into its {@link FetchContext}, as Kafka's fetch manager does: a full
 * request (epoch 0 or -1) closes the session it names; epoch 0 may open a new one, -1 never does;
 * an incremental request (epoch > 0) must name a cached session at the epoch it expects
 * (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH otherwise) and name topics the way the
 * session was opened, by id from v13 or by name before (FETCH_SESSION_TOPIC_ID_ERROR otherwise);
 * its listed partitions join or update the session, its forgotten ones leave, and a session left
 * empty closes.
 */
public final class FetchSessions {
  /** Fetch v7 brought sessions; earlier requests are sessionless. */
  private static final short FIRST_SESSION_VERSION = 7;

  /** Fetch v13 names topics by id. */
  private static final short FIRST_TOPIC_ID_VERSION = 13;

  private final FetchSessionCache cache;
  private final Time time;
  private final LongAdder requests = new LongAdder();
  private final LongAdder listedPartitions = new LongAdder();
  private final LongAdder quietPartitions = new LongAdder();

  public FetchSessions(FetchSessionCache cache, Time time) {
    this.cache = cache;
    this.time = time;
  }

  /** Kafka's defaults, on the system clock. */
  public static FetchSessions withDefaults() {
    return new FetchSessions(
        new FetchSessionCache(
            FetchSessionCache.DEFAULT_SLOTS, FetchSessionCache.DEFAULT_EVICTION_MS, Time.SYSTEM),
        Time.SYSTEM);
  }

  public FetchSessionCache cache() {
    return cache;
  }

  /** Fetch requests seen. */
  public long requests() {
    return requests.sum();
  }

  /** Partitions listed over all Fetch requests seen: what incremental sessions save. */
  public long listedPartitions() {
    return listedPartitions.sum();
  }

  /**
   * Reads of followers' session partitions skipped because nothing changed for them on either side
   * since their last answer ({@link FetchContext.Unlisted}), counted when a fetch arrives and again
   * when a parked one completes: what leader-side change tracking saves.
   */
  public long quietPartitions() {
    return quietPartitions.sum();
  }

  /** Counts {@code skipped} quiet partitions of one read of a follower's fetch. */
  public void recordQuiet(int skipped) {
    quietPartitions.add(skipped);
  }

  /**
   * @param follower the request comes from a replica: a session it opens is privileged
   */
  public FetchContext newContext(FetchRequestData request, short version, boolean follower) {
    Map<FetchKey, FetchPartition> listed = listed(request);
    requests.increment();
    listedPartitions.add(listed.size());
    int sessionId = version >= FIRST_SESSION_VERSION ? request.sessionId() : 0;
    int epoch =
        version >= FIRST_SESSION_VERSION ? request.sessionEpoch() : FetchMetadata.FINAL_EPOCH;
    boolean usesTopicIds = version >= FIRST_TOPIC_ID_VERSION;
    if (epoch == FetchMetadata.INITIAL_EPOCH || epoch == FetchMetadata.FINAL_EPOCH) {
      if (sessionId != FetchMetadata.INVALID_SESSION_ID) {
        cache.remove(sessionId); // a full request closes the session it names
      }
      List<FetchContext.Requested> partitions = requested(listed);
      return epoch == FetchMetadata.FINAL_EPOCH
          ? new FetchContext.Sessionless(partitions)
          : new FetchContext.Full(cache, time, follower, usesTopicIds, partitions);
    }
    FetchSession session = cache.get(sessionId);
    if (session == null) {
      return new FetchContext.SessionError(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }
    List<FetchContext.Requested> partitions;
    synchronized (session) {
      if (session.epoch() != epoch) {
        return new FetchContext.SessionError(Errors.INVALID_FETCH_SESSION_EPOCH);
      }
      if (session.usesTopicIds != usesTopicIds) {
        return new FetchContext.SessionError(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
      }
      session.update(listed, forgotten(request));
      if (session.size() == 0) {
        partitions = null;
      } else {
        session.setEpoch(FetchMetadata.nextEpoch(epoch));
        partitions = session.snapshot();
      }
    }
    // The cache's lock is never taken under a session's (the cache takes them in the other order).
    if (partitions == null) {
      cache.remove(session);
      return new FetchContext.Sessionless(List.of());
    }
    cache.touch(session, time.milliseconds());
    return new FetchContext.Incremental(session, FetchMetadata.nextEpoch(epoch), partitions);
  }

  /**
   * The listed partitions, each once: a partition listed again takes the later listing's fields and
   * keeps the first one's place, as in Kafka's insertion-ordered request map.
   */
  private static Map<FetchKey, FetchPartition> listed(FetchRequestData request) {
    Map<FetchKey, FetchPartition> listed = new LinkedHashMap<>();
    for (FetchRequestData.FetchTopic topic : request.topics()) {
      for (FetchPartition partition : topic.partitions()) {
        listed.put(new FetchKey(topic.topic(), topic.topicId(), partition.partition()), partition);
      }
    }
    return listed;
  }

  private static List<FetchKey> forgotten(FetchRequestData request) {
    List<FetchKey> forgotten = new ArrayList<>();
    for (FetchRequestData.ForgottenTopic topic : request.forgottenTopicsData()) {
      for (int partition : topic.partitions()) {
        forgotten.add(new FetchKey(topic.topic(), topic.topicId(), partition));
      }
    }
    return forgotten;
  }

  private static List<FetchContext.Requested> requested(Map<FetchKey, FetchPartition> listed) {
    List<FetchContext.Requested> out = new ArrayList<>(listed.size());
    listed.forEach(
        (key, partition) -> out.add(new FetchContext.Requested(key, partition, null, false)));
    return out;
  }
}
