package io.brook.broker.share;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * One share-partition at this leader together with its durable copy at the share coordinator: the
 * in-memory state once it is loaded, the leader epoch it was loaded in and the state epoch the
 * coordinator gave it, and its writes.
 *
 * <p>Writes are coalesced: at most one is in flight, and the changes made meanwhile go out together
 * in the next one (each write carries the whole window, which is bounded by {@code
 * group.share.partition.max.record.locks}). A caller that must not answer before its change is
 * durable (an acknowledgement) waits for the future of the write that carries it. A failed write
 * leaves the entry dirty, and the manager's sweep writes it again.
 */
final class ShareEntry {
  /** Sends one write of the entry's current state. */
  @FunctionalInterface
  interface Writer {
    CompletableFuture<Errors> write(ShareEntry entry);
  }

  private final String groupId;
  private final Uuid topicId;
  private final int partition;
  private final int leaderEpoch;
  private volatile SharePartition state;

  /** Dead letters are not tried again before this time (the last attempt failed). */
  private volatile long deadLetterRetryAtMs;

  private final Object lock = new Object();
  // Guarded by lock.
  private int stateEpoch;
  private boolean loading;
  private long retryLoadAtMs;
  private boolean writing;
  private boolean dirty;
  private List<CompletableFuture<Errors>> waiting = new ArrayList<>();
  private List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();

  ShareEntry(String groupId, Uuid topicId, int partition, int leaderEpoch) {
    this.groupId = groupId;
    this.topicId = topicId;
    this.partition = partition;
    this.leaderEpoch = leaderEpoch;
  }

  String groupId() {
    return groupId;
  }

  Uuid topicId() {
    return topicId;
  }

  int partition() {
    return partition;
  }

  int leaderEpoch() {
    return leaderEpoch;
  }

  long deadLetterRetryAtMs() {
    return deadLetterRetryAtMs;
  }

  void deadLetterRetryAfter(long atMs) {
    deadLetterRetryAtMs = atMs;
  }

  /** The state, or null while it is being read from the share coordinator. */
  SharePartition state() {
    return state;
  }

  int stateEpoch() {
    synchronized (lock) {
      return stateEpoch;
    }
  }

  /**
   * Claims the load: true when the state is neither loaded nor loading and no retry is due later.
   */
  boolean startLoad(long nowMs) {
    synchronized (lock) {
      if (state != null || loading || nowMs < retryLoadAtMs) {
        return false;
      }
      loading = true;
      return true;
    }
  }

  void loaded(SharePartition loaded, int loadedStateEpoch) {
    synchronized (lock) {
      stateEpoch = loadedStateEpoch;
      loading = false;
      state = loaded;
    }
  }

  void loadFailed(long retryAtMs) {
    synchronized (lock) {
      loading = false;
      retryLoadAtMs = retryAtMs;
    }
  }

  /**
   * Writes the current state (now, or with the next write if one is in flight).
   *
   * @return the outcome of the write that carries the state as it is now
   */
  CompletableFuture<Errors> persist(Writer writer) {
    CompletableFuture<Errors> done = new CompletableFuture<>();
    boolean start;
    synchronized (lock) {
      waiting.add(done);
      dirty = true;
      start = !writing;
      writing = true;
    }
    if (start) {
      writeNext(writer);
    }
    return done;
  }

  /** Writes again if the last write failed and nothing wrote since. */
  void retryIfDirty(Writer writer) {
    boolean start;
    synchronized (lock) {
      start = dirty && !writing && state != null;
      writing |= start;
    }
    if (start) {
      writeNext(writer);
    }
  }

  /**
   * Completes once no write is in flight (at once when none is): what a share-partition read again
   * after this entry left memory waits for, so it reads the last write.
   */
  CompletableFuture<Void> idle() {
    synchronized (lock) {
      if (!writing) {
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> idle = new CompletableFuture<>();
      idleWaiters.add(idle);
      return idle;
    }
  }

  /** Takes the idle waiters; called under the lock when writing stops. */
  private List<CompletableFuture<Void>> takeIdleWaiters() {
    List<CompletableFuture<Void>> idle = idleWaiters;
    idleWaiters = new ArrayList<>();
    return idle;
  }

  private void writeNext(Writer writer) {
    List<CompletableFuture<Errors>> taken = null;
    List<CompletableFuture<Void>> idle = List.of();
    synchronized (lock) {
      if (!dirty) {
        writing = false;
        idle = takeIdleWaiters();
      } else {
        taken = waiting;
        waiting = new ArrayList<>();
        dirty = false;
      }
    }
    if (taken == null) {
      idle.forEach(f -> f.complete(null));
      return;
    }
    List<CompletableFuture<Errors>> carried = taken;
    CompletableFuture<Errors> written;
    try {
      written = writer.write(this);
    } catch (RuntimeException e) {
      written = CompletableFuture.completedFuture(Errors.forException(e));
    }
    written.whenComplete(
        (error, failure) -> {
          Errors outcome = failure != null ? Errors.COORDINATOR_NOT_AVAILABLE : error;
          boolean retryNow;
          List<CompletableFuture<Void>> stopped = List.of();
          synchronized (lock) {
            if (outcome != Errors.NONE) {
              // Written again by the sweep (or the next change); the state stays in memory.
              dirty = true;
            }
            retryNow = outcome == Errors.NONE && dirty;
            if (!retryNow) {
              writing = false;
              stopped = takeIdleWaiters();
            }
          }
          carried.forEach(f -> f.complete(outcome));
          stopped.forEach(f -> f.complete(null));
          if (retryNow) {
            writeNext(writer);
          }
        });
  }
}
