package io.brook.tests.tools;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Used by {@code scripts/bench-transactions.sh}, not a test: send-to-receive latency at a fixed,
 * open-loop rate, for a transactional producer committing every {@code COMMIT_MS} read by a {@code
 * read_committed} consumer, or (mode {@code plain}) for an idempotent producer read by a {@code
 * read_uncommitted} consumer, the reference the added latency of transactions is measured against.
 *
 * <pre>
 * TransactionalLatency BOOTSTRAP TOPIC MODE RATE SECONDS COMMIT_MS   # MODE: transactional | plain
 * </pre>
 *
 * The first fifth of the run is warm-up and not counted. Each value carries a run id, a sequence
 * number and the {@link System#nanoTime()} of its send, so producer and consumer share one clock.
 * Prints {@code sent=N received=N p50_ms=X p99_ms=X p999_ms=X max_ms=X record_retries=N}, the last
 * the producer's {@code record-retry-total}: batches it sent again after a retriable error, which
 * for a transactional producer are mostly CONCURRENT_TRANSACTIONS while a transaction ends. Only
 * the public client API is used, so it runs against any Kafka-protocol broker.
 */
public final class TransactionalLatency {
  private static final int RECORD_SIZE = 1024;

  private TransactionalLatency() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    boolean transactional = args[2].equals("transactional");
    int rate = Integer.parseInt(args[3]);
    int seconds = Integer.parseInt(args[4]);
    long commitNanos = Long.parseLong(args[5]) * 1_000_000L;
    int total = rate * seconds;
    long[] latencies = new long[total];
    Arrays.fill(latencies, -1);
    long runId = ThreadLocalRandom.current().nextLong();
    AtomicLong received = new AtomicLong();
    long retries = -1;
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, transactional);
        KafkaProducer<byte[], byte[]> producer = producer(bootstrap, transactional)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
        partitions.add(new TopicPartition(topic, p.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      Thread receiver =
          new Thread(
              () -> receive(consumer, runId, latencies, received, total), "latency-receiver");
      receiver.start();
      if (transactional) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      long started = System.nanoTime();
      long lastCommit = started;
      byte[] padding = new byte[RECORD_SIZE - 24];
      for (int seq = 0; seq < total; seq++) {
        long due = started + seq * 1_000_000_000L / rate;
        long now = System.nanoTime();
        if (due > now) {
          LockSupport.parkNanos(due - now);
        }
        ByteBuffer value = ByteBuffer.allocate(RECORD_SIZE);
        value.putLong(runId).putLong(seq).putLong(System.nanoTime()).put(padding);
        producer.send(new ProducerRecord<>(topic, value.array()));
        if (transactional && System.nanoTime() - lastCommit >= commitNanos) {
          producer.commitTransaction();
          producer.beginTransaction();
          lastCommit = System.nanoTime();
        }
      }
      if (transactional) {
        producer.commitTransaction();
      } else {
        producer.flush();
      }
      receiver.join(30_000);
      receiver.interrupt();
      receiver.join();
      retries = producerTotal(producer, "record-retry-total");
    }
    report(latencies, total, received.get(), retries);
  }

  /** A cumulative producer metric ({@code producer-metrics} group), -1 if the client has none. */
  private static long producerTotal(KafkaProducer<?, ?> producer, String name) {
    for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
      if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
        return ((Number) e.getValue().metricValue()).longValue();
      }
    }
    return -1;
  }

  private static void receive(
      KafkaConsumer<byte[], byte[]> consumer,
      long runId,
      long[] latencies,
      AtomicLong received,
      int total) {
    while (received.get() < total && !Thread.currentThread().isInterrupted()) {
      try {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long now = System.nanoTime();
          ByteBuffer value = ByteBuffer.wrap(r.value());
          if (value.remaining() < 24 || value.getLong(0) != runId) {
            continue;
          }
          int seq = (int) value.getLong(8);
          if (seq >= 0 && seq < latencies.length && latencies[seq] < 0) {
            latencies[seq] = now - value.getLong(16);
            received.incrementAndGet();
          }
        }
      } catch (org.apache.kafka.common.errors.InterruptException e) {
        return;
      }
    }
  }

  private static void report(long[] latencies, int total, long received, long retries) {
    int warmup = total / 5;
    long[] counted =
        Arrays.stream(latencies, warmup, latencies.length).filter(l -> l >= 0).sorted().toArray();
    System.out.printf(
        "sent=%d received=%d p50_ms=%.1f p99_ms=%.1f p999_ms=%.1f max_ms=%.1f record_retries=%d%n",
        total,
        received,
        percentile(counted, 0.50),
        percentile(counted, 0.99),
        percentile(counted, 0.999),
        percentile(counted, 1.0),
        retries);
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, boolean readCommitted) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap, boolean transactional) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    if (transactional) {
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "latency-" + System.nanoTime());
    }
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(props);
  }
}
