package io.brook.broker.delayed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.time.DeadlineScheduler;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The purgatory on its own: which waiters progress visits, exactly-once completion, and that
 * nothing stays registered once completed, including under real threads racing.
 */
class DelayedOperationsTest {
  private static final TopicPartition A = new TopicPartition("a", 0);
  private static final TopicPartition B = new TopicPartition("b", 0);
  private static final TopicPartition C = new TopicPartition("c", 0);
  private static final long NEVER_MS = TimeUnit.HOURS.toMillis(1);

  private final DelayedOperations delayed = new DelayedOperations();

  @AfterEach
  void close() {
    delayed.close();
  }

  /** An operation that counts how often its condition is checked and how often it completes. */
  private static final class Probe extends DelayedOperation {
    final AtomicInteger visits = new AtomicInteger();
    final AtomicInteger completions = new AtomicInteger();
    final AtomicBoolean timedOut = new AtomicBoolean();
    final CountDownLatch done = new CountDownLatch(1);
    private final BooleanSupplier condition;

    Probe(List<TopicPartition> partitions, WaitsOn waitsOn, BooleanSupplier condition) {
      super(partitions, waitsOn);
      this.condition = condition;
    }

    Probe(List<TopicPartition> partitions, BooleanSupplier condition) {
      this(partitions, WaitsOn.HIGH_WATERMARK, condition);
    }

    @Override
    protected boolean isSatisfied() {
      visits.incrementAndGet();
      return condition.getAsBoolean();
    }

    @Override
    protected void onComplete(boolean timedOut) {
      this.timedOut.set(timedOut);
      completions.incrementAndGet();
      done.countDown();
    }
  }

  @Test
  void progressOnAPartitionVisitsOnlyTheOperationsWaitingOnIt() {
    // Given: one operation on A, a hundred on B, none satisfied
    Probe onA = new Probe(List.of(A), () -> false);
    delayed.submit(onA, NEVER_MS);
    List<Probe> onB = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Probe probe = new Probe(List.of(B), () -> false);
      delayed.submit(probe, NEVER_MS);
      onB.add(probe);
    }
    int visitsOfA = onA.visits.get();
    int visitsOfB = onB.stream().mapToInt(p -> p.visits.get()).sum();

    // When: ten appends to A
    for (int i = 0; i < 10; i++) {
      delayed.onProgress(A);
    }

    // Then: A's waiter was checked ten times, B's never
    assertThat(onA.visits.get() - visitsOfA).isEqualTo(10);
    assertThat(onB.stream().mapToInt(p -> p.visits.get()).sum()).isEqualTo(visitsOfB);
    assertThat(delayed.waiting(A)).isEqualTo(1);
    assertThat(delayed.waiting(B)).isEqualTo(100);
  }

  @Test
  void aLogEndMoveVisitsOnlyTheOperationsThatReadUpToTheLogEnd() {
    // Given: a follower fetch and a consumer fetch parked on A
    Probe follower = new Probe(List.of(A), DelayedOperation.WaitsOn.LOG_END, () -> false);
    Probe consumer = new Probe(List.of(A), DelayedOperation.WaitsOn.HIGH_WATERMARK, () -> false);
    delayed.submit(follower, NEVER_MS);
    delayed.submit(consumer, NEVER_MS);
    int followerVisits = follower.visits.get();
    int consumerVisits = consumer.visits.get();

    // When: an append moves only the log end
    delayed.onLogEndMoved(A);

    // Then: only the follower fetch is checked
    assertThat(follower.visits.get() - followerVisits).isEqualTo(1);
    assertThat(consumer.visits.get()).isEqualTo(consumerVisits);

    // When: the high watermark moves
    delayed.onProgress(A);

    // Then: both are checked
    assertThat(follower.visits.get() - followerVisits).isEqualTo(2);
    assertThat(consumer.visits.get() - consumerVisits).isEqualTo(1);
  }

  @Test
  void anOperationOverManyPartitionsCompletesOnceAndLeavesEveryPartition() {
    // Given: a fetch over A, B and C
    AtomicBoolean ready = new AtomicBoolean();
    Probe fetch = new Probe(List.of(A, B, C, B), ready::get);
    delayed.submit(fetch, NEVER_MS);
    assertThat(delayed.waiting(B)).as("a partition listed twice is watched once").isEqualTo(1);

    // When: progress on B satisfies it, then A and C progress too
    ready.set(true);
    delayed.onProgress(B);
    delayed.onProgress(A);
    delayed.onProgress(C);

    // Then: completed once, not as a timeout, and no partition keeps an entry
    assertThat(fetch.completions.get()).isEqualTo(1);
    assertThat(fetch.timedOut.get()).isFalse();
    assertThat(delayed.waiting(A) + delayed.waiting(B) + delayed.waiting(C)).isZero();
    assertThat(delayed.watchedPartitions()).isZero();
  }

  @Test
  void aSessionsWatchStaysRegisteredAcrossItsFetchesAndFollowsTheirPartitions() throws Exception {
    // Given: a session's watch, and a follower fetch over A and B parked through it
    StandingWatch watch = delayed.newStandingWatch();
    AtomicBoolean ready = new AtomicBoolean();
    Probe first = new Probe(List.of(A, B), DelayedOperation.WaitsOn.LOG_END, ready::get);
    delayed.submit(first, NEVER_MS, watch);
    assertThat(delayed.waiting(A)).isEqualTo(1);
    assertThat(delayed.waiting(B)).isEqualTo(1);

    // When: an append to A satisfies it
    ready.set(true);
    delayed.onLogEndMoved(A);

    // Then: answered once, nothing waits, but the watch stays under A and B for the next fetch
    assertThat(first.completions.get()).isEqualTo(1);
    assertThat(first.timedOut.get()).isFalse();
    assertThat(delayed.waiting(A) + delayed.waiting(B)).isZero();
    assertThat(delayed.watchedPartitions()).isEqualTo(2);

    // When: the session's next fetch names B and C (it forgot A)
    ready.set(false);
    Probe second = new Probe(List.of(B, C), DelayedOperation.WaitsOn.LOG_END, ready::get);
    delayed.submit(second, NEVER_MS, watch);

    // Then: the watch left A and joined C; progress on A no longer visits it, on C it does
    assertThat(watch.registeredPartitions()).isEqualTo(2);
    assertThat(delayed.watchedPartitions()).isEqualTo(2);
    assertThat(delayed.waiting(A)).isZero();
    assertThat(delayed.waiting(C)).isEqualTo(1);
    int visits = second.visits.get();
    delayed.onProgress(A);
    assertThat(second.visits.get()).isEqualTo(visits);
    delayed.onProgress(C);
    assertThat(second.visits.get()).isEqualTo(visits + 1);

    // When: the session ends while its fetch still waits
    watch.close();

    // Then: the fetch is answered (as a wait that ended) and no partition keeps an entry
    assertThat(second.done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(second.timedOut.get()).isTrue();
    assertThat(delayed.watchedPartitions()).isZero();

    // And: a fetch parked through the closed watch is registered per partition as before
    Probe late = new Probe(List.of(A), () -> false);
    delayed.submit(late, NEVER_MS, watch);
    assertThat(delayed.waiting(A)).isEqualTo(1);
    assertThat(watch.registeredPartitions()).isZero();
  }

  @Test
  void aSecondOperationWhileTheWatchsSlotIsTakenIsRegisteredPerPartition() {
    // Given: two fetches of one session waiting at once (a client that pipelines them)
    StandingWatch watch = delayed.newStandingWatch();
    AtomicBoolean ready = new AtomicBoolean();
    Probe first = new Probe(List.of(A), ready::get);
    Probe second = new Probe(List.of(A, B), ready::get);
    delayed.submit(first, NEVER_MS, watch);
    delayed.submit(second, NEVER_MS, watch);
    assertThat(delayed.waiting(A)).isEqualTo(2);

    // When
    ready.set(true);
    delayed.onProgress(A);

    // Then: both answered once, and only the watch's registration is left
    assertThat(first.completions.get()).isEqualTo(1);
    assertThat(second.completions.get()).isEqualTo(1);
    assertThat(delayed.waiting(A) + delayed.waiting(B)).isZero();
    assertThat(delayed.watchedPartitions()).isEqualTo(1);
    watch.close();
    assertThat(delayed.watchedPartitions()).isZero();
  }

  @Test
  void progressVisitsAWatchOnlyForTheKindOfProgressItsFetchWaitsOn() {
    // Given: a consumer's fetch parked through its session's watch
    StandingWatch watch = delayed.newStandingWatch();
    Probe consumer = new Probe(List.of(A), DelayedOperation.WaitsOn.HIGH_WATERMARK, () -> false);
    delayed.submit(consumer, NEVER_MS, watch);
    int visits = consumer.visits.get();

    // When: only the log end moves
    delayed.onLogEndMoved(A);

    // Then: not visited; a high watermark move visits it
    assertThat(consumer.visits.get()).isEqualTo(visits);
    delayed.onProgress(A);
    assertThat(consumer.visits.get()).isEqualTo(visits + 1);
    watch.close();
  }

  @Test
  void aTimedOutOperationCompletesExactlyAtItsDeadlineAndLeavesEveryPartition() {
    // Given: deadlines on a simulated clock, and an operation over A and B that is never satisfied
    ManualScheduler timer = new ManualScheduler(new MockTime());
    DelayedOperations onSimulatedTime = new DelayedOperations(timer);
    Probe probe = new Probe(List.of(A, B), () -> false);
    onSimulatedTime.submit(probe, 100);

    // When: the clock reaches one millisecond before the deadline
    timer.time().sleep(99);

    // Then: still parked
    assertThat(probe.completions.get()).isZero();
    assertThat(onSimulatedTime.watchedPartitions()).isEqualTo(2);

    // When: the clock reaches the deadline
    timer.time().sleep(1);

    // Then: completed once, as timed out, and its entries went
    assertThat(probe.completions.get()).isEqualTo(1);
    assertThat(probe.timedOut.get()).isTrue();
    assertThat(onSimulatedTime.watchedPartitions()).isZero();
  }

  @Test
  void operationsCompletedByProgressLeaveNothingOnTheProductionTimer() {
    // Given: the production timer, and many operations parked for an hour
    try (DeadlineScheduler timer = new DeadlineScheduler("test-delayed-ops")) {
      DelayedOperations onRealTime = new DelayedOperations(timer);
      AtomicBoolean ready = new AtomicBoolean();
      List<Probe> parked = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        Probe probe = new Probe(List.of(A), ready::get);
        onRealTime.submit(probe, NEVER_MS);
        parked.add(probe);
      }
      assertThat(timer.pending()).isEqualTo(10_000);

      // When: progress completes them all, long before their deadline
      ready.set(true);
      onRealTime.onProgress(A);

      // Then: every deadline left the timer with its operation, nothing waits for the hour
      assertThat(parked).allSatisfy(p -> assertThat(p.timedOut.get()).isFalse());
      assertThat(parked.stream().mapToInt(p -> p.completions.get()).sum()).isEqualTo(10_000);
      assertThat(timer.pending()).isZero();
      assertThat(onRealTime.watchedPartitions()).isZero();
    }
  }

  @Test
  void anOperationWithADeadlineAlreadyDueTimesOutOnTheNextTimerRun() {
    // Given
    ManualScheduler timer = new ManualScheduler(new MockTime());
    DelayedOperations onSimulatedTime = new DelayedOperations(timer);
    Probe probe = new Probe(List.of(A), () -> false);

    // When
    onSimulatedTime.submit(probe, -5);
    assertThat(probe.completions.get()).as("never on the submitting thread").isZero();
    timer.runDue();

    // Then
    assertThat(probe.timedOut.get()).isTrue();
    assertThat(onSimulatedTime.watchedPartitions()).isZero();
  }

  @Test
  void closeCompletesParkedOperationsAndLaterOnesAtOnce() {
    // Given: a parked operation
    Probe parked = new Probe(List.of(A), () -> false);
    delayed.submit(parked, NEVER_MS);

    // When: the broker closes, then another operation arrives
    delayed.close();
    Probe late = new Probe(List.of(B), () -> false);
    delayed.submit(late, NEVER_MS);

    // Then: both are answered, as timed out
    assertThat(parked.completions.get()).isEqualTo(1);
    assertThat(parked.timedOut.get()).isTrue();
    assertThat(late.completions.get()).isEqualTo(1);
    assertThat(late.timedOut.get()).isTrue();
  }

  @Test
  void anOperationWhoseCheckOrAnswerThrowsIsAnsweredAndRemovedWithoutFailingTheAppender() {
    // Given: one operation whose condition throws once progress comes, one whose answer throws
    AtomicBoolean progressed = new AtomicBoolean();
    Probe badCheck =
        new Probe(
            List.of(A),
            () -> {
              if (progressed.get()) {
                throw new IllegalStateException("condition cannot be read");
              }
              return false;
            });
    DelayedOperation badAnswer =
        new DelayedOperation(List.of(A, B)) {
          @Override
          protected boolean isSatisfied() {
            return progressed.get();
          }

          @Override
          protected void onComplete(boolean timedOut) {
            throw new IllegalStateException("answer cannot be built");
          }
        };
    delayed.submit(badCheck, NEVER_MS);
    delayed.submit(badAnswer, NEVER_MS);

    // When: progress on A (the appender's call returns normally)
    progressed.set(true);
    delayed.onProgress(A);

    // Then: the first is answered at once, and neither stays registered anywhere
    assertThat(badCheck.completions.get()).isEqualTo(1);
    assertThat(badCheck.timedOut.get()).isFalse();
    assertThat(delayed.watchedPartitions()).isZero();
  }

  /**
   * Appenders on several threads move partitions' offsets and tell the purgatory while submitters
   * park operations over random partitions, some with deadlines about to fire, some with none in
   * practice. Every operation must complete exactly once; those without a deadline must complete by
   * progress (a registration lost in a race would leave one waiting for ever); and once all have
   * completed, no partition keeps an entry.
   */
  @Test
  void racingProgressTimersAndSubmissionsCompleteEachOperationOnceAndLeakNothing()
      throws Exception {
    racingProgressTimersAndSubmissions(false);
  }

  /**
   * The same race with each submitter parking through a session's watch, sometimes waiting for its
   * fetch's answer before the next one (the watch's slot free) and sometimes not (taken).
   */
  @Test
  void racingProgressTimersAndSubmissionsThroughSessionsWatchesCompleteEachOnceAndLeakNothing()
      throws Exception {
    racingProgressTimersAndSubmissions(true);
  }

  private void racingProgressTimersAndSubmissions(boolean throughWatches) throws Exception {
    long seed = Long.getLong("brook.test.seed", System.nanoTime());
    Random seeds = new Random(seed);
    int partitions = 6;
    TopicPartition[] tps = new TopicPartition[partitions];
    for (int i = 0; i < partitions; i++) {
      tps[i] = new TopicPartition("t", i);
    }
    AtomicLongArray offsets = new AtomicLongArray(partitions);
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<Probe> submitted = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      Random random = new Random(seeds.nextLong());
      threads.add(
          new Thread(
              () -> {
                while (!stop.get()) {
                  int p = random.nextInt(partitions);
                  offsets.incrementAndGet(p);
                  if (random.nextInt(4) == 0) {
                    delayed.onLogEndMoved(tps[p]);
                  } else {
                    delayed.onProgress(tps[p]);
                  }
                  if (random.nextInt(64) == 0) {
                    Thread.yield();
                  }
                }
              },
              "appender-" + t));
    }
    CountDownLatch submittersDone = new CountDownLatch(2);
    List<StandingWatch> watches = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Random random = new Random(seeds.nextLong());
      StandingWatch watch = throughWatches ? delayed.newStandingWatch() : null;
      if (watch != null) {
        watches.add(watch);
      }
      threads.add(
          new Thread(
              () -> {
                for (int i = 0; i < 3_000; i++) {
                  List<TopicPartition> watched = new ArrayList<>();
                  int count = 1 + random.nextInt(4);
                  for (int j = 0; j < count; j++) {
                    watched.add(tps[random.nextInt(partitions)]);
                  }
                  int target = watched.get(0).partition();
                  long required = offsets.get(target) + 1 + random.nextInt(20);
                  DelayedOperation.WaitsOn waitsOn =
                      random.nextBoolean()
                          ? DelayedOperation.WaitsOn.LOG_END
                          : DelayedOperation.WaitsOn.HIGH_WATERMARK;
                  Probe probe = new Probe(watched, waitsOn, () -> offsets.get(target) >= required);
                  submitted.add(probe);
                  delayed.submit(probe, random.nextBoolean() ? random.nextInt(3) : NEVER_MS, watch);
                  if (watch != null && random.nextBoolean()) {
                    try {
                      probe.done.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                  }
                }
                submittersDone.countDown();
              },
              "submitter-" + t));
    }
    threads.forEach(Thread::start);
    try {
      assertThat(submittersDone.await(60, TimeUnit.SECONDS)).as("seed %d", seed).isTrue();
      for (Probe probe : submitted) {
        assertThat(probe.done.await(60, TimeUnit.SECONDS))
            .as("seed %d: an operation never completed", seed)
            .isTrue();
      }
    } finally {
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      }
    }

    assertThat(submitted).hasSize(6_000);
    for (Probe probe : submitted) {
      assertThat(probe.completions.get()).as("seed %d: completions", seed).isEqualTo(1);
    }
    watches.forEach(StandingWatch::close);
    // The timer thread removes an operation just after completing it.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(delayed.watchedPartitions()).as("seed %d: entries left", seed).isZero());
  }
}
