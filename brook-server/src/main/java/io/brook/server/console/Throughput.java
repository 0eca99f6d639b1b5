package io.brook.server.console;

import io.brook.protocol.metrics.BrokerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * The node's throughput over the last {@link #WINDOW_MS}, for the console's live chart: every
 * {@link #INTERVAL_MS} the broker-wide counters of {@code kafka.server:type=BrokerTopicMetrics}
 * (bytes in, messages in, bytes out) are read and the rates since the previous sample kept in a
 * fixed ring, so the history costs the same memory however long the node runs. Sampling runs on the
 * node's scheduler; readers copy the ring under its lock.
 */
final class Throughput implements AutoCloseable {
  static final long INTERVAL_MS = 5_000;
  static final long WINDOW_MS = 15 * 60_000;
  private static final int CAPACITY = (int) (WINDOW_MS / INTERVAL_MS);
  private static final String DOMAIN = "kafka.server";
  private static final String TYPE = "BrokerTopicMetrics";

  /** Rates per second over the interval ending at {@code timeMs}. */
  record Sample(long timeMs, double bytesIn, double bytesOut, double recordsIn) {}

  private final LongSupplier bytesIn;
  private final LongSupplier bytesOut;
  private final LongSupplier recordsIn;
  private final LongSupplier clock;
  private final Sample[] ring = new Sample[CAPACITY];
  private int next;
  private int size;
  private long lastTimeMs = -1;
  private long lastBytesIn;
  private long lastBytesOut;
  private long lastRecordsIn;
  private ScheduledFuture<?> task;

  Throughput(
      LongSupplier bytesIn, LongSupplier bytesOut, LongSupplier recordsIn, LongSupplier clock) {
    this.bytesIn = bytesIn;
    this.bytesOut = bytesOut;
    this.recordsIn = recordsIn;
    this.clock = clock;
  }

  /** Samples the node's meters every {@link #INTERVAL_MS} on {@code scheduler}. */
  static Throughput start(BrokerMetrics metrics, ScheduledExecutorService scheduler) {
    Throughput throughput =
        new Throughput(
            counter(metrics, "BytesInPerSec"),
            counter(metrics, "BytesOutPerSec"),
            counter(metrics, "MessagesInPerSec"),
            System::currentTimeMillis);
    throughput.sample();
    try {
      throughput.task =
          scheduler.scheduleWithFixedDelay(
              throughput::sample, INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The node is stopping.
    }
    return throughput;
  }

  /** The all-topics meter's count, 0 before its first use registers it. */
  private static LongSupplier counter(BrokerMetrics metrics, String name) {
    MetricName metricName = BrokerMetrics.name(DOMAIN, TYPE, name, BrokerMetrics.COUNT);
    return () -> {
      KafkaMetric metric = metrics.registry().metric(metricName);
      return metric == null ? 0 : ((Number) metric.metricValue()).longValue();
    };
  }

  /** Takes one sample; the first only sets the baseline. */
  synchronized void sample() {
    long now = clock.getAsLong();
    long in = bytesIn.getAsLong();
    long out = bytesOut.getAsLong();
    long records = recordsIn.getAsLong();
    if (lastTimeMs >= 0 && now > lastTimeMs) {
      double seconds = (now - lastTimeMs) / 1000.0;
      ring[next] =
          new Sample(
              now,
              Math.max(0, in - lastBytesIn) / seconds,
              Math.max(0, out - lastBytesOut) / seconds,
              Math.max(0, records - lastRecordsIn) / seconds);
      next = (next + 1) % CAPACITY;
      size = Math.min(size + 1, CAPACITY);
    }
    lastTimeMs = now;
    lastBytesIn = in;
    lastBytesOut = out;
    lastRecordsIn = records;
  }

  /** The samples, oldest first. */
  synchronized List<Sample> samples() {
    List<Sample> samples = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      samples.add(ring[(next - size + i + CAPACITY) % CAPACITY]);
    }
    return samples;
  }

  /** The latest sample, or null before the second. */
  synchronized Sample latest() {
    return size == 0 ? null : ring[(next - 1 + CAPACITY) % CAPACITY];
  }

  static int capacity() {
    return CAPACITY;
  }

  @Override
  public synchronized void close() {
    if (task != null) {
      task.cancel(false);
    }
  }
}
