package io.brook.controller.quorum;

import java.util.function.LongSupplier;

/**
 * Notices the wall clock stepping back against the monotonic clock (an NTP step, an operator, a VM
 * restored from a snapshot). Apache Ratis times its retries and request timeouts with {@link
 * java.util.Timer}s, which run on the wall clock: after a step back of S, a timeout scheduled
 * before the step fires up to S late, and the timer's later tasks wait behind it. A Raft leader
 * whose append timeouts stall stops replicating while the other voters keep electing it; the quorum
 * reacts to what this reports ({@link RaftMetadataQuorum}).
 *
 * <p>Not thread-safe: one thread checks it.
 */
final class WallClockWatch {
  /**
   * Smaller steps are left alone: NTP slews rather than steps below 128 ms, and reading the two
   * clocks a preemption apart on a loaded machine can look like a step of a few hundred.
   */
  static final long STEP_THRESHOLD_MS = 1_000;

  private final LongSupplier wallMs;
  private final LongSupplier monotonicMs;
  private long lastWallMs;
  private long lastMonotonicMs;

  WallClockWatch(LongSupplier wallMs, LongSupplier monotonicMs) {
    this.wallMs = wallMs;
    this.monotonicMs = monotonicMs;
    this.lastWallMs = wallMs.getAsLong();
    this.lastMonotonicMs = monotonicMs.getAsLong();
  }

  /**
   * How far the wall clock went back, against the monotonic clock, since the previous check:
   * milliseconds if at least {@link #STEP_THRESHOLD_MS}, else 0 (forward steps included: timers
   * fire early then, which costs a retry at most).
   */
  long steppedBackMs() {
    long wall = wallMs.getAsLong();
    long monotonic = monotonicMs.getAsLong();
    long drift = (wall - lastWallMs) - (monotonic - lastMonotonicMs);
    lastWallMs = wall;
    lastMonotonicMs = monotonic;
    return drift <= -STEP_THRESHOLD_MS ? -drift : 0;
  }
}
