package io.brook.simulation;

import java.util.List;
import java.util.Random;

/**
 * The faults of a run, drawn from its seed: every few hundred milliseconds until {@code untilMs},
 * one of a broker crash (and restart from its files after a while), a pause of a node (a broker or
 * the controller stops sending and receiving, as in a long GC pause), or a network partition
 * between two nodes. Message loss and delay are the network's, also drawn from the seed.
 */
final class FaultInjector {
  private final Simulation simulation;
  private final Random random;
  private final long untilMs;
  private int crashes;
  private int pauses;
  private int partitions;

  FaultInjector(Simulation simulation, Random random, long untilMs) {
    this.simulation = simulation;
    this.random = random;
    this.untilMs = untilMs;
  }

  void start() {
    scheduleNext();
  }

  int crashes() {
    return crashes;
  }

  int pauses() {
    return pauses;
  }

  int partitions() {
    return partitions;
  }

  private void scheduleNext() {
    long delay = 200 + random.nextInt(800);
    if (simulation.nowMs() + delay < untilMs) {
      simulation.scheduler().schedule("fault", this::inject, delay);
    }
  }

  private void inject() {
    List<SimulatedBroker> brokers = simulation.brokers();
    switch (random.nextInt(3)) {
      case 0 -> {
        SimulatedBroker broker = brokers.get(random.nextInt(brokers.size()));
        if (broker.process().isPresent()) {
          long downMs = 100 + random.nextInt(2_000);
          crashes++;
          simulation.record("crash broker " + broker.nodeId() + " for " + downMs + "ms");
          broker.crash();
          simulation
              .scheduler()
              .schedule(
                  "restart",
                  () -> {
                    simulation.record("restart broker " + broker.nodeId());
                    broker.start();
                    simulation.afterEvent();
                  },
                  downMs);
        }
      }
      case 1 -> {
        int node = random.nextInt(brokers.size() + 1); // 0 is the controller
        long ms = 50 + random.nextInt(1_500);
        pauses++;
        simulation.record("pause node " + node + " for " + ms + "ms");
        simulation.network().pause(node, ms);
      }
      default -> {
        int a = random.nextInt(brokers.size() + 1);
        int b = (a + 1 + random.nextInt(brokers.size())) % (brokers.size() + 1);
        long ms = 100 + random.nextInt(2_000);
        partitions++;
        simulation.record("partition " + a + "|" + b + " for " + ms + "ms");
        simulation.network().cut(a, b);
        simulation
            .scheduler()
            .schedule(
                "heal",
                () -> {
                  simulation.record("heal " + a + "|" + b);
                  simulation.network().heal(a, b);
                },
                ms);
      }
    }
    simulation.afterEvent();
    scheduleNext();
  }
}
