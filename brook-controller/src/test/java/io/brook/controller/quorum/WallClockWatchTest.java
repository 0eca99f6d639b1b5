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
  void stepsForwardAndSmallStepsBackAreLeftAlone() {
    wall.addAndGet(300_000);
    assertThat(watch.steppedBackMs()).isZero();
    elapse(500);
    wall.addAndGet(-(WallClockWatch.STEP_THRESHOLD_MS - 1));
    assertThat(watch.steppedBackMs()).isZero();
    wall.addAndGet(-WallClockWatch.STEP_THRESHOLD_MS);
    assertThat(watch.steppedBackMs()).isEqualTo(WallClockWatch.STEP_THRESHOLD_MS);
  }
}
