package io.brook.tests.cluster.faults;

import io.brook.cli.verify.ReplicationChecker;
import io.brook.cli.verify.ReplicationChecker.Stored;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Topics of the campaign's workloads: creating them, and reading one whole after the faults. */
final class TopicReader {
  private TopicReader() {}

  /**
   * Creates topics of replication factor 3 and {@code min.insync.replicas=2}, with {@code configs}
   * on top, {@code name -> partitions}.
   */
  static void create(String bootstrap, Map<String, Integer> topics, Map<String, String> configs)
      throws Exception {
    List<NewTopic> all = new ArrayList<>();
    topics.forEach(
        (name, partitions) -> {
          Map<String, String> merged = new java.util.HashMap<>(configs);
          merged.put("min.insync.replicas", "2");
          all.add(new NewTopic(name, partitions, (short) 3).configs(merged));
        });
    try (Admin admin = FaultScenario.admin(bootstrap)) {
      admin.createTopics(all).all().get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * What {@link #readAll} finds in each partition, as the {@link ReplicationChecker} takes it
   * ({@code partition -> records in offset order}, every partition present).
   */
  static Map<Integer, List<Stored>> readStored(String bootstrap, String topic, int partitions) {
    Map<Integer, List<Stored>> read = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      read.put(p, new ArrayList<>());
    }
    for (ConsumerRecord<String, String> r :
        readAll(OffsetWatcher.config(bootstrap), topic, partitions)) {
      read.get(r.partition()).add(new Stored(r.partition(), r.offset(), r.value()));
    }
    return read;
  }

  /**
   * Every record of every partition from the beginning to its high watermark at the start of the
   * read. With a {@code read_committed} config that means waiting for the transactions open then to
   * end: a producer's commit returns once the coordinator has decided it, before the markers are on
   * every partition, so right after a commit the last stable offset may still be below the
   * transaction's records (while its offsets, which got their marker first, already count as
   * committed). A transaction that never ends makes the read fail after 180 s.
   */
  static List<ConsumerRecord<String, String>> readAll(
      Properties config, String topic, int partitions) {
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(topic, p));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Map<TopicPartition, Long> ends;
      Properties uncommitted = new Properties();
      uncommitted.putAll(config);
      uncommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
      try (KafkaConsumer<String, String> highWatermarks = new KafkaConsumer<>(uncommitted)) {
        ends = highWatermarks.endOffsets(all, Duration.ofSeconds(60));
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (all.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError(
              "reading " + topic + " did not reach the end offsets " + ends + " within 180 s");
        }
        consumer.poll(Duration.ofMillis(500)).forEach(read::add);
      }
    }
    return read;
  }
}
