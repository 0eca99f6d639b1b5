package io.brook.bench;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.delayed.DelayedOperations;
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
 * What an append costs in the purgatory ({@link DelayedOperations}) with {@code parked} fetches
 * waiting, none of which the append satisfies: the price the producer's thread pays after every
 * append. Each parked operation checks its condition as a consumer fetch does when nothing new is
 * readable (a volatile bound against its fetch offset).
 *
 * <ul>
 *   <li>{@link #appendWithFetchesOnOtherPartitions}: {@code parked} fetches on {@code parked} other
 *       partitions; the append's partition has no waiter. Flat in {@code parked}: only the
 *       partition's own waiters are visited.
 *   <li>{@link #leaderAppendWithConsumersOnItsPartition}: {@code parked} consumer fetches on the
 *       append's partition, which has followers, so the append moves the log end but not the high
 *       watermark. The partition tells the purgatory only that the log end moved, which visits no
 *       consumer.
 *   <li>{@link #highWatermarkMoveWithConsumersOnItsPartition}: the same with the high watermark
 *       moving, which visits every consumer; before log-end-only wake-ups, every leader append paid
 *       this.
 * </ul>
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class PurgatoryBenchmark {
  private static final TopicPartition APPENDED = new TopicPartition("appended", 0);
  private static final long NEVER_MS = TimeUnit.HOURS.toMillis(1);

  @Param({"0", "100", "1000", "10000"})
  public int parked;

  /** The bound the parked fetches compare with; never reaches their fetch offset. */
  private volatile long highWatermark = 10;

  private DelayedOperations elsewhere;
  private DelayedOperations here;

  /** A consumer fetch waiting for data past its fetch offset. */
  private final class ParkedFetch extends DelayedOperation {
    private final long fetchOffset;

    ParkedFetch(TopicPartition tp, long fetchOffset) {
      super(List.of(tp), WaitsOn.HIGH_WATERMARK);
      this.fetchOffset = fetchOffset;
    }

    @Override
    protected boolean isSatisfied() {
      return highWatermark > fetchOffset;
    }

    @Override
    protected void onComplete(boolean timedOut) {}
  }

  @Setup(Level.Trial)
  public void park() {
    elsewhere = new DelayedOperations();
    here = new DelayedOperations();
    for (int i = 0; i < parked; i++) {
      elsewhere.submit(new ParkedFetch(new TopicPartition("other", i), 100), NEVER_MS);
      here.submit(new ParkedFetch(APPENDED, 100), NEVER_MS);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    elsewhere.close();
    here.close();
  }

  @Benchmark
  public void appendWithFetchesOnOtherPartitions() {
    elsewhere.onProgress(APPENDED);
  }

  @Benchmark
  public void leaderAppendWithConsumersOnItsPartition() {
    here.onLogEndMoved(APPENDED);
  }

  @Benchmark
  public void highWatermarkMoveWithConsumersOnItsPartition() {
    here.onProgress(APPENDED);
  }
}
