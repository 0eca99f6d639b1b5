package io.brook.storage.remote;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Runs actors on threads of their own but lets only one of them move at a time: an actor runs until
 * it calls {@link #step}, where it waits until the interleaver, with a seeded random, picks it out
 * of the actors waiting there. Every order of the actors' steps can come up, and a seed repeats its
 * order exactly (what an actor does between two steps touches nothing the others see).
 *
 * <p>Even seeds pick uniformly at every step, which mostly alternates the actors. Odd seeds give
 * each actor a priority and always run the highest waiting one, lowering it below all others at a
 * few random steps (probabilistic concurrency testing, as in PCT): one actor then runs a long
 * stretch, through a whole copy or compaction, before another cuts in, which uniform picks seldom
 * produce.
 *
 * <p>Threads that are not actors pass {@link #step} without waiting, so the same instrumented
 * object serves a test's setup and checks.
 */
final class Interleaver {
  /** How long every actor may run between two steps before the run is declared stuck. */
  private static final long STUCK_MS = TimeUnit.SECONDS.toMillis(30);

  /** How many priority changes a run with priorities has, and within how many steps. */
  private static final int CHANGE_POINTS = 3;

  private static final int CHANGE_POINT_RANGE = 80;

  private final SplittableRandom random;
  private final boolean priorities;
  private final Set<Integer> changePoints = new HashSet<>();
  private int steps;
  private int lowestPriority;
  private final Object lock = new Object();
  private final ThreadLocal<Actor> current = new ThreadLocal<>();
  private final List<String> trace = new ArrayList<>();
  private Actor granted;

  Interleaver(long seed) {
    this.random = new SplittableRandom(seed);
    this.priorities = (seed & 1) == 1;
    while (priorities && changePoints.size() < CHANGE_POINTS) {
      changePoints.add(random.nextInt(CHANGE_POINT_RANGE));
    }
  }

  private static final class Actor {
    final String name;
    int priority;
    String waitingAt;
    boolean done;
    Throwable failure;

    Actor(String name) {
      this.name = name;
    }
  }

  /** Whether the calling thread is one of the actors (else {@link #step} does not wait). */
  boolean isActor() {
    return current.get() != null;
  }

  /** Where the calling actor waits for its turn before {@code what} happens. */
  void step(String what) {
    Actor actor = current.get();
    if (actor == null) {
      return;
    }
    synchronized (lock) {
      actor.waitingAt = what;
      lock.notifyAll();
      while (granted != actor) {
        waitOn();
      }
      granted = null;
      actor.waitingAt = null;
      trace.add(actor.name + ": " + what);
      lock.notifyAll();
    }
  }

  /**
   * Runs every actor to its end, one step at a time.
   *
   * @return each actor's failure (null if it returned), by name, in the order given
   */
  Map<String, Throwable> run(Map<String, Callable<?>> bodies) throws InterruptedException {
    Map<String, Actor> actors = new LinkedHashMap<>();
    List<Thread> threads = new ArrayList<>();
    for (Map.Entry<String, Callable<?>> body : bodies.entrySet()) {
      Actor actor = new Actor(body.getKey());
      actors.put(actor.name, actor);
      Thread thread =
          new Thread(
              () -> {
                current.set(actor);
                Throwable failure = null;
                try {
                  body.getValue().call();
                } catch (Throwable t) {
                  failure = t;
                }
                synchronized (lock) {
                  actor.failure = failure;
                  actor.done = true;
                  trace.add(
                      actor.name + ": " + (failure == null ? "returns" : "fails: " + failure));
                  lock.notifyAll();
                }
              },
              "actor-" + actor.name);
      thread.setDaemon(true);
      threads.add(thread);
    }
    List<Actor> ranked = new ArrayList<>(actors.values());
    Collections.shuffle(ranked, new Random(random.nextLong()));
    for (int i = 0; i < ranked.size(); i++) {
      ranked.get(i).priority = i + 1;
    }
    threads.forEach(Thread::start);
    synchronized (lock) {
      while (true) {
        awaitQuiet(actors.values());
        List<Actor> waiting = new ArrayList<>();
        for (Actor a : actors.values()) {
          if (a.waitingAt != null) {
            waiting.add(a);
          }
        }
        if (waiting.isEmpty()) {
          break;
        }
        granted = pick(waiting);
        lock.notifyAll();
      }
    }
    for (Thread thread : threads) {
      thread.join(STUCK_MS);
    }
    Map<String, Throwable> failures = new LinkedHashMap<>();
    actors.forEach((name, a) -> failures.put(name, a.failure));
    return failures;
  }

  private Actor pick(List<Actor> waiting) {
    if (!priorities) {
      return waiting.get(random.nextInt(waiting.size()));
    }
    Actor first = highest(waiting);
    if (changePoints.contains(steps++)) {
      first.priority = --lowestPriority;
      first = highest(waiting);
    }
    return first;
  }

  private static Actor highest(List<Actor> waiting) {
    Actor best = waiting.get(0);
    for (Actor a : waiting) {
      if (a.priority > best.priority) {
        best = a;
      }
    }
    return best;
  }

  /**
   * Waits (holding {@link #lock}) until the actor last granted a turn has taken it and every actor
   * waits at a step or has returned.
   */
  private void awaitQuiet(Iterable<Actor> actors) throws InterruptedException {
    long deadline = System.currentTimeMillis() + STUCK_MS;
    while (granted != null || anyRunning(actors)) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        throw new AssertionError("an actor neither stepped nor returned: " + trace);
      }
      lock.wait(left);
    }
  }

  private static boolean anyRunning(Iterable<Actor> actors) {
    for (Actor a : actors) {
      if (a.waitingAt == null && !a.done) {
        return true;
      }
    }
    return false;
  }

  /** The steps taken so far, in order, each with its actor's name. */
  List<String> trace() {
    synchronized (lock) {
      return List.copyOf(trace);
    }
  }

  private void waitOn() {
    try {
      lock.wait();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a turn", e);
    }
  }
}
