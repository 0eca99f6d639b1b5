package io.brook.broker.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The deterministic scheduler: what runs when the simulated clock moves, and in which order. */
class ManualSchedulerTest {
  private final MockTime time = new MockTime();
  private final ManualScheduler scheduler = new ManualScheduler(time);
  private final List<String> runs = new ArrayList<>();

  private Runnable record(String name) {
    return () -> runs.add(name + "@" + time.hiResClockMs());
  }

  @Test
  void dueTasksRunInDeadlineOrderThenInTheOrderTheyWereScheduled() {
    // Given
    scheduler.schedule("late", record("late"), 20);
    scheduler.schedule("first", record("first"), 10);
    scheduler.schedule("second", record("second"), 10);

    // When / Then: nothing before its deadline, everything due when the clock jumps past it
    time.sleep(9);
    assertThat(runs).isEmpty();
    time.sleep(100);
    assertThat(runs).containsExactly("first@109", "second@109", "late@109");
    assertThat(scheduler.pending()).isEmpty();
  }

  @Test
  void aPeriodicTaskRunsOncePerPeriodOfSimulatedTimeUntilCancelled() {
    // Given
    Scheduler.Task task = scheduler.schedulePeriodic("tick", record("tick"), 5, 10);

    // When
    time.sleep(5);
    time.sleep(10);
    time.sleep(24);

    // Then: at 5, 15, 25 and 35, each run one period after the deadline it ran for
    assertThat(runs).containsExactly("tick@5", "tick@15", "tick@39", "tick@39");
    assertThat(scheduler.nextDueMs()).isEqualTo(45);

    // When
    task.cancel();
    time.sleep(100);

    // Then
    assertThat(runs).hasSize(4);
    assertThat(scheduler.nextDueMs()).isEqualTo(-1);
  }

  @Test
  void aCancelledTaskNeverRunsAndATaskScheduledByARunForNowRunsInTheSameMove() {
    // Given
    Scheduler.Task cancelled = scheduler.schedule("cancelled", record("cancelled"), 10);
    scheduler.schedule("parent", () -> scheduler.schedule("child", record("child"), 0), 10);

    // When
    assertThat(cancelled.cancel()).isTrue();
    assertThat(cancelled.cancel()).isFalse();
    time.sleep(10);

    // Then
    assertThat(runs).containsExactly("child@10");
  }

  @Test
  void aFailingTaskDoesNotStopTheOthers() {
    // Given
    scheduler.schedule(
        "failing",
        () -> {
          throw new IllegalStateException("expected in this test");
        },
        1);
    scheduler.schedule("after", record("after"), 1);

    // When
    time.sleep(1);

    // Then
    assertThat(runs).containsExactly("after@1");
  }
}
