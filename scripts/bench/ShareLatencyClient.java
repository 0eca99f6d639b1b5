import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Share-group latency at a steady rate: a producer sends {@code rate} records per second, each
 * carrying its send time; {@code consumers} share consumers in explicit acknowledgement mode
 * accept every record at once and commit the acknowledgements synchronously after each poll. Two
 * distributions, in milliseconds, over the records sent after the warm-up:
 *
 * <ul>
 *   <li>{@code acquire}: send to the moment a consumer's poll hands the record over (delivery
 *       through the share-partition, including the producer's own wait for acks=all);
 *   <li>{@code ack}: that moment to the broker confirming the acknowledgement (what the queue
 *       semantics cost a consumer that processes in no time: the acquisition-to-ack overhead).
 * </ul>
 *
 * <p>Producer and consumers run in this one JVM, so send and receive times come from one clock.
 * Usage: {@code ShareLatencyClient <bootstrap> <topic> <group> <consumers> <rate> <seconds>
 * <warmupSeconds> <recordSize>}. Prints one line of {@code key=value} figures.
 */
public final class ShareLatencyClient {
  private ShareLatencyClient() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println(
          "usage: ShareLatencyClient <bootstrap> <topic> <group> <consumers> <rate> <seconds>"
              + " <warmupSeconds> <recordSize>");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    int consumers = Integer.parseInt(args[3]);
    int rate = Integer.parseInt(args[4]);
    int seconds = Integer.parseInt(args[5]);
    int warmupSeconds = Integer.parseInt(args[6]);
    int recordSize = Math.max(Long.BYTES, Integer.parseInt(args[7]));

    // One slot per record sent: a record's samples are written by whichever consumer gets it.
    int total = rate * (warmupSeconds + seconds);
    long[] acquireNs = new long[total];
    long[] ackNs = new long[total];
    AtomicLong deliveries = new AtomicLong();
    AtomicLong ackFailures = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch polling = new CountDownLatch(consumers);
    long base = System.nanoTime();

    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      Thread thread =
          new Thread(
              () -> consume(bootstrap, topic, group, base, acquireNs, ackNs, deliveries,
                  ackFailures, stop, polling),
              "share-consumer-" + i);
      thread.start();
      threads.add(thread);
    }
    polling.await();
    // Let the group's members join and be assigned before the first record is sent.
    Thread.sleep(3_000);

    long sent = produce(bootstrap, topic, base, total, rate, recordSize);
    // Wait for every record to be acknowledged, or give up after 30 s.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline && acknowledged(ackNs) < sent) {
      Thread.sleep(100);
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(30_000);
    }

    int from = rate * warmupSeconds;
    long[] acquire = samples(acquireNs, from, total);
    long[] ack = samples(ackNs, from, total);
    System.out.printf(
        "sent=%d measured=%d acknowledged=%d deliveries=%d ack_failures=%d"
            + " acquire_p50_ms=%.2f acquire_p99_ms=%.2f acquire_p999_ms=%.2f"
            + " ack_p50_ms=%.2f ack_p99_ms=%.2f ack_p999_ms=%.2f%n",
        sent, total - from, acknowledged(ackNs), deliveries.get(), ackFailures.get(),
        percentile(acquire, 0.50), percentile(acquire, 0.99), percentile(acquire, 0.999),
        percentile(ack, 0.50), percentile(ack, 0.99), percentile(ack, 0.999));
  }

  /** Sends {@code total} records at {@code rate} per second; returns how many were acknowledged. */
  private static long produce(
      String bootstrap, String topic, long base, int total, int rate, int recordSize)
      throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    AtomicLong acked = new AtomicLong();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      long start = System.nanoTime();
      for (int i = 0; i < total; i++) {
        long due = start + (long) i * 1_000_000_000L / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        ByteBuffer value = ByteBuffer.allocate(recordSize);
        value.putInt(0, i);
        value.putLong(Integer.BYTES, System.nanoTime() - base);
        producer.send(
            new ProducerRecord<>(topic, null, value.array()),
            (metadata, error) -> {
              if (error == null) {
                acked.incrementAndGet();
              }
            });
      }
      producer.flush();
    }
    return acked.get();
  }

  private static void consume(
      String bootstrap,
      String topic,
      String group,
      long base,
      long[] acquireNs,
      long[] ackNs,
      AtomicLong deliveries,
      AtomicLong ackFailures,
      AtomicBoolean stop,
      CountDownLatch polling) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put("share.acknowledgement.mode", "explicit");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      boolean first = true;
      int[] ids = new int[512];
      long[] acquired = new long[512];
      while (!stop.get()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        if (first) {
          polling.countDown();
          first = false;
        }
        if (records.isEmpty()) {
          continue;
        }
        long now = System.nanoTime() - base;
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
          ByteBuffer value = ByteBuffer.wrap(record.value());
          int id = value.getInt(0);
          long sentAt = value.getLong(Integer.BYTES);
          if (n == ids.length) {
            ids = Arrays.copyOf(ids, n * 2);
            acquired = Arrays.copyOf(acquired, n * 2);
          }
          ids[n] = id;
          acquired[n++] = now;
          deliveries.incrementAndGet();
          if (id >= 0 && id < acquireNs.length && acquireNs[id] == 0) {
            acquireNs[id] = Math.max(1, now - sentAt);
          }
          consumer.acknowledge(record, AcknowledgeType.ACCEPT);
        }
        Map<TopicIdPartition, Optional<KafkaException>> results = consumer.commitSync();
        long done = System.nanoTime() - base;
        boolean failed = false;
        for (Optional<KafkaException> result : results.values()) {
          failed |= result.isPresent();
        }
        if (failed) {
          ackFailures.incrementAndGet();
          continue;
        }
        for (int i = 0; i < n; i++) {
          int id = ids[i];
          if (id >= 0 && id < ackNs.length && ackNs[id] == 0) {
            ackNs[id] = Math.max(1, done - acquired[i]);
          }
        }
      }
    }
  }

  private static long acknowledged(long[] ackNs) {
    long count = 0;
    for (long value : ackNs) {
      if (value != 0) {
        count++;
      }
    }
    return count;
  }

  /** The non-zero samples of {@code [from, to)}, sorted. */
  private static long[] samples(long[] values, int from, int to) {
    return Arrays.stream(values, from, to).filter(v -> v != 0).sorted().toArray();
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }
}
