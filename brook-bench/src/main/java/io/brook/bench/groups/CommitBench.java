package io.brook.bench.groups;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Offset-commit throughput and latency against any Kafka-protocol broker, the sizing figure of a
 * 2,000-topic cluster (19,200 committed offsets per second per cluster). Each of {@code clients}
 * consumers belongs to its own group and commits {@code partitionsPerCommit} offsets per
 * synchronous OffsetCommit, as fast as answers come back.
 *
 * <pre>java -cp brook-bench/target/benchmarks.jar io.brook.bench.groups.CommitBench \
 *     BOOTSTRAP [clients=16] [partitionsPerCommit=12] [seconds=20]</pre>
 *
 * Prints one line: offsets committed per second, commit requests per second, and request latency
 * p50/p99/p999 in ms, excluding the first quarter of the run (warm-up).
 */
public final class CommitBench {
  private CommitBench() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 12;
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    String topic = "commit-bench";
    createTopic(bootstrap, topic, partitions);

    long warmupEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) / 4;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<Histogram>> results = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      String group = "commit-bench-" + c + "-" + System.nanoTime();
      results.add(
          pool.submit(() -> runClient(bootstrap, group, topic, partitions, warmupEnd, end)));
    }
    Histogram all = new Histogram(3);
    for (Future<Histogram> result : results) {
      all.add(result.get());
    }
    pool.shutdown();
    double measuredSeconds = (end - warmupEnd) / 1e9;
    System.out.printf(
        "commit-bench clients=%d partitionsPerCommit=%d offsets_per_s=%.0f commits_per_s=%.0f"
            + " p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f%n",
        clients,
        partitions,
        all.getTotalCount() * partitions / measuredSeconds,
        all.getTotalCount() / measuredSeconds,
        all.getValueAtPercentile(50) / 1000.0,
        all.getValueAtPercentile(99) / 1000.0,
        all.getValueAtPercentile(99.9) / 1000.0);
  }

  private static Histogram runClient(
      String bootstrap, String group, String topic, int partitions, long warmupEnd, long end) {
    Histogram latencyMicros = new Histogram(3);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      long offset = 0;
      while (true) {
        long started = System.nanoTime();
        if (started >= end) {
          return latencyMicros;
        }
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        offset++;
        for (int p = 0; p < partitions; p++) {
          commit.put(new TopicPartition(topic, p), new OffsetAndMetadata(offset));
        }
        consumer.commitSync(commit, Duration.ofSeconds(30));
        long finished = System.nanoTime();
        if (started >= warmupEnd) {
          latencyMicros.recordValue(Math.max(1, (finished - started) / 1000));
        }
      }
    }
  }

  private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }
}
