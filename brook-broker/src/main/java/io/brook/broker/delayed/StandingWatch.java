package io.brook.broker.delayed;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * A registration that outlives the operations parked through it: a fetch session's, which parks one
 * fetch after another over much the same partitions (a follower's session holds every partition it
 * follows from this leader, thousands of them, and parks a fetch twice a second when they are
 * idle). Registering each parked fetch under each of its partitions and removing it again cost a
 * concurrent map update and a skip-list insert and removal per partition per fetch; this watch
 * stays registered under its partitions and each fetch only takes its single slot.
 *
 * <p>At most one operation is parked through the watch at a time (a session's client waits for an
 * answer before its next fetch); a second one while the first still waits is registered the usual
 * way. The partitions the watch is registered under follow the parked operations': each park adds
 * the new ones and drops those the operation no longer names, so a partition the session forgot
 * keeps no entry past the session's next parked fetch, and {@link #close} drops them all when the
 * session ends. A watch registered under a partition no parked operation names costs only a skipped
 * entry when that partition progresses.
 *
 * <p>Lost wake-ups, as for {@link DelayedOperations#submit}: the registrations and the slot are set
 * before the operation's condition is checked a last time, so progress before that is seen by the
 * check and progress after it finds the operation in the slot.
 */
public final class StandingWatch {
  private static final AtomicLong CREATED = new AtomicLong();
  private static final VarHandle PARKED;

  static {
    try {
      PARKED =
          MethodHandles.lookup()
              .findVarHandle(StandingWatch.class, "parked", DelayedOperation.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Progress visits a partition's watches in creation order, as it does its operations. */
  final long sequence = CREATED.getAndIncrement();

  private final DelayedOperations owner;

  /** The operation parked through this watch, or null; read by progress without a lock. */
  @SuppressWarnings("unused") // through PARKED
  private volatile DelayedOperation parked;

  /** The partitions this watch is registered under, with the park that last named each. */
  private final Map<TopicPartition, long[]> registered = new HashMap<>();

  private long parks;
  private boolean closed;

  StandingWatch(DelayedOperations owner) {
    this.owner = owner;
  }

  /** The operation parked through this watch, or null. */
  DelayedOperation parked() {
    return (DelayedOperation) PARKED.getVolatile(this);
  }

  /**
   * Registers this watch under {@code operation}'s partitions (only those it was not registered
   * under yet) and parks the operation in its slot; false, changing nothing, if the watch is closed
   * or another operation still waits in the slot.
   */
  synchronized boolean park(DelayedOperation operation) {
    DelayedOperation previous = parked();
    if (closed || (previous != null && !previous.isCompleted())) {
      return false;
    }
    long park = ++parks;
    List<TopicPartition> partitions = operation.partitions();
    for (TopicPartition tp : partitions) {
      long[] lastPark = registered.get(tp);
      if (lastPark == null) {
        registered.put(tp, new long[] {park});
        owner.addStanding(tp, this);
      } else {
        lastPark[0] = park;
      }
    }
    if (registered.size() > partitions.size()) {
      for (Iterator<Map.Entry<TopicPartition, long[]>> it = registered.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<TopicPartition, long[]> entry = it.next();
        if (entry.getValue()[0] != park) {
          it.remove();
          owner.removeStanding(entry.getKey(), this);
        }
      }
    }
    operation.standing = this;
    PARKED.setVolatile(this, operation);
    return true;
  }

  /** Empties the slot if {@code operation} is still in it (it completed). */
  void release(DelayedOperation operation) {
    PARKED.compareAndSet(this, operation, null);
  }

  /**
   * The session ended: the watch leaves every partition, and an operation still parked in it, which
   * nothing would wake any more, is answered as if its wait had ended (on the deadline timer's
   * thread: the caller may hold locks an answer must not be built under).
   */
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (TopicPartition tp : registered.keySet()) {
      owner.removeStanding(tp, this);
    }
    registered.clear();
    DelayedOperation waiting = parked();
    if (waiting != null && !waiting.isCompleted()) {
      owner.expireSoon(waiting);
    }
  }

  /** Number of partitions this watch is registered under; for tests. */
  synchronized int registeredPartitions() {
    return registered.size();
  }
}
