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

  /**
   * Backward drift adds up over this long, so a clock running slow (which goes back against the
   * monotonic clock a little at every check) is noticed too; NTP's slew, at most 0.5 ms a second,
   * never adds up to a step within it.
   */
  static final long WINDOW_MS = 10_000;

  private final LongSupplier wallMs;
  private final LongSupplier monotonicMs;
  private long lastWallMs;
  private long lastMonotonicMs;

  /** Backward drift not reported yet (0 or less), added up since {@link #windowStartMs}. */
  private long behindMs;

  private long windowStartMs;

  WallClockWatch(LongSupplier wallMs, LongSupplier monotonicMs) {
    this.wallMs = wallMs;
    this.monotonicMs = monotonicMs;
    this.lastWallMs = wallMs.getAsLong();
    this.lastMonotonicMs = monotonicMs.getAsLong();
    this.windowStartMs = lastMonotonicMs;
  }

  /**
   * How far the wall clock went back against the monotonic clock, in one step or added up over
   * {@link #WINDOW_MS}: milliseconds once that reaches {@link #STEP_THRESHOLD_MS}, else 0. Forward
   * moves cancel earlier backward drift and are never reported themselves (timers fire early then,
   * which costs a retry at most); a preemption between the two clock reads shows as a drift back at
   * one check and forward at the next, so it cancels too.
   */
  long steppedBackMs() {
    long wall = wallMs.getAsLong();
    long monotonic = monotonicMs.getAsLong();
    long drift = (wall - lastWallMs) - (monotonic - lastMonotonicMs);
    lastWallMs = wall;
    lastMonotonicMs = monotonic;
    if (monotonic - windowStartMs >= WINDOW_MS) {
      windowStartMs = monotonic;
      behindMs = 0;
    }
    behindMs = Math.min(0, behindMs + drift);
    if (behindMs > -STEP_THRESHOLD_MS) {
      return 0;
    }
    long back = -behindMs;
    behindMs = 0;
    return back;
  }
}
