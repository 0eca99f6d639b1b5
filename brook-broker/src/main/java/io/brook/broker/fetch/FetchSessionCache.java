package io.brook.broker.fetch;

import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.utils.Time;

/**
 * The broker's fetch sessions, at most {@code max.incremental.fetch.session.cache.slots} of them.
 * When full, a new session may take the place of one that is (Kafka's rules, in this order):
 *
 * <ol>
 *   <li>stale: unused for longer than {@code brook.min.incremental.fetch.session.eviction.ms} (the
 *       least recently used such session goes);
 *   <li>less valuable: a consumer session when the newcomer is a follower's (privileged), or a
 *       session with fewer (or as many) partitions than the newcomer; either only once it is older
 *       than the eviction time, except that a follower may evict a young consumer session.
 * </ol>
 *
 * <p>Every method holds the cache's lock for a few map operations only (the partitions of a new
 * session are built before it is taken), so Netty event loops fetching at once never wait long. A
 * session's own lock may be taken while this one is held, never the other way round.
 */
public final class FetchSessionCache {
  /** Kafka's default {@code max.incremental.fetch.session.cache.slots}. */
  public static final int DEFAULT_SLOTS = 1_000;

  /** Kafka's fixed minimum age before a session may be evicted. */
  public static final long DEFAULT_EVICTION_MS = 120_000;

  /** Order of the least recently used first. */
  private record LastUsedKey(long lastUsedMs, int id) {}

  /** Order of the least valuable first: consumer before follower, smaller before larger. */
  private record EvictableKey(boolean privileged, int size, int id) {}

  private static final Comparator<LastUsedKey> LAST_USED =
      Comparator.comparingLong(LastUsedKey::lastUsedMs).thenComparingInt(LastUsedKey::id);
  private static final Comparator<EvictableKey> EVICTABLE =
      Comparator.comparing(EvictableKey::privileged)
          .thenComparingInt(EvictableKey::size)
          .thenComparingInt(EvictableKey::id);

  private final int maxSessions;
  private final long evictionMs;
  private final AtomicLong evictions = new AtomicLong();

  private final Map<Integer, FetchSession> sessions = new HashMap<>();
  private final TreeMap<LastUsedKey, FetchSession> lastUsed = new TreeMap<>(LAST_USED);

  /** Sessions any newcomer may evict if it is at least as valuable: those past the eviction age. */
  private final TreeMap<EvictableKey, FetchSession> evictableByAll = new TreeMap<>(EVICTABLE);

  /** Sessions a follower's newcomer may evict: consumer sessions of any age, and old ones. */
  private final TreeMap<EvictableKey, FetchSession> evictableByPrivileged =
      new TreeMap<>(EVICTABLE);

  private long partitionsCached;

  /**
   * @param maxSessions {@code max.incremental.fetch.session.cache.slots}; 0 turns sessions off
   * @param evictionMs {@code brook.min.incremental.fetch.session.eviction.ms}
   */
  public FetchSessionCache(int maxSessions, long evictionMs, Time time) {
    this.maxSessions = maxSessions;
    this.evictionMs = evictionMs;
  }

  synchronized FetchSession get(int sessionId) {
    return sessions.get(sessionId);
  }

  /** Sessions in the cache: Kafka's {@code NumIncrementalFetchSessions}. */
  public synchronized int size() {
    return sessions.size();
  }

  /** Partitions over all sessions: Kafka's {@code NumIncrementalFetchPartitionsCached}. */
  public synchronized long partitionsCached() {
    return partitionsCached;
  }

  /** Sessions evicted to make room: Kafka's {@code IncrementalFetchSessionEvictionsPerSec}. */
  public long evictions() {
    return evictions.get();
  }

  /**
   * A new session holding {@code partitions}, if there is room or an entry may be evicted for it.
   *
   * @return the new session's id, or {@link FetchMetadata#INVALID_SESSION_ID}
   */
  synchronized int maybeCreate(
      long now,
      boolean privileged,
      boolean usesTopicIds,
      LinkedHashMap<FetchKey, CachedPartition> partitions) {
    if (sessions.size() >= maxSessions
        && !tryEvict(privileged, new EvictableKey(privileged, partitions.size(), 0), now)) {
      return FetchMetadata.INVALID_SESSION_ID;
    }
    int id = newSessionId();
    FetchSession session =
        new FetchSession(
            id,
            privileged,
            usesTopicIds,
            now,
            partitions,
            FetchMetadata.nextEpoch(FetchMetadata.INITIAL_EPOCH));
    sessions.put(id, session);
    touch(session, now);
    return id;
  }

  private int newSessionId() {
    int id;
    do {
      id = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
    } while (sessions.containsKey(id));
    return id;
  }

  private boolean tryEvict(boolean privileged, EvictableKey newcomer, long now) {
    if (maxSessions <= 0) {
      return false;
    }
    Map.Entry<LastUsedKey, FetchSession> oldest = lastUsed.firstEntry();
    if (oldest == null) {
      return false;
    }
    if (now - oldest.getKey().lastUsedMs() > evictionMs) {
      remove(oldest.getValue());
      evictions.incrementAndGet();
      return true;
    }
    Map.Entry<EvictableKey, FetchSession> candidate =
        (privileged ? evictableByPrivileged : evictableByAll).firstEntry();
    if (candidate == null || EVICTABLE.compare(newcomer, candidate.getKey()) < 0) {
      return false;
    }
    remove(candidate.getValue());
    evictions.incrementAndGet();
    return true;
  }

  /** Removes session {@code sessionId}; true if it was there. */
  synchronized boolean remove(int sessionId) {
    FetchSession session = sessions.get(sessionId);
    if (session == null) {
      return false;
    }
    remove(session);
    return true;
  }

  synchronized void remove(FetchSession session) {
    if (sessions.remove(session.id, session)) {
      session.end();
      lastUsed.remove(new LastUsedKey(session.lastUsedMs, session.id));
      EvictableKey key = evictableKey(session);
      evictableByAll.remove(key);
      evictableByPrivileged.remove(key);
      partitionsCached -= session.cachedSize;
      session.cachedSize = -1;
    }
  }

  /** Marks {@code session} used now and re-files it under its current size. */
  synchronized void touch(FetchSession session, long now) {
    if (sessions.get(session.id) != session) {
      return; // evicted meanwhile
    }
    lastUsed.remove(new LastUsedKey(session.lastUsedMs, session.id));
    session.lastUsedMs = now;
    lastUsed.put(new LastUsedKey(now, session.id), session);
    if (session.cachedSize >= 0) {
      EvictableKey old = evictableKey(session);
      evictableByAll.remove(old);
      evictableByPrivileged.remove(old);
      partitionsCached -= session.cachedSize;
    }
    session.cachedSize = session.size();
    partitionsCached += session.cachedSize;
    EvictableKey key = evictableKey(session);
    boolean old = now - session.creationMs > evictionMs;
    if (!session.privileged || old) {
      evictableByPrivileged.put(key, session);
    }
    if (old) {
      evictableByAll.put(key, session);
    }
  }

  private static EvictableKey evictableKey(FetchSession session) {
    return new EvictableKey(session.privileged, session.cachedSize, session.id);
  }
}
