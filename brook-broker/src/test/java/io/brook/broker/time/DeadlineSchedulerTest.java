package io.brook.broker.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The production timer on its thread. Most tests run it on a {@link MockTime}, so what is due is
 * decided by the test, not by how fast the machine is: moving the clock has the thread look at its
 * queue, and a test then waits for a task scheduled for now ({@link #runDue}), which runs after
 * everything due before it.
 */
class DeadlineSchedulerTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final long NEVER_MS = TimeUnit.HOURS.toMillis(1);

  private final MockTime time = new MockTime();
  private final DeadlineScheduler scheduler = new DeadlineScheduler("test-deadlines", time);
  private final List<String> runs = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    scheduler.close();
  }

  private Runnable record(String name) {
    return () -> runs.add(name + "@" + time.hiResClockMs());
  }

  /** Has the thread run everything due now, and waits until it did. */
  private void runDue() {
    CountDownLatch ran = new CountDownLatch(1);
    scheduler.schedule("run-due", ran::countDown, 0);
    await().atMost(PATIENCE).until(() -> ran.getCount() == 0);
  }

  @Test
  void dueTasksRunInDeadlineOrderThenInTheOrderTheyWereScheduledAndNothingEarly() {
    // Given
    scheduler.schedule("late", record("late"), 30);
    scheduler.schedule("first", record("first"), 10);
    scheduler.schedule("middle", record("middle"), 20);
    scheduler.schedule("second", record("second"), 10);

    // When: the clock reaches the first deadline
    time.sleep(10);
    runDue();

    // Then: only what was due ran
    assertThat(runs).containsExactly("first@10", "second@10");

    // When: it passes the others
    time.sleep(100);
    runDue();

    // Then
    assertThat(runs).containsExactly("first@10", "second@10", "middle@110", "late@110");
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aCancelledTaskNeverRunsAndLeavesTheQueueAtOnce() {
    // Given
    Scheduler.Task cancelled = scheduler.schedule("cancelled", record("cancelled"), 10);
    scheduler.schedule("kept", record("kept"), 10);

    // When
    boolean first = cancelled.cancel();
    boolean again = cancelled.cancel();

    // Then: gone before its deadline, and only the first cancel stopped it
    assertThat(first).isTrue();
    assertThat(again).isFalse();
    assertThat(scheduler.pending()).isEqualTo(1);
    time.sleep(10);
    runDue();
    assertThat(runs).containsExactly("kept@10");
  }

  @Test
  void cancellingATaskThatRanSaysItStoppedNothing() {
    // Given
    Scheduler.Task task = scheduler.schedule("once", record("once"), 0);
    runDue();

    // When / Then
    assertThat(task.cancel()).isFalse();
    assertThat(runs).containsExactly("once@0");
  }

  @Test
  void aPeriodicTaskRunsOncePerPeriodAfterItsLastRunUntilCancelled() {
    // Given
    Scheduler.Task task = scheduler.schedulePeriodic("tick", record("tick"), 5, 10);

    // When: the first run is due, then the clock jumps three periods at once
    time.sleep(5);
    runDue();
    time.sleep(30);
    runDue();

    // Then: one run per time the thread found it due; the next is a period after the last run
    assertThat(runs).containsExactly("tick@5", "tick@35");
    assertThat(scheduler.pending()).isEqualTo(1);

    // When
    assertThat(task.cancel()).isTrue();
    time.sleep(100);
    runDue();

    // Then
    assertThat(runs).containsExactly("tick@5", "tick@35");
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aPeriodicTaskCancelledByItsOwnRunIsNotScheduledAgain() {
    // Given
    AtomicInteger ran = new AtomicInteger();
    Scheduler.Task[] task = new Scheduler.Task[1];
    task[0] =
        scheduler.schedulePeriodic(
            "self-cancelling",
            () -> {
              ran.incrementAndGet();
              task[0].cancel();
            },
            NEVER_MS,
            1);

    // When
    time.sleep(NEVER_MS);
    runDue();
    time.sleep(NEVER_MS);
    runDue();

    // Then
    assertThat(ran.get()).isEqualTo(1);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aTaskThatThrowsAnErrorDoesNotStopTheThread() {
    // Given
    scheduler.schedule(
        "failing",
        () -> {
          throw new AssertionError("expected in this test");
        },
        0);
    scheduler.schedule("after", record("after"), 0);

    // When
    runDue();

    // Then
    assertThat(runs).containsExactly("after@0");
  }

  @Test
  void schedulingAndCancellingLaterDeadlinesNeverWakesTheThread() {
    // Given: the thread sleeps until the earliest deadline, an hour away
    try (DeadlineScheduler real = new DeadlineScheduler("test-real-clock")) {
      real.schedule("anchor", () -> {}, NEVER_MS);
      await().atMost(PATIENCE).until(real::sleepsUntilADeadline);
      long wakeUps = real.wakeUps();

      // When: many operations park and complete, each scheduling a later deadline and cancelling it
      for (int i = 0; i < 100_000; i++) {
        Scheduler.Task timeout = real.schedule("parked", () -> {}, NEVER_MS + 1 + i % 1_000);
        assertThat(timeout.cancel()).isTrue();
      }

      // Then: nothing woke the thread, and only the anchor is left
      assertThat(real.wakeUps()).isEqualTo(wakeUps);
      assertThat(real.pending()).isEqualTo(1);

      // When: an earlier deadline arrives
      CountDownLatch ran = new CountDownLatch(1);
      real.schedule("now", ran::countDown, 0);

      // Then: it wakes the thread and runs
      await().atMost(PATIENCE).until(() -> ran.getCount() == 0);
    }
  }

  @Test
  void manyTasksOnTheRealClockAllRunAndNoneBeforeItsDeadline() {
    // Given
    int tasks = 2_000;
    AtomicInteger ran = new AtomicInteger();
    AtomicLong early = new AtomicLong();
    try (DeadlineScheduler real = new DeadlineScheduler("test-real-clock")) {
      // When
      for (int i = 0; i < tasks; i++) {
        long delayMs = i % 50;
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        real.schedule(
            "task-" + i,
            () -> {
              if (System.nanoTime() - due < 0) {
                early.incrementAndGet();
              }
              ran.incrementAndGet();
            },
            delayMs);
      }

      // Then
      await().atMost(PATIENCE).until(() -> ran.get() == tasks);
      assertThat(early.get()).isZero();
      assertThat(real.pending()).isZero();
    }
  }

  @Test
  void closeDropsWhatIsPendingAndRefusesNewTasks() {
    // Given
    scheduler.schedule("pending", record("pending"), 10);

    // When
    scheduler.close();

    // Then
    assertThat(scheduler.pending()).isZero();
    assertThatThrownBy(() -> scheduler.schedule("late", () -> {}, 0))
        .isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> scheduler.schedulePeriodic("late", () -> {}, 0, 1))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(runs).isEmpty();
  }

  @Test
  void closeWaitsForARunningTaskAndATaskMayCloseItsOwnScheduler() throws Exception {
    // Given: a task under way
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean finished = new AtomicBoolean();
    scheduler.schedule(
        "running",
        () -> {
          started.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          finished.set(true);
        },
        0);
    assertThat(started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // When: another thread closes the scheduler, then the task is let go
    AtomicBoolean finishedWhenClosed = new AtomicBoolean();
    Thread closer =
        new Thread(
            () -> {
              scheduler.close();
              finishedWhenClosed.set(finished.get());
            });
    closer.start();
    await().atMost(PATIENCE).until(() -> closer.getState() == Thread.State.WAITING); // in close
    release.countDown();
    closer.join(PATIENCE.toMillis());

    // Then: close returned only after the task ended
    assertThat(closer.isAlive()).isFalse();
    assertThat(finishedWhenClosed.get()).isTrue();

    // And a task closing its own scheduler does not wait for itself
    try (DeadlineScheduler own = new DeadlineScheduler("test-self-closing", time)) {
      CountDownLatch closed = new CountDownLatch(1);
      own.schedule(
          "closing",
          () -> {
            own.close();
            closed.countDown();
          },
          0);
      assertThat(closed.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> own.schedule("late", () -> {}, 0))
          .isInstanceOf(RejectedExecutionException.class);
    }
  }
}
