package io.brook.controller.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WallClockWatchTest {
  private final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
  private final AtomicLong monotonic = new AtomicLong(5_000);
  private final WallClockWatch watch = new WallClockWatch(wall::get, monotonic::get);

  private void elapse(long ms) {
    wall.addAndGet(ms);
    monotonic.addAndGet(ms);
  }

  @Test
  void clocksRunningTogetherReportNothingHoweverLongBetweenChecks() {
    elapse(500);
    assertThat(watch.steppedBackMs()).isZero();
    elapse(60_000);
    assertThat(watch.steppedBackMs()).isZero();
  }

  @Test
  void aStepBackIsReportedOnceByItsSize() {
    elapse(500);
    wall.addAndGet(-431_000);
    assertThat(watch.steppedBackMs()).isEqualTo(431_000);
    elapse(500);
    assertThat(watch.steppedBackMs()).isZero();
  }

  @Test
  void stepsForwardAreLeftAloneAndSmallStepsBackAddUpWithinTheWindow() {
    wall.addAndGet(300_000);
    assertThat(watch.steppedBackMs()).isZero();
    elapse(500);
    wall.addAndGet(-(WallClockWatch.STEP_THRESHOLD_MS - 1));
    assertThat(watch.steppedBackMs()).isZero();
    elapse(500);
    wall.addAndGet(-1);
    assertThat(watch.steppedBackMs()).isEqualTo(WallClockWatch.STEP_THRESHOLD_MS);
  }

  @Test
  void smallStepsBackInDifferentWindowsAreLeftAlone() {
    elapse(500);
    wall.addAndGet(-(WallClockWatch.STEP_THRESHOLD_MS - 1));
    assertThat(watch.steppedBackMs()).isZero();
    elapse(WallClockWatch.WINDOW_MS);
    assertThat(watch.steppedBackMs()).isZero();
    wall.addAndGet(-(WallClockWatch.STEP_THRESHOLD_MS - 1));
    assertThat(watch.steppedBackMs()).isZero();
  }

  @Test
  void aClockRunningSlowIsReportedOnceItHasFallenASecondBehind() {
    // At a fifth of the right speed: 400 ms back at every 500 ms check
    long reported = 0;
    int checks = 0;
    while (reported == 0) {
      monotonic.addAndGet(500);
      wall.addAndGet(100);
      reported = watch.steppedBackMs();
      checks++;
    }
    assertThat(checks).isEqualTo(3);
    assertThat(reported).isEqualTo(1_200);
  }

  @Test
  void driftTooSlowToAddUpToAStepWithinTheWindowIsNeverReported() {
    // 0.5 ms a second back (NTP's fastest slew), checked every 500 ms for an hour
    for (int i = 0; i < 7_200; i++) {
      monotonic.addAndGet(500);
      wall.addAndGet(500);
      if (i % 2 == 0) {
        wall.addAndGet(-1);
      }
      assertThat(watch.steppedBackMs()).isZero();
    }
  }

  @Test
  void aPreemptionBetweenTheTwoReadsCancelsOut() {
    elapse(500);
    monotonic.addAndGet(900); // read late at this check
    assertThat(watch.steppedBackMs()).isZero();
    elapse(500);
    wall.addAndGet(900); // and caught up at the next
    assertThat(watch.steppedBackMs()).isZero();
    elapse(500);
    wall.addAndGet(-600);
    assertThat(watch.steppedBackMs()).as("no drift left over from the preemption").isZero();
  }
}
