package io.brook.bench.quotas;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The latency a small producer sees next to a backfill, against any Kafka-protocol broker: a
 * producer sending {@code rate} records of 100 bytes a second (acks=1, linger.ms=0) measures each
 * record's send-to-ack time, alone or while another producer ("backfill") writes 16 KiB records to
 * another topic as fast as it can.
 *
 * <pre>java -cp brook-bench/target/benchmarks.jar io.brook.bench.quotas.FairShareBench \
 *     BOOTSTRAP alone|backfill [seconds=30] [rate=1000]</pre>
 *
 * Prints one line: the small producer's records acknowledged, p50/p99/p999 ack latency in ms over
 * the run after its first fifth (warm-up), and the backfill's MiB/s.
 */
public final class FairShareBench {
  private FairShareBench() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    boolean backfill = args[1].equals("backfill");
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    int rate = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    String suffix = "-" + System.currentTimeMillis();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("fair-small" + suffix, 1, (short) 1),
                  new NewTopic("fair-backfill" + suffix, 6, (short) 1)))
          .all()
          .get();
    }
    AtomicBoolean stop = new AtomicBoolean();
    long[] backfilled = new long[1];
    Thread backfiller =
        new Thread(
            () -> {
              try (KafkaProducer<byte[], byte[]> producer =
                  new KafkaProducer<>(ProducerConfigs.of(bootstrap, "backfill", 5))) {
                byte[] value = new byte[16 * 1024];
                while (!stop.get()) {
                  producer.send(
                      new ProducerRecord<>("fair-backfill" + suffix, value),
                      (m, e) -> {
                        if (e == null) {
                          synchronized (backfilled) {
                            backfilled[0] += value.length;
                          }
                        }
                      });
                }
                producer.close(java.time.Duration.ZERO);
              }
            },
            "backfill");
    if (backfill) {
      backfiller.start();
      Thread.sleep(3_000); // the backfill is at full speed before the measurement starts
    }
    Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    long start = System.nanoTime();
    long warmupEnd = start + TimeUnit.SECONDS.toNanos(seconds) / 5;
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
    int records = seconds * rate;
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(ProducerConfigs.of(bootstrap, "small", 0))) {
      byte[] value = new byte[100];
      for (int i = 0; i < records; i++) {
        long due = start + i * intervalNanos;
        long now;
        while ((now = System.nanoTime()) < due) {
          TimeUnit.NANOSECONDS.sleep(Math.min(due - now, 200_000));
        }
        long sentAt = due; // open loop: a late send counts its wait
        producer.send(
            new ProducerRecord<>("fair-small" + suffix, value),
            (m, e) -> {
              if (e == null && sentAt >= warmupEnd) {
                synchronized (latency) {
                  latency.recordValue(
                      Math.min(
                          latency.getHighestTrackableValue(),
                          TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sentAt)));
                }
              }
            });
      }
      producer.flush();
    }
    long elapsedNanos = System.nanoTime() - start;
    stop.set(true);
    if (backfill) {
      backfiller.join();
    }
    double backfillMib;
    synchronized (backfilled) {
      backfillMib = backfilled[0] / (1024.0 * 1024.0) / (elapsedNanos / 1e9);
    }
    System.out.printf(
        "%s acked=%d p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f backfill_mib_s=%.1f%n",
        backfill ? "backfill" : "alone",
        latency.getTotalCount(),
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getValueAtPercentile(99.9) / 1000.0,
        backfillMib);
  }
}
