package io.brook.bench;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.delayed.StandingWatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a follower's fetch over a whole session costs the purgatory ({@link DelayedOperations}) to
 * park and to answer: the fetch parks over {@code partitions} partitions (a follower of a leader of
 * 8,000 partitions lists them all), an append to one of them wakes it, and it leaves. An idle
 * follower does this twice a second per leader it follows.
 *
 * <ul>
 *   <li>{@link #perPartition}: registered under each partition and removed from each again, as
 *       every parked operation without a session is;
 *   <li>{@link #throughSessionWatch}: parked in the session's {@link StandingWatch}, which stays
 *       registered under the session's partitions from one fetch to the next.
 * </ul>
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class SessionParkBenchmark {
  private static final long NEVER_MS = TimeUnit.HOURS.toMillis(1);

  @Param({"100", "8000"})
  public int partitions;

  private List<TopicPartition> session;
  private DelayedOperations delayed;
  private StandingWatch watch;

  /** A follower fetch that waits until an append gives it data. */
  private static final class FollowerFetch extends DelayedOperation {
    boolean appended;

    FollowerFetch(List<TopicPartition> partitions) {
      super(partitions, WaitsOn.LOG_END);
    }

    @Override
    protected boolean isSatisfied() {
      return appended;
    }

    @Override
    protected void onComplete(boolean timedOut) {}
  }

  @Setup(Level.Trial)
  public void setUp() {
    session = new ArrayList<>(partitions);
    for (int i = 0; i < partitions; i++) {
      session.add(new TopicPartition("bench-" + (i / 12), i % 12));
    }
    delayed = new DelayedOperations();
    watch = delayed.newStandingWatch();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    watch.close();
    delayed.close();
  }

  @Benchmark
  public boolean perPartition() {
    return parkAndWake(null);
  }

  @Benchmark
  public boolean throughSessionWatch() {
    return parkAndWake(watch);
  }

  private boolean parkAndWake(StandingWatch through) {
    FollowerFetch fetch = new FollowerFetch(session);
    delayed.submit(fetch, NEVER_MS, through);
    fetch.appended = true;
    delayed.onLogEndMoved(session.get(partitions / 2));
    return fetch.appended;
  }
}
