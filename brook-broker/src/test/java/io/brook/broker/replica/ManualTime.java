package io.brook.broker.replica;

import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/** A clock that moves only when told, for the replication tests. */
final class ManualTime implements Time {
  private volatile long nowMs = 1_000_000;

  void advance(long ms) {
    nowMs += ms;
  }

  @Override
  public long milliseconds() {
    return nowMs;
  }

  @Override
  public long nanoseconds() {
    return nowMs * 1_000_000;
  }

  @Override
  public void sleep(long ms) {
    advance(ms);
  }

  @Override
  public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
    throw new UnsupportedOperationException();
  }
}
