package io.brook.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs many seeds of the {@link Simulation}: {@code brook.sim.seeds} of them (3,000 in the build,
 * more with {@code -Psimulation}), or only {@code brook.sim.seed} to replay one. A failing seed
 * fails the test with the property that replays it.
 */
class SimulationTest {
  @TempDir Path dir;

  @Test
  void everySeedKeepsTheInvariants() {
    String one = System.getProperty("brook.sim.seed", "");
    long first = one.isBlank() ? 1 : Long.parseLong(one.trim());
    int seeds = one.isBlank() ? Integer.getInteger("brook.sim.seeds", 3_000) : 1;
    long acked = 0;
    long retries = 0;
    long consumed = 0;
    long crashes = 0;
    long lossyCrashes = 0;
    long cleanShutdowns = 0;
    long cleanRestarts = 0;
    long diskFailures = 0;
    long lossyDiskFailures = 0;
    long controllerCrashes = 0;
    long elections = 0;
    long pauses = 0;
    long partitions = 0;
    long oneWayCuts = 0;
    long events = 0;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long processCpuStart = processCpuNanos();
    Path files = Simulation.filesParent(dir);
    for (long seed = first; seed < first + seeds; seed++) {
      Simulation.Result result = Simulation.run(seed, files);
      if (result.failed()) {
        throw new AssertionError(
            "seed "
                + seed
                + " broke an invariant: "
                + result.failure()
                + "\nreplay: -Dbrook.sim.seed="
                + seed
                + "\nlast events:\n"
                + result.traceTail());
      }
      acked += result.acked();
      retries += result.retries();
      consumed += result.consumed();
      crashes += result.crashes();
      lossyCrashes += result.lossyCrashes();
      cleanShutdowns += result.cleanShutdowns();
      cleanRestarts += result.cleanRestarts();
      diskFailures += result.diskFailures();
      lossyDiskFailures += result.lossyDiskFailures();
      controllerCrashes += result.controllerCrashes();
      elections += result.elections();
      pauses += result.pauses();
      partitions += result.partitions();
      oneWayCuts += result.oneWayCuts();
      events += result.events();
    }
    System.out.printf(
        "simulation: %d seeds from %d, %d events, %d acknowledged writes (%d retries), %d records"
            + " consumed,"
            + " %d broker crashes (%d losing the page cache), %d controlled shutdowns (%d"
            + " stopped and restarted), %d disk failures (%d losing unflushed writes), %d"
            + " controller crashes, %d controller"
            + " elections, %d pauses, %d partitions (%d one way), files in %s, %.1f s of CPU (%.1f s"
            + " for the"
            + " whole JVM)%n",
        seeds,
        first,
        events,
        acked,
        retries,
        consumed,
        crashes,
        lossyCrashes,
        cleanShutdowns,
        cleanRestarts,
        diskFailures,
        lossyDiskFailures,
        controllerCrashes,
        elections,
        pauses,
        partitions,
        oneWayCuts,
        files,
        (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9,
        (processCpuNanos() - processCpuStart) / 1e9);
    // The runs did something: writes were acknowledged and read, and faults happened.
    assertThat(acked).isPositive();
    assertThat(consumed).isPositive();
    if (seeds >= 20) {
      assertThat(retries).isPositive();
      assertThat(crashes).isPositive();
      assertThat(lossyCrashes).isPositive();
      assertThat(cleanRestarts).isPositive();
      assertThat(elections).isPositive();
      assertThat(pauses).isPositive();
      assertThat(partitions).isPositive();
      assertThat(oneWayCuts).isPositive();
    }
    if (seeds >= 200) {
      assertThat(diskFailures).isPositive();
      assertThat(lossyDiskFailures).isPositive();
    }
  }

  /** The CPU time of the whole JVM (the run's thread, the JIT compilers, the collector). */
  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }
}
