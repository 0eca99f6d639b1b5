package io.brook.simulation;

import io.brook.broker.time.ManualScheduler;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Messages between nodes as events on the one scheduler: each is delivered after a seeded delay (so
 * messages overtake each other), or lost, or dropped because a partition separates the two nodes
 * (both ways, or only from the sender to the receiver) or the receiver's life ended. A paused node
 * neither sends nor receives: its messages wait until the pause ends. Every delivery is recorded in
 * the trace and followed by the invariant check.
 */
final class SimulatedNetwork {
  private final ManualScheduler scheduler;
  private final Random random;
  private final Simulation simulation;
  private final int minDelayMs;
  private final int maxDelayMs;
  private final double lossRate;

  /** Directed: a message from {@code from} to {@code to} is dropped while (from, to) is here. */
  private final Set<Long> cut = new HashSet<>();

  private final Map<Integer, Long> pausedUntilMs = new HashMap<>();

  /** Whether messages may be lost yet: not while the cluster sets up (see {@link #startLosing}). */
  private boolean losing;

  SimulatedNetwork(
      Simulation simulation,
      ManualScheduler scheduler,
      Random random,
      int minDelayMs,
      int maxDelayMs,
      double lossRate) {
    this.simulation = simulation;
    this.scheduler = scheduler;
    this.random = random;
    this.minDelayMs = Math.max(1, minDelayMs);
    this.maxDelayMs = Math.max(this.minDelayMs, maxDelayMs);
    this.lossRate = lossRate;
  }

  /** Sends {@code delivery}, run at {@code to} if it arrives. */
  void send(Endpoint from, Endpoint to, String what, Runnable delivery) {
    if (!from.alive()) {
      return;
    }
    long delay = minDelayMs + random.nextInt(maxDelayMs - minDelayMs + 1);
    long now = now();
    long departs = Math.max(now, pausedUntil(from.nodeId()));
    String name = what + " " + from.nodeId() + "->" + to.nodeId();
    // Drawn for every message, lost only once losing started, so that a seed's draws do not
    // depend on when that was.
    if (random.nextDouble() < lossRate && losing) {
      simulation.record("lost " + name);
      return;
    }
    scheduler.schedule(name, () -> deliver(from, to, name, delivery), departs - now + delay);
  }

  /**
   * A request from {@code from}, served at {@code to} by {@code serve}, which answers (now or
   * later) through the callback it is given; the answer travels back as a message of its own.
   */
  <T> void call(
      Endpoint from, Endpoint to, String what, Consumer<Consumer<T>> serve, Consumer<T> onAnswer) {
    send(
        from,
        to,
        what,
        () ->
            serve.accept(
                answer -> send(to, from, what + "-response", () -> onAnswer.accept(answer))));
  }

  private void deliver(Endpoint from, Endpoint to, String name, Runnable delivery) {
    if (!to.alive() || isCut(from.nodeId(), to.nodeId())) {
      simulation.record("dropped " + name);
      return;
    }
    long pausedUntil = pausedUntil(to.nodeId());
    if (pausedUntil > now()) {
      scheduler.schedule(name, () -> deliver(from, to, name, delivery), pausedUntil - now());
      return;
    }
    simulation.record(name);
    delivery.run();
    simulation.afterEvent();
  }

  /**
   * From now on messages are lost at the seed's rate. The brokers register before that: a seed
   * whose every registration of one broker was lost would end before its cluster existed, testing
   * nothing.
   */
  void startLosing() {
    losing = true;
  }

  /** Drops every message between {@code a} and {@code b} until {@link #heal}. */
  void cut(int a, int b) {
    cutOneWay(a, b);
    cutOneWay(b, a);
  }

  /** Heals both ways (a one-way cut of the pair included). */
  void heal(int a, int b) {
    healOneWay(a, b);
    healOneWay(b, a);
  }

  /**
   * Drops every message from {@code from} to {@code to} until {@link #healOneWay} or {@link #heal},
   * while those the other way still arrive: a request goes through and its answer is lost, or the
   * reverse.
   */
  void cutOneWay(int from, int to) {
    cut.add(directed(from, to));
  }

  void healOneWay(int from, int to) {
    cut.remove(directed(from, to));
  }

  /** {@code nodeId} stops sending and receiving for {@code ms}. */
  void pause(int nodeId, long ms) {
    pausedUntilMs.merge(nodeId, now() + ms, Math::max);
  }

  boolean isPaused(int nodeId) {
    return pausedUntil(nodeId) > now();
  }

  private long pausedUntil(int nodeId) {
    return pausedUntilMs.getOrDefault(nodeId, 0L);
  }

  /** Whether messages from {@code from} to {@code to} are dropped. */
  boolean isCut(int from, int to) {
    return cut.contains(directed(from, to));
  }

  private static long directed(int from, int to) {
    return ((long) from << 32) | (to & 0xffffffffL);
  }

  private long now() {
    return scheduler.time().nanoseconds() / 1_000_000;
  }
}
