package io.brook.simulation;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.Uuid;

/**
 * A broker node across its lives: its data directory stays, each start is a new {@link
 * BrokerProcess} (a new incarnation, which registers again) that loads whatever the previous life
 * left in the files.
 */
final class SimulatedBroker {
  private final Simulation simulation;
  private final int nodeId;
  private final Path dir;
  private final Random random;
  private BrokerProcess process;
  private int lives;
  private long cleanShutdownEpoch = -1;

  SimulatedBroker(Simulation simulation, int nodeId, Path dir, Random random) {
    this.simulation = simulation;
    this.nodeId = nodeId;
    this.dir = dir;
    this.random = random;
  }

  int nodeId() {
    return nodeId;
  }

  /** The running life, if the broker is up. */
  Optional<BrokerProcess> process() {
    return Optional.ofNullable(process);
  }

  int lives() {
    return lives;
  }

  void start() {
    if (process != null) {
      throw new IllegalStateException("broker " + nodeId + " is running");
    }
    lives++;
    process =
        new BrokerProcess(
            simulation,
            nodeId,
            dir,
            new Uuid(random.nextLong(), random.nextLong()),
            cleanShutdownEpoch);
    cleanShutdownEpoch = -1;
  }

  /** The process dies; with {@code losePageCache} the machine too (see {@link BrokerProcess}). */
  void crash(boolean losePageCache, boolean keepLatestEpochCheckpoints) {
    if (process != null) {
      process.crash(losePageCache, keepLatestEpochCheckpoints);
      process = null;
    }
  }

  /**
   * A controlled shutdown of the running life; {@code stopped} runs once it has stopped. The next
   * life says it follows a clean shutdown, as the broker's epoch file in its log directories does,
   * if its log directory was marked clean.
   */
  void shutDown(Runnable stopped) {
    BrokerProcess life = process;
    life.controlledShutdown(
        epoch -> {
          if (process == life) {
            process = null;
            cleanShutdownEpoch = epoch;
            stopped.run();
          }
        });
  }

  /**
   * The running life's disk fails (see {@link BrokerProcess#failDisk}); {@code stopped} runs once
   * the life has shut down because of it. The next life follows an unclean shutdown.
   */
  void failDisk(boolean losePageCache, boolean keepLatestEpochCheckpoints, Runnable stopped) {
    BrokerProcess life = process;
    life.failDisk(
        losePageCache,
        keepLatestEpochCheckpoints,
        epoch -> {
          if (process == life) {
            process = null;
            cleanShutdownEpoch = epoch;
            stopped.run();
          }
        });
  }

  /** Stops the running life at the end of a run. */
  void stop() {
    crash(false, true);
  }
}
