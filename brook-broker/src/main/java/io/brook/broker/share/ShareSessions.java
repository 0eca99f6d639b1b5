package io.brook.broker.share;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidShareSessionEpochException;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;

/**
 * The share sessions of this broker (KIP-932): one per share group member that fetches here, naming
 * the partitions it fetches so that later requests only send changes. A session is opened by epoch
 * 0, continued by each next epoch (ShareFetch and ShareAcknowledge both advance it), and closed by
 * epoch -1, by its connection closing, or after {@code group.share.session.timeout.ms} unused. At
 * most {@code group.share.max.share.sessions} exist; another member gets
 * SHARE_SESSION_LIMIT_REACHED. Thread-safe (requests of many connections at once).
 */
public final class ShareSessions {
  /** Kafka's first and last session epochs. */
  public static final int INITIAL_EPOCH = 0;

  public static final int FINAL_EPOCH = -1;

  /** A share group member, the key of its session. */
  public record Key(String groupId, String memberId) {}

  /** One partition of a session. */
  public record SessionPartition(Uuid topicId, int partition) {}

  /** A session; its fields are guarded by the {@link ShareSessions} lock. */
  public static final class Session {
    private final Key key;
    private final Set<SessionPartition> partitions = new LinkedHashSet<>();
    private int nextEpoch = 1;
    private String connectionId;
    private long lastUsedMs;

    private Session(Key key, String connectionId, long nowMs) {
      this.key = key;
      this.connectionId = connectionId;
      this.lastUsedMs = nowMs;
    }

    public Key key() {
      return key;
    }
  }

  private final int maxSessions;
  private final Map<Key, Session> sessions = new HashMap<>();

  public ShareSessions(int maxSessions) {
    this.maxSessions = maxSessions;
  }

  /**
   * Opens a session (epoch 0) with {@code partitions}. A session the member already had is closed
   * first, and returned in {@code replaced} so its records can be released.
   *
   * @throws ShareSessionLimitReachedException if the broker has its maximum of sessions
   */
  public synchronized List<SessionPartition> open(
      Key key,
      List<SessionPartition> partitions,
      String connectionId,
      long nowMs,
      List<SessionPartition> replaced) {
    Session old = sessions.remove(key);
    if (old != null) {
      replaced.addAll(old.partitions);
    }
    if (sessions.size() >= maxSessions) {
      throw new ShareSessionLimitReachedException(
          "The share session cache is full (" + maxSessions + " sessions).");
    }
    Session session = new Session(key, connectionId, nowMs);
    session.partitions.addAll(partitions);
    sessions.put(key, session);
    return List.copyOf(session.partitions);
  }

  /**
   * Continues a session at {@code epoch} (above 0), adding and removing partitions, and advances
   * its epoch.
   *
   * @return the session's partitions after the change
   * @throws ShareSessionNotFoundException if the member has no session here
   * @throws InvalidShareSessionEpochException if {@code epoch} is not the one expected
   */
  public synchronized List<SessionPartition> next(
      Key key,
      int epoch,
      List<SessionPartition> added,
      List<SessionPartition> forgotten,
      String connectionId,
      long nowMs) {
    Session session = sessions.get(key);
    if (session == null) {
      throw new ShareSessionNotFoundException("Share session not found.");
    }
    if (session.nextEpoch != epoch) {
      throw new InvalidShareSessionEpochException(
          "Share session epoch " + epoch + " is not the expected " + session.nextEpoch + ".");
    }
    session.nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    session.partitions.addAll(added);
    forgotten.forEach(session.partitions::remove);
    session.connectionId = connectionId;
    session.lastUsedMs = nowMs;
    return List.copyOf(session.partitions);
  }

  /**
   * Closes the member's session (epoch -1).
   *
   * @return its partitions, empty if it had none
   * @throws ShareSessionNotFoundException if the member has no session here
   */
  public synchronized List<SessionPartition> close(Key key) {
    Session session = sessions.remove(key);
    if (session == null) {
      throw new ShareSessionNotFoundException("Share session not found.");
    }
    return List.copyOf(session.partitions);
  }

  /** Whether the member has a session here. */
  public synchronized boolean contains(Key key) {
    return sessions.containsKey(key);
  }

  /** Whether any member of {@code groupId} has a session here. */
  public synchronized boolean hasGroup(String groupId) {
    for (Key key : sessions.keySet()) {
      if (key.groupId().equals(groupId)) {
        return true;
      }
    }
    return false;
  }

  public synchronized int size() {
    return sessions.size();
  }

  /** Removes the sessions whose last request came on {@code connectionId}. */
  public synchronized List<Session> removeConnection(String connectionId) {
    return removeIf(s -> connectionId.equals(s.connectionId));
  }

  /** Removes the sessions unused since {@code nowMs - idleMs}. */
  public synchronized List<Session> removeIdle(long nowMs, long idleMs) {
    return removeIf(s -> nowMs - s.lastUsedMs > idleMs);
  }

  /** The partitions of a removed session. */
  public static List<SessionPartition> partitionsOf(Session session) {
    return List.copyOf(session.partitions);
  }

  private List<Session> removeIf(java.util.function.Predicate<Session> condition) {
    List<Session> removed = new ArrayList<>();
    sessions
        .values()
        .removeIf(
            s -> {
              if (condition.test(s)) {
                removed.add(s);
                return true;
              }
              return false;
            });
    return removed;
  }
}
