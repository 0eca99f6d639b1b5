package io.brook.broker.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link MonotonicWait} on a {@link MockTime} whose wall clock is stepped while a thread waits: the
 * wait ends when the monotonic clock reaches the deadline, whichever way the wall clock went.
 */
class MonotonicWaitTest {
  private static final long WAIT_MS = 1_000;

  private final MockTime time = new MockTime();
  private final Object lock = new Object();

  /** Released each time the waiter evaluates its condition, which it does holding the lock. */
  private final Semaphore evaluations = new Semaphore(0);

  /** The wall clock when the waiter last evaluated its condition. */
  private final AtomicLong lastEvaluationWallMs = new AtomicLong(Long.MIN_VALUE);

  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /** A thread waiting {@link #WAIT_MS} for a condition that never holds. */
  private Thread waiter() {
    long deadline = time.hiResClockMs() + WAIT_MS;
    Thread waiter =
        new Thread(
            () -> {
              try {
                MonotonicWait.until(
                    time,
                    lock,
                    () -> {
                      lastEvaluationWallMs.set(time.milliseconds());
                      evaluations.release();
                      return false;
                    },
                    deadline);
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "monotonic-waiter");
    waiter.start();
    return waiter;
  }

  @Test
  void aWallClockSteppedBackDoesNotStretchTheWait() throws Exception {
    // Given: a thread waiting (it evaluated its condition and, holding the lock, went to wait)
    Thread waiter = waiter();
    evaluations.acquire();

    // When: the wall clock is stepped an hour back, then the monotonic clock reaches the deadline
    time.stepWallClock(-3_600_000);
    time.sleep(WAIT_MS);

    // Then: the wait is over (a wall-clock deadline would still be an hour away)
    waiter.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(waiter.isAlive()).isFalse();
    assertThat(failure.get()).isNull();
  }

  @Test
  void aWallClockSteppedForwardDoesNotCutTheWaitShort() throws Exception {
    // Given
    Thread waiter = waiter();
    evaluations.acquire();

    // When: the wall clock jumps an hour ahead, past the wall-clock deadline of the wait
    time.stepWallClock(3_600_000);
    long stepped = time.milliseconds();

    // Then: the waiter sees the stepped clock (it may have been waiting, or just evaluated its
    // condition and not yet waited) and, finding only the wall deadline passed, waits again
    // instead of ending: after an evaluation at the stepped time it is either waiting (right) or
    // gone (the wall clock cut the wait short)
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                lastEvaluationWallMs.get() >= stepped
                    && (waiter.getState() == Thread.State.WAITING
                        || waiter.getState() == Thread.State.TERMINATED));
    assertThat(waiter.getState()).isEqualTo(Thread.State.WAITING);

    // And the monotonic deadline ends it
    time.sleep(WAIT_MS);
    waiter.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(waiter.isAlive()).isFalse();
    assertThat(failure.get()).isNull();
  }
}
