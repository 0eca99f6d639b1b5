package io.brook.broker.delayed;

import io.brook.broker.replica.Partition;
import io.brook.broker.time.DeadlineScheduler;
import io.brook.broker.time.Scheduler;
import java.io.Closeable;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting room for delayed operations ("purgatory"). Each parked operation is registered under
 * every partition it reads, in that partition's {@link Watchers}; progress on a partition visits
 * only that partition's watchers, and an append that moved the log end but not the high watermark
 * visits only the operations that read up to the log end (follower fetches). Deadlines run on an
 * injected {@link Scheduler}: in production a timer thread of its own ({@link DeadlineScheduler}),
 * so no thread sleeps on behalf of a request, and parking and completing an operation cost a
 * deadline queued and removed without waking that thread; in a deterministic test a manual
 * scheduler, which expires an operation exactly when its clock passes the deadline.
 *
 * <p>A fetch session parks its fetches through a {@link StandingWatch} instead: registered once
 * under the session's partitions, it holds one parked operation at a time, so a follower's session
 * of thousands of partitions does not register and remove every fetch under each of them.
 *
 * <p>Completion is exactly once: an operation completes through {@link DelayedOperation#complete},
 * a compare-and-set, whichever of progress on any of its partitions (on the thread that made it),
 * its timer or {@link #close} comes first. Whoever completes it removes it from every partition it
 * was registered under (or from its standing watch's slot), so the structure holds only operations
 * still waiting and the standing watches of live sessions: its size is bounded by the requests in
 * flight and the sessions' partitions, and a partition's entry goes when its last watcher does.
 *
 * <p>Lost wake-ups: {@link #submit} registers the operation before checking its condition a second
 * time, so progress made before the registration is seen by that check and progress made after it
 * finds the operation registered. Registration and removal of a partition's entry both run inside
 * {@link ConcurrentHashMap#compute}, so an entry is never dropped while an operation is being added
 * to it. {@link #close} racing a submit: the submit registers, then reads {@code closed}; close
 * sets {@code closed}, then expires what is registered; one of the two sees the other.
 */
public final class DelayedOperations implements Partition.HighWatermarkListener, Closeable {
  private static final Logger log = LoggerFactory.getLogger(DelayedOperations.class);

  /**
   * Not a partition (no topic has an empty name): an operation that lists it among its partitions
   * is re-checked each time this broker has applied a metadata image ({@link #onMetadataApplied}),
   * as a follower fetch naming a partition this node's metadata does not have yet.
   */
  public static final TopicPartition NEXT_METADATA_IMAGE = new TopicPartition("", -1);

  private final ConcurrentHashMap<TopicPartition, Watchers> watchers = new ConcurrentHashMap<>();
  private final Scheduler timer;

  /** The timer this instance built and stops on {@link #close}; null for an injected one. */
  private final DeadlineScheduler ownTimer;

  private volatile boolean closed;

  /** With a timer of its own, on thread {@code brook-delayed-ops}. */
  public DelayedOperations() {
    this.ownTimer = new DeadlineScheduler("brook-delayed-ops");
    this.timer = ownTimer;
  }

  /** Deadlines on {@code timer}, which stays its owner's to stop. */
  public DelayedOperations(Scheduler timer) {
    this.ownTimer = null;
    this.timer = timer;
  }

  private static final Comparator<DelayedOperation> BY_CREATION =
      Comparator.comparingLong(operation -> operation.sequence);

  private static final Comparator<StandingWatch> WATCHES_BY_CREATION =
      Comparator.comparingLong(watch -> watch.sequence);

  /**
   * The operations parked on one partition, split by what they wait for. Both sets are concurrent:
   * progress iterates them without a lock while other threads add and remove operations.
   */
  private static final class Watchers {
    // Ordered by creation, so operations woken together complete in the same order on every run
    // (an identity-hashed set would make the deterministic simulation differ from run to run).
    final Set<DelayedOperation> highWatermark = new ConcurrentSkipListSet<>(BY_CREATION);
    final Set<DelayedOperation> logEnd = new ConcurrentSkipListSet<>(BY_CREATION);

    /** Sessions' standing watches, whether or not an operation is parked in them now. */
    final Set<StandingWatch> standing = new ConcurrentSkipListSet<>(WATCHES_BY_CREATION);

    Set<DelayedOperation> setFor(DelayedOperation operation) {
      return operation.waitsOn() == DelayedOperation.WaitsOn.LOG_END ? logEnd : highWatermark;
    }

    boolean isEmpty() {
      return highWatermark.isEmpty() && logEnd.isEmpty() && standing.isEmpty();
    }

    /** The operations waiting on the partition, those parked in standing watches included. */
    int size() {
      int parkedInWatches = 0;
      for (StandingWatch watch : standing) {
        DelayedOperation operation = watch.parked();
        if (operation != null && !operation.isCompleted()) {
          parkedInWatches++;
        }
      }
      return highWatermark.size() + logEnd.size() + parkedInWatches;
    }
  }

  /**
   * A watch for a fetch session, registered under its partitions for as long as the session lives
   * (the caller closes it when the session ends); see {@link #submit(DelayedOperation, long,
   * StandingWatch)}.
   */
  public StandingWatch newStandingWatch() {
    return new StandingWatch(this);
  }

  void addStanding(TopicPartition tp, StandingWatch watch) {
    watchers.compute(
        tp,
        (key, existing) -> {
          Watchers w = existing != null ? existing : new Watchers();
          w.standing.add(watch);
          return w;
        });
  }

  void removeStanding(TopicPartition tp, StandingWatch watch) {
    watchers.computeIfPresent(
        tp,
        (key, w) -> {
          w.standing.remove(watch);
          return w.isEmpty() ? null : w;
        });
  }

  /** Completes {@code operation} as timed out on the timer's thread, soon. */
  void expireSoon(DelayedOperation operation) {
    try {
      timer.schedule("standing-watch-closed", () -> expire(operation), 0);
    } catch (RejectedExecutionException stopped) {
      // Closing: close() answers every parked operation.
    }
  }

  /**
   * Completes {@code operation} now if it can, else parks it until progress on one of its
   * partitions satisfies it or {@code timeoutMs} passes (0 or less: on the timer's next run).
   */
  public void submit(DelayedOperation operation, long timeoutMs) {
    submit(operation, timeoutMs, null);
  }

  /**
   * {@link #submit(DelayedOperation, long)}, parking the operation in {@code standing}'s slot when
   * that is free: the watch is already registered under most of the operation's partitions, so
   * parking costs a lookup per partition rather than a registration and a removal. Null, a busy
   * slot or a closed watch: registered under each partition as usual.
   */
  public void submit(DelayedOperation operation, long timeoutMs, StandingWatch standing) {
    if (operation.tryComplete()) {
      return;
    }
    if (closed) {
      operation.complete(true);
      return;
    }
    if (standing == null || !standing.park(operation)) {
      for (TopicPartition tp : operation.partitions()) {
        watchers.compute(
            tp,
            (key, existing) -> {
              Watchers w = existing != null ? existing : new Watchers();
              w.setFor(operation).add(operation);
              return w;
            });
      }
    }
    // Progress on a partition registered above may have completed the operation before the later
    // ones were registered, so its completer's removal may have missed them.
    if (operation.isCompleted()) {
      unwatch(operation);
      return;
    }
    try {
      operation.setTimeout(timer.schedule("delayed-operation", () -> expire(operation), timeoutMs));
    } catch (RejectedExecutionException stopped) {
      // The timer stopped (the node is closing) while this operation was being registered.
      expire(operation);
      return;
    }
    if (closed) {
      // close() may have expired the registered operations before this one was registered.
      expire(operation);
      return;
    }
    // Progress may have happened between the first check and the registration above.
    if (operation.tryComplete()) {
      unwatch(operation);
    }
  }

  /** Completes an operation as timed out and removes it, even if its answer fails to build. */
  private void expire(DelayedOperation operation) {
    try {
      operation.complete(true);
    } finally {
      unwatch(operation);
    }
  }

  /**
   * The high watermark, the last stable offset, the role or the existence of {@code topicPartition}
   * may have changed: re-checks every operation parked on it.
   */
  @Override
  public void onProgress(TopicPartition topicPartition) {
    Watchers w = watchers.get(topicPartition);
    if (w != null) {
      check(topicPartition, w.logEnd);
      check(topicPartition, w.highWatermark);
      checkStanding(topicPartition, w.standing, null);
    }
  }

  /**
   * Only a follower's log start moved: re-checks only the operations that wait on the high
   * watermark side (a DeleteRecords waits for the low watermark), not the follower fetches.
   */
  @Override
  public void onLowWatermarkMoved(TopicPartition topicPartition) {
    Watchers w = watchers.get(topicPartition);
    if (w != null) {
      check(topicPartition, w.highWatermark);
      checkStanding(topicPartition, w.standing, DelayedOperation.WaitsOn.HIGH_WATERMARK);
    }
  }

  /**
   * This broker applied a metadata image (its partitions, roles and topic names are now the
   * image's): re-checks the operations parked on {@link #NEXT_METADATA_IMAGE}, on the timer's
   * thread, since those it completes read their partitions again to answer, and the caller (the
   * metadata publisher) has the next image to apply.
   */
  public void onMetadataApplied() {
    if (!watchers.containsKey(NEXT_METADATA_IMAGE)) {
      return;
    }
    try {
      timer.schedule("metadata-applied", () -> onProgress(NEXT_METADATA_IMAGE), 0);
    } catch (RejectedExecutionException stopped) {
      // Closing: close() answers every parked operation.
    }
  }

  /**
   * Only the log end of {@code topicPartition} moved (an append the followers have not fetched
   * yet): re-checks only the operations that read up to the log end.
   */
  @Override
  public void onLogEndMoved(TopicPartition topicPartition) {
    Watchers w = watchers.get(topicPartition);
    if (w != null) {
      check(topicPartition, w.logEnd);
      checkStanding(topicPartition, w.standing, DelayedOperation.WaitsOn.LOG_END);
    }
  }

  private void check(TopicPartition topicPartition, Set<DelayedOperation> waiting) {
    if (waiting.isEmpty()) {
      return; // no iterator on the append path when nothing waits
    }
    for (DelayedOperation operation : waiting) {
      check(topicPartition, operation);
    }
  }

  /**
   * Checks the operations parked in the standing watches of {@code topicPartition} that wait on
   * {@code waitsOn} (any, if null).
   */
  private void checkStanding(
      TopicPartition topicPartition,
      Set<StandingWatch> standing,
      DelayedOperation.WaitsOn waitsOn) {
    if (standing.isEmpty()) {
      return;
    }
    for (StandingWatch watch : standing) {
      DelayedOperation operation = watch.parked();
      if (operation != null && (waitsOn == null || operation.waitsOn() == waitsOn)) {
        check(topicPartition, operation);
      }
    }
  }

  private void check(TopicPartition topicPartition, DelayedOperation operation) {
    try {
      if (operation.isCompleted() || operation.tryComplete()) {
        unwatch(operation);
      }
    } catch (RuntimeException e) {
      // A condition that cannot be evaluated would otherwise wait for its timer: answer now.
      // Nothing is thrown back to the appender, whose own write succeeded.
      log.error("Delayed operation failed on progress of topicPartition={}", topicPartition, e);
      try {
        operation.complete(false);
      } catch (RuntimeException again) {
        log.error("Answering a failed delayed operation failed", again);
      } finally {
        unwatch(operation);
      }
    }
  }

  /** Removes a completed operation from wherever it was parked. */
  private void unwatch(DelayedOperation operation) {
    StandingWatch standing = operation.standing;
    if (standing != null) {
      standing.release(operation); // the watch itself stays registered for the session's next
      return;
    }
    for (TopicPartition tp : operation.partitions()) {
      watchers.computeIfPresent(
          tp,
          (key, w) -> {
            w.setFor(operation).remove(operation);
            return w.isEmpty() ? null : w;
          });
    }
  }

  /** Number of parked operations watching {@code tp}; for tests and metrics. */
  public int waiting(TopicPartition tp) {
    Watchers w = watchers.get(tp);
    return w == null ? 0 : w.size();
  }

  /** Number of partitions with at least one parked operation; for tests and metrics. */
  public int watchedPartitions() {
    return watchers.size();
  }

  /**
   * Answers now, as if their wait had ended, every operation parked until a log end moves (the
   * followers' fetches), so that each is told the offsets of the moment.
   */
  public void completeLogEndWaiters() {
    for (Watchers w : watchers.values()) {
      for (DelayedOperation operation : w.logEnd) {
        expire(operation);
      }
      expireStanding(w, DelayedOperation.WaitsOn.LOG_END);
    }
  }

  private void expireStanding(Watchers w, DelayedOperation.WaitsOn waitsOn) {
    for (StandingWatch watch : w.standing) {
      DelayedOperation operation = watch.parked();
      if (operation != null && (waitsOn == null || operation.waitsOn() == waitsOn)) {
        expire(operation);
      }
    }
  }

  /**
   * Completes every parked operation as timed out and stops the timer if it is this instance's. An
   * operation being submitted meanwhile completes too: {@link #submit} sees {@code closed} after
   * registering it, or this sees it registered.
   */
  @Override
  public void close() {
    closed = true;
    if (ownTimer != null) {
      ownTimer.close();
    }
    for (Watchers w : watchers.values()) {
      for (DelayedOperation operation : w.logEnd) {
        expire(operation);
      }
      for (DelayedOperation operation : w.highWatermark) {
        expire(operation);
      }
      expireStanding(w, null);
    }
  }
}
