package io.brook.storage.cleaner;

import org.apache.kafka.common.utils.Time;

/**
 * Caps the cleaner's I/O rate ({@code log.cleaner.io.max.bytes.per.second}): callers report the
 * bytes they read and wrote, and are paused (on the injected clock) whenever the rate over the
 * current window is above the cap.
 *
 * <p>The window restarts every {@value #WINDOW_MS} ms: long enough to smooth one large batch, short
 * enough that a burst after an idle period is not let through at full speed for long.
 *
 * <p>Thread-safety: shared by all cleaner threads, so the cap is for the whole broker as in Kafka.
 */
public final class Throttler {
  private static final long WINDOW_MS = 300;

  private final double maxBytesPerSecond;
  private final Time time;
  private long windowStartMs;
  private double bytesInWindow;

  public Throttler(double maxBytesPerSecond, Time time) {
    this.maxBytesPerSecond = maxBytesPerSecond;
    this.time = time;
    this.windowStartMs = time.milliseconds();
  }

  /** Accounts for {@code bytes} of I/O and sleeps as long as needed to stay under the cap. */
  public void maybeThrottle(long bytes) {
    if (maxBytesPerSecond >= Double.MAX_VALUE) {
      return;
    }
    long sleepMs;
    synchronized (this) {
      bytesInWindow += bytes;
      long now = time.milliseconds();
      long elapsed = now - windowStartMs;
      if (elapsed < WINDOW_MS && bytesInWindow / maxBytesPerSecond * 1000 <= WINDOW_MS) {
        return;
      }
      double rate = bytesInWindow * 1000.0 / Math.max(1, elapsed);
      sleepMs =
          rate > maxBytesPerSecond
              ? (long) (bytesInWindow * 1000.0 / maxBytesPerSecond) - elapsed
              : 0;
      windowStartMs = now + Math.max(0, sleepMs);
      bytesInWindow = 0;
    }
    if (sleepMs > 0) {
      time.sleep(sleepMs);
    }
  }
}
