package io.brook.broker.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The production schedulers on real threads: what the data plane relies on beyond running tasks (a
 * failing periodic task keeps running; a stopped scheduler refuses new tasks, which {@code
 * DelayedOperations} answers at once). No assertion depends on how long anything took.
 */
class ProductionSchedulersTest {
  private static Runnable failingFirst(AtomicInteger runs) {
    return () -> {
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("expected in this test");
      }
    };
  }

  @Test
  void aPeriodicTaskThatThrowsKeepsRunningOnEitherScheduler() {
    AtomicInteger onExecutor = new AtomicInteger();
    AtomicInteger onDeadlines = new AtomicInteger();
    try (ExecutorScheduler executor = ExecutorScheduler.singleThread("test-executor");
        DeadlineScheduler deadlines = new DeadlineScheduler("test-deadlines")) {
      executor.schedulePeriodic("failing", failingFirst(onExecutor), 0, 1);
      deadlines.schedulePeriodic("failing", failingFirst(onDeadlines), 0, 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> onExecutor.get() >= 3);
      await().atMost(Duration.ofSeconds(30)).until(() -> onDeadlines.get() >= 3);
    }
  }

  @Test
  void aCancelledPeriodicTaskStopsRunning() {
    AtomicInteger runs = new AtomicInteger();
    try (DeadlineScheduler deadlines = new DeadlineScheduler("test-deadlines")) {
      Scheduler.Task task = deadlines.schedulePeriodic("counted", runs::incrementAndGet, 0, 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> runs.get() >= 2);
      task.cancel();
      int afterCancel = runs.get();
      // A run under way when cancelled may finish; none starts after it.
      AtomicInteger marker = new AtomicInteger();
      deadlines.schedule("marker", marker::incrementAndGet, 5);
      await().atMost(Duration.ofSeconds(30)).until(() -> marker.get() == 1);
      assertThat(runs.get()).isLessThanOrEqualTo(afterCancel + 1);
    }
  }

  @Test
  void aStoppedSchedulerRefusesNewTasks() {
    DeadlineScheduler deadlines = new DeadlineScheduler("test-deadlines");
    deadlines.close();
    assertThatThrownBy(() -> deadlines.schedule("late", () -> {}, 1))
        .isInstanceOf(RejectedExecutionException.class);
    ExecutorScheduler executor = ExecutorScheduler.singleThread("test-executor");
    executor.close();
    assertThatThrownBy(() -> executor.schedule("late", () -> {}, 1))
        .isInstanceOf(RejectedExecutionException.class);
  }
}
