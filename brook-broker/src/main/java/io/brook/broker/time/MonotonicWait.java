package io.brook.broker.time;

import java.util.function.Supplier;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.utils.Time;

/**
 * A wait on an object's monitor that ends when a condition holds or a deadline on the clock's
 * monotonic milliseconds ({@link Time#hiResClockMs}) passes. {@link Time#waitObject} takes its
 * deadline on the wall clock ({@link Time#milliseconds}), so a wall clock stepped back while it
 * waits (NTP, an operator, libfaketime) stretches the wait by the step, and one stepped forward
 * cuts it short. Here the wall clock only paces the waiting: the monotonic deadline is part of the
 * condition, and a wait the wall clock ended early is resumed. Waiting through {@link
 * Time#waitObject} keeps it on the injected clock, so a test clock ({@link MockTime}) decides when
 * it ends.
 */
public final class MonotonicWait {
  private MonotonicWait() {}

  /**
   * Waits on {@code lock} (notified when {@code condition} may have changed) until {@code
   * condition} holds, evaluated while holding {@code lock}, or {@code time.hiResClockMs()} reaches
   * {@code deadlineMs}.
   */
  public static void until(Time time, Object lock, Supplier<Boolean> condition, long deadlineMs)
      throws InterruptedException {
    while (true) {
      long leftMs = deadlineMs - time.hiResClockMs();
      if (leftMs <= 0) {
        return;
      }
      try {
        time.waitObject(
            lock,
            () -> condition.get() || time.hiResClockMs() - deadlineMs >= 0,
            time.milliseconds() + leftMs);
        return;
      } catch (TimeoutException wallClockFirst) {
        // The wall clock reached its deadline first (it was stepped forward): wait out the rest.
      }
    }
  }
}
