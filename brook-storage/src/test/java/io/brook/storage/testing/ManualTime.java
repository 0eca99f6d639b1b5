package io.brook.storage.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/** A clock that moves only when a test says so. */
public final class ManualTime implements Time {
  private final AtomicLong nanos;

  public ManualTime() {
    this(1_700_000_000_000L);
  }

  public ManualTime(long startMs) {
    nanos = new AtomicLong(TimeUnit.MILLISECONDS.toNanos(startMs));
  }

  @Override
  public long milliseconds() {
    return TimeUnit.NANOSECONDS.toMillis(nanos.get());
  }

  @Override
  public long nanoseconds() {
    return nanos.get();
  }

  @Override
  public void sleep(long ms) {
    advance(ms);
  }

  @Override
  public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
    throw new UnsupportedOperationException("storage code never waits on objects");
  }

  public void advance(long ms) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }
}
