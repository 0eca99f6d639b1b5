package io.brook.broker.replica;

/**
 * The leader's view of one follower, learned from its fetches: how far its log reaches and when it
 * was last caught up, which decide its ISR membership.
 *
 * <p>"Caught up" follows Kafka's rule: a fetch at or past the leader's log end offset means caught
 * up now; a fetch at or past the log end offset the leader had at the follower's previous fetch
 * means it was caught up at that previous fetch. So a follower of a busy leader, which can never
 * equal the moving log end, still counts as caught up while it keeps pace.
 *
 * <p>Times are the clock's monotonic milliseconds ({@code Time.hiResClockMs()}): a wall clock
 * stepped forward would otherwise drop every follower from the ISR at once, and one stepped back
 * would keep a dead follower in it for as long as the step.
 *
 * <p>Thread-safe: fetches update it under its own lock; the log end offset is read without one.
 */
final class FollowerState {
  /** A time before any other: never caught up, or no fetch yet. */
  static final long NEVER = Long.MIN_VALUE;

  private volatile long logEndOffset = -1;
  private long lastCaughtUpTimeMs;
  private long lastFetchTimeMs = NEVER;
  private long lastFetchLeaderLogEndOffset = -1;
  private long brokerEpoch = -1;
  private volatile long logStartOffset = -1;

  /**
   * @param caughtUpAtMs when the follower counts as last caught up before any fetch: now for an ISR
   *     member (so a new leader does not shrink its ISR at once), {@link #NEVER} for the others
   */
  FollowerState(long caughtUpAtMs) {
    this.lastCaughtUpTimeMs = caughtUpAtMs;
  }

  /**
   * @param followerLogStartOffset the log start offset the follower sent (-1 if unknown)
   * @return whether the follower's log start offset moved (a DeleteRecords may be waiting on it)
   */
  synchronized boolean onFetch(
      long fetchOffset,
      long followerLogStartOffset,
      long leaderLogEndOffset,
      long nowMs,
      long followerBrokerEpoch) {
    if (fetchOffset >= leaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
    } else if (fetchOffset >= lastFetchLeaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
    }
    logEndOffset = fetchOffset;
    lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    lastFetchTimeMs = nowMs;
    // Always the latest: a restarted follower fetches with -1 until it registers again.
    brokerEpoch = followerBrokerEpoch;
    boolean startMoved = followerLogStartOffset != logStartOffset;
    logStartOffset = followerLogStartOffset;
    return startMoved;
  }

  /** The follower's log start offset as of its last fetch, or -1 before its first. */
  long logStartOffset() {
    return logStartOffset;
  }

  /** The follower's log end offset as of its last fetch, or -1 before its first. */
  long logEndOffset() {
    return logEndOffset;
  }

  synchronized long lastCaughtUpTimeMs() {
    return lastCaughtUpTimeMs;
  }

  /** The broker epoch the follower sent with its last fetch, or -1. */
  synchronized long brokerEpoch() {
    return brokerEpoch;
  }

  synchronized boolean caughtUpWithin(long nowMs, long lagTimeMaxMs) {
    return lastCaughtUpTimeMs != NEVER && nowMs - lastCaughtUpTimeMs <= lagTimeMaxMs;
  }
}
