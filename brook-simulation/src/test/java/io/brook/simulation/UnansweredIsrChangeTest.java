package io.brook.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.replica.Partition;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader whose AlterPartition reaches the controller but whose answers (and the images after it)
 * are lost, by a link cut from the active controller to the leader only. The controller commits the
 * follower's return to the ISR; the leader cannot know it did, and must not acknowledge a write
 * that follower lacks (the controller may elect it next), even when the follower then cannot fetch
 * for longer than the leader waits for the answer. Each seed gives the run its network delays;
 * nothing is lost but what the cut drops.
 */
class UnansweredIsrChangeTest {
  static final int SEEDS = Integer.getInteger("brook.sim.windowSeeds", 25);
  static final long FAULT_AT_MS = 1_000;

  /** Longer than the session timeout and its check, so the follower leaves the ISR. */
  static final long FOLLOWER_DOWN_MS = 900;

  /** Longer than the leader's wait for an answer (1 s) and its retries. */
  static final long CUT_MS = 2_000;

  /**
   * Past the leader's wait for the controller's answer (1 s); the follower keeps heartbeating to
   * the controller meanwhile, so it stays in the controller's ISR.
   */
  static final long FOLLOWER_CUT_MS = 1_500;

  @TempDir Path dir;

  @Test
  void aLeaderThatMissesTheAnswerToTheFollowersReturnNeverAcknowledgesWithoutIt() {
    int exercised = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      boolean[] committedUnseen = {false};
      Simulation.Result result =
          Simulation.run(seed, Simulation.filesParent(dir), scenario(committedUnseen));
      assertThat(result.failure())
          .as("seed %d (replay: -Dbrook.sim.seed=%d)\n%s", seed, seed, result.traceTail())
          .isNull();
      if (committedUnseen[0]) {
        exercised++;
      }
    }
    // The case arose: the controller's ISR held the returned follower while the leader's did not.
    assertThat(exercised).as("seeds that reached the case").isGreaterThan(SEEDS / 2);
  }

  private static Simulation.Scenario scenario(boolean[] committedUnseen) {
    return new Simulation.Scenario() {
      @Override
      public long endMs() {
        return 5_000;
      }

      @Override
      public void start(Simulation simulation) {
        simulation
            .scheduler()
            .schedule(
                "fault",
                () -> fault(simulation, committedUnseen),
                FAULT_AT_MS - simulation.nowMs());
      }

      @Override
      public void finish(Simulation simulation) {}
    };
  }

  /**
   * Crashes a follower of the first partition past its session (it leaves the ISR) and restarts it.
   * When the leader proposes taking it back, the active controller's messages to the leader are cut
   * (the proposal itself still arrives); once the controller has committed it, unknown to the
   * leader, the follower stops fetching for a while.
   */
  private static void fault(Simulation simulation, boolean[] committedUnseen) {
    TopicPartition tp = Simulation.PARTITIONS.get(0);
    MetadataImage image = simulation.controllers().image();
    PartitionImage partition = image.partition(tp.topic(), tp.partition()).orElseThrow();
    int leader = partition.leader();
    int follower = partition.replicas().stream().filter(r -> r != leader).findFirst().orElseThrow();
    SimulatedBroker crashed = simulation.broker(follower);
    simulation.record("crash broker " + follower + ", follower of " + tp);
    crashed.crash(false, true);
    simulation
        .scheduler()
        .schedule(
            "restart",
            () -> {
              simulation.record("restart broker " + follower);
              crashed.start();
            },
            FOLLOWER_DOWN_MS);
    boolean[] cut = {false};
    simulation
        .scheduler()
        .schedulePeriodic(
            "watch the ISRs",
            () -> {
              Optional<Partition> led =
                  simulation.broker(leader).process().flatMap(p -> p.partition(tp));
              if (led.isEmpty() || led.get().state().isr().contains(follower)) {
                return;
              }
              if (!cut[0] && led.get().maximalIsr().contains(follower)) {
                // The leader just proposed the follower's return: its answer will be lost.
                cut[0] = true;
                int controller = simulation.controllers().active().nodeId();
                simulation.record("one-way cut " + controller + "->" + leader);
                simulation.network().cutOneWay(controller, leader);
                simulation
                    .scheduler()
                    .schedule(
                        "heal",
                        () -> {
                          simulation.record("heal " + controller + "->" + leader);
                          simulation.network().healOneWay(controller, leader);
                        },
                        CUT_MS);
              }
              boolean committed =
                  simulation
                      .controllers()
                      .image()
                      .partition(tp.topic(), tp.partition())
                      .map(p -> p.isr().contains(follower))
                      .orElse(false);
              if (cut[0] && committed && !committedUnseen[0]) {
                // The follower stops fetching: a leader that went back to the ISR it knew would
                // now acknowledge writes without it.
                committedUnseen[0] = true;
                simulation.record("partition " + follower + "|" + leader);
                simulation.network().cut(follower, leader);
                simulation
                    .scheduler()
                    .schedule(
                        "heal",
                        () -> {
                          simulation.record("heal " + follower + "|" + leader);
                          simulation.network().heal(follower, leader);
                        },
                        FOLLOWER_CUT_MS);
              }
            },
            1,
            1);
  }
}
