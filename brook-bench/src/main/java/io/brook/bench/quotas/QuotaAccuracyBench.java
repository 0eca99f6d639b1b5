package io.brook.bench.quotas;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Quota accuracy against any Kafka-protocol broker: one kafka-clients producer (or consumer) held
 * to a {@code producer_byte_rate} (or {@code consumer_byte_rate}) quota set for its client id runs
 * at full speed; the bytes acknowledged (or consumed) are counted per 100 ms, and after a warm-up
 * (the quota window's first burst) cut into consecutive spans of each given length, whose rates are
 * compared with the quota.
 *
 * <pre>java -cp brook-bench/target/benchmarks.jar io.brook.bench.quotas.QuotaAccuracyBench \
 *     BOOTSTRAP produce|consume QUOTA_BYTES_PER_S [seconds=60] [warmupSeconds=20] [spans=1,5,20]
 * </pre>
 *
 * Prints one line per span length: how many spans, the median, lowest and highest rate (MiB/s), and
 * the median and largest error against the quota, in percent.
 */
public final class QuotaAccuracyBench {
  private static final int RECORD_BYTES = 1024;
  private static final long BUCKET_MS = 100;
  private static final double MIB = 1024.0 * 1024.0;

  private QuotaAccuracyBench() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    boolean produce = args[1].equals("produce");
    long quota = Long.parseLong(args[2]);
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 60;
    int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 20;
    int[] spans =
        Arrays.stream((args.length > 5 ? args[5] : "1,5,20").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    String kind = produce ? "produce" : "consume";
    String topic = "quota-bench-" + kind + "-" + quota + "-" + System.currentTimeMillis();
    String clientId = "quota-bench-" + kind + "-" + quota;
    int total = warmup + seconds;
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      if (!produce) {
        // Enough for the whole run at the quota, written before the quota's client reads it
        fill(bootstrap, topic, (long) (quota * total * 1.3));
      }
      String key = produce ? "producer_byte_rate" : "consumer_byte_rate";
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                      List.of(new ClientQuotaAlteration.Op(key, (double) quota)))))
          .all()
          .get();
      Thread.sleep(1_000); // every broker applies it well within a second
    }
    AtomicLongArray buckets = new AtomicLongArray((int) (total * 1000 / BUCKET_MS) + 1);
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(total);
    if (produce) {
      produce(bootstrap, topic, clientId, buckets, start, end);
    } else {
      consume(bootstrap, topic, clientId, buckets, start, end);
    }
    int from = (int) (warmup * 1000 / BUCKET_MS);
    for (int span : spans) {
      report(kind, quota, span, buckets, from);
    }
  }

  private static void count(AtomicLongArray buckets, long start, long bytes) {
    int i = (int) (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) / BUCKET_MS);
    if (i < buckets.length()) {
      buckets.addAndGet(i, bytes);
    }
  }

  private static void produce(
      String bootstrap,
      String topic,
      String clientId,
      AtomicLongArray buckets,
      long start,
      long end) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerConfig(bootstrap, clientId))) {
      byte[] value = new byte[RECORD_BYTES];
      while (System.nanoTime() < end) {
        producer.send(
            new ProducerRecord<>(topic, value),
            (m, e) -> {
              if (e == null) {
                count(buckets, start, RECORD_BYTES);
              }
            });
      }
      producer.close(Duration.ZERO); // what waits behind the quota is not counted
    }
  }

  private static void consume(
      String bootstrap,
      String topic,
      String clientId,
      AtomicLongArray buckets,
      long start,
      long end) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.CLIENT_ID_CONFIG,
            clientId,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      while (System.nanoTime() < end) {
        long bytes = 0;
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          bytes += record.serializedValueSize();
        }
        count(buckets, start, bytes);
      }
    }
  }

  /** Writes {@code bytes} of records to {@code topic} with a producer without a quota. */
  private static void fill(String bootstrap, String topic, long bytes) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerConfig(bootstrap, "quota-bench-fill"))) {
      byte[] value = new byte[RECORD_BYTES];
      for (long sent = 0; sent < bytes; sent += RECORD_BYTES) {
        producer.send(new ProducerRecord<>(topic, value));
      }
      producer.flush();
    }
  }

  private static Map<String, Object> producerConfig(String bootstrap, String clientId) {
    Map<String, Object> config = ProducerConfigs.of(bootstrap, clientId, 5);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 4L * 1024 * 1024);
    return config;
  }

  /** The rates of consecutive spans of {@code span} seconds from bucket {@code from} on. */
  private static void report(String kind, long quota, int span, AtomicLongArray buckets, int from) {
    int perSpan = (int) (span * 1000 / BUCKET_MS);
    List<Double> rates = new ArrayList<>();
    for (int i = from; i + perSpan <= buckets.length() - 1; i += perSpan) {
      long bytes = 0;
      for (int b = i; b < i + perSpan; b++) {
        bytes += buckets.get(b);
      }
      rates.add(bytes / (double) span);
    }
    if (rates.isEmpty()) {
      System.out.printf("%s quota_mib=%.2f span_s=%d n=0%n", kind, quota / MIB, span);
      return;
    }
    double[] sorted = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] errors =
        rates.stream().mapToDouble(r -> Math.abs(r - quota) * 100.0 / quota).sorted().toArray();
    System.out.printf(
        "%s quota_mib=%.2f span_s=%d n=%d median_mib=%.3f min_mib=%.3f max_mib=%.3f"
            + " median_err_pct=%.1f max_err_pct=%.1f%n",
        kind,
        quota / MIB,
        span,
        sorted.length,
        sorted[sorted.length / 2] / MIB,
        sorted[0] / MIB,
        sorted[sorted.length - 1] / MIB,
        errors[errors.length / 2],
        errors[errors.length - 1]);
  }
}
