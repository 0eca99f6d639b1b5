package io.brook.broker.cluster;

import java.util.function.LongSupplier;

/**
 * How long this broker may trust the leaderships its metadata shows. The controller moves a
 * broker's leaderships only after fencing it, and fences a broker whose process still runs only
 * once {@code broker.session.timeout.ms} passed without a heartbeat from it. So while less than
 * that time has passed since this broker sent a heartbeat that the controller answered "unfenced",
 * no other broker can have taken over what it leads; once more has passed (a long GC or VM pause, a
 * SIGSTOP, a network partition from the controller), it may have been fenced without having seen it
 * yet, and whatever it answers from its leaderships' state may be stale.
 *
 * <p>What a stale leader answers wrongly is a read: a write it accepts cannot commit, since the
 * other replicas follow the new leader. Coordinators, which answer reads from memory (committed
 * offsets above all), serve only while the lease is held; otherwise they answer NOT_COORDINATOR and
 * the client finds the current coordinator. Kafka has no such lease: a broker resuming from a pause
 * serves its coordinators' state until it applies the metadata that moved them.
 *
 * <p>The controller's liveness probe fences faster (one heartbeat interval) when the broker's
 * connection closes, which is meant for a process that is gone and cannot answer; a connection
 * reset by something between the two while the process lives is the case the lease does not cover.
 *
 * <p>Thread-safe; renewed by the heartbeat thread, read by request threads.
 */
public final class LeadershipLease {
  private final long durationNanos;
  private final LongSupplier nanoClock;
  private final boolean unconditional;

  /** When the lease ends, on {@link #nanoClock}; meaningless while {@link #granted} is false. */
  private volatile long expiresAtNanos;

  private volatile boolean granted;

  /**
   * @param durationMs {@code broker.session.timeout.ms}, which must match the controllers'
   * @param nanoClock a monotonic clock ({@link System#nanoTime()} in production)
   */
  public LeadershipLease(long durationMs, LongSupplier nanoClock) {
    this(durationMs * 1_000_000, nanoClock, false);
  }

  private LeadershipLease(long durationNanos, LongSupplier nanoClock, boolean unconditional) {
    if (durationNanos <= 0 && !unconditional) {
      throw new IllegalArgumentException("a lease lasts a positive time, not " + durationNanos);
    }
    this.durationNanos = durationNanos;
    this.nanoClock = nanoClock;
    this.unconditional = unconditional;
  }

  /**
   * A lease that is always held: for a broker without a controller to answer to, as in tests that
   * drive a replica manager directly.
   */
  public static LeadershipLease unconditional() {
    return new LeadershipLease(0, System::nanoTime, true);
  }

  /** The lease's clock now: what a heartbeat's send time is read with. */
  public long now() {
    return nanoClock.getAsLong();
  }

  /**
   * The controller answered "unfenced" to a heartbeat sent at {@code sentAtNanos} ({@link #now}):
   * the lease runs until a session timeout after that send. Never shortens a later renewal.
   */
  public synchronized void renew(long sentAtNanos) {
    long expires = sentAtNanos + durationNanos;
    if (!granted || expires - expiresAtNanos > 0) {
      expiresAtNanos = expires;
      granted = true;
    }
  }

  /** The controller reported this broker fenced or no longer registered: the lease ends now. */
  public synchronized void revoke() {
    granted = false;
  }

  /** Whether this broker's leaderships are still its own. */
  public boolean held() {
    return unconditional || (granted && expiresAtNanos - nanoClock.getAsLong() > 0);
  }
}
