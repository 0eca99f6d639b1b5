package io.brook.broker.fetch;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.delayed.StandingWatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;

/**
 * One incremental fetch session: its partitions in the order they are read (a partition that
 * returned data moves to the end, so a response bounded by {@code max_bytes} serves the others
 * first next time) and the epoch the next request must carry. Mutable state is guarded by the
 * session's own lock; the {@link FetchSessionCache} lock may be taken before it, never after.
 */
final class FetchSession {
  final int id;

  /** Created by a follower: evicts consumer sessions and is not evicted by them while young. */
  final boolean privileged;

  /** Created by a request of v13 or later, which names topics by id. */
  final boolean usesTopicIds;

  final long creationMs;

  /** Guarded by the cache's lock: the keys of the cache's ordered indexes. */
  long lastUsedMs;

  /** The size the cache's indexes know, -1 while not in the cache; guarded by the cache's lock. */
  int cachedSize = -1;

  private final LinkedHashMap<FetchKey, CachedPartition> partitions;
  private int epoch;

  /** Where this session's fetches park, made at the first; null once the session ended. */
  private StandingWatch watch;

  private boolean ended;

  FetchSession(
      int id,
      boolean privileged,
      boolean usesTopicIds,
      long now,
      LinkedHashMap<FetchKey, CachedPartition> partitions,
      int epoch) {
    this.id = id;
    this.privileged = privileged;
    this.usesTopicIds = usesTopicIds;
    this.creationMs = now;
    this.lastUsedMs = now;
    this.partitions = partitions;
    this.epoch = epoch;
  }

  synchronized int epoch() {
    return epoch;
  }

  synchronized void setEpoch(int epoch) {
    this.epoch = epoch;
  }

  synchronized int size() {
    return partitions.size();
  }

  /**
   * Applies an incremental request: listed partitions are added or take the new request fields,
   * forgotten ones leave.
   */
  synchronized void update(Map<FetchKey, FetchPartition> listed, List<FetchKey> forgotten) {
    for (Map.Entry<FetchKey, FetchPartition> entry : listed.entrySet()) {
      CachedPartition cached = partitions.get(entry.getKey());
      if (cached == null) {
        partitions.put(entry.getKey(), new CachedPartition(entry.getKey(), entry.getValue()));
      } else {
        cached.listed(entry.getValue());
      }
    }
    for (FetchKey key : forgotten) {
      partitions.remove(key);
    }
  }

  /**
   * The partitions to read, in order, with the request fields in force for each; those of a
   * follower's session that no request listed since the last snapshot may be skipped while quiet.
   */
  synchronized List<FetchContext.Requested> snapshot() {
    List<FetchContext.Requested> out = new ArrayList<>(partitions.size());
    for (CachedPartition cached : partitions.values()) {
      out.add(cached.requested(privileged));
    }
    return out;
  }

  /**
   * The watch this session's fetches park through while waiting for data ({@link
   * DelayedOperations#submit(io.brook.broker.delayed.DelayedOperation, long, StandingWatch)}), or
   * null once the session has left the cache.
   */
  synchronized StandingWatch watch(DelayedOperations delayed) {
    if (watch == null && !ended) {
      watch = delayed.newStandingWatch();
    }
    return watch;
  }

  /** The session left the cache: its watch leaves the partitions it was registered under. */
  void end() {
    StandingWatch ending;
    synchronized (this) {
      ended = true;
      ending = watch;
      watch = null;
    }
    if (ending != null) {
      ending.close();
    }
  }

  /** The cached state of a partition; caller holds this session's lock. */
  CachedPartition cached(FetchKey key) {
    return partitions.get(key);
  }

  /** Moves a partition that returned data to the end of the read order; caller holds the lock. */
  void moveToEnd(CachedPartition cached) {
    partitions.remove(cached.key);
    partitions.put(cached.key, cached);
  }
}
