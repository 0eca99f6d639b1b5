package io.brook.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seed is a run: the same seed twice gives the same events, in the same order, at the same times.
 */
class SimulationDeterminismTest {
  @TempDir Path dir;

  @Test
  void theSameSeedGivesTheSameTrace() {
    for (long seed : new long[] {7, 42, 1234}) {
      Simulation.Result first = Simulation.run(seed, Simulation.filesParent(dir));
      Simulation.Result second = Simulation.run(seed, Simulation.filesParent(dir));
      assertThat(second.traceHash()).as("seed %d", seed).isEqualTo(first.traceHash());
      assertThat(second.events()).isEqualTo(first.events());
      assertThat(second.acked()).isEqualTo(first.acked());
      assertThat(first.events()).isGreaterThan(100);
    }
  }

  @Test
  void differentSeedsGiveDifferentRuns() {
    assertThat(Simulation.run(1, dir).traceHash()).isNotEqualTo(Simulation.run(2, dir).traceHash());
  }
}
