package io.brook.cli.verify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The topic a verification works on: created when missing, its partitions' end offsets before the
 * workload (where the verification's own records start), and reading it back.
 */
final class VerifyTopic {
  private final String name;
  private final int partitions;

  private VerifyTopic(String name, int partitions) {
    this.name = name;
    this.partitions = partitions;
  }

  /**
   * The topic {@code name}, created with {@code partitions} and {@code replicationFactor} (the
   * broker's default when not positive) when it does not exist.
   */
  static VerifyTopic open(Admin admin, String name, int partitions, short replicationFactor)
      throws Exception {
    try {
      NewTopic topic =
          new NewTopic(
              name,
              Optional.of(partitions),
              replicationFactor > 0 ? Optional.of(replicationFactor) : Optional.empty());
      admin.createTopics(List.of(topic)).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
    TopicDescription description =
        admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
    return new VerifyTopic(name, description.partitions().size());
  }

  /** The user's client properties with an idempotent acks=all producer of strings on top. */
  static Properties producerConfig(Properties client) {
    Properties props = new Properties();
    props.putAll(client);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return props;
  }

  /** The user's client properties with a consumer of strings that commits only when told. */
  static Properties consumerConfig(Properties client) {
    Properties props = new Properties();
    props.putAll(client);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return props;
  }

  String name() {
    return name;
  }

  int partitions() {
    return partitions;
  }

  List<TopicPartition> topicPartitions() {
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      all.add(new TopicPartition(name, p));
    }
    return all;
  }

  /** Each partition's end offset (the high watermark) now. */
  Map<TopicPartition, Long> endOffsets(Admin admin) throws Exception {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    for (TopicPartition tp : topicPartitions()) {
      query.put(tp, OffsetSpec.latest());
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin.listOffsets(query).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  /**
   * Every record a {@code read_committed} consumer reads from {@code from} to each partition's high
   * watermark at the start of the read, within {@code timeout}. Reading to the high watermark, not
   * to the last stable offset, waits for the transactions open at the start to end: a commit
   * returns before its markers are on every partition, so right after one the last stable offset of
   * a partition may still be below the transaction, which would look like a partial transaction.
   *
   * @throws IllegalStateException when the read does not reach the end in time
   */
  List<ConsumerRecord<String, String>> readCommitted(
      Properties client, Map<TopicPartition, Long> from, Duration timeout) {
    Properties props = consumerConfig(client);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> all = topicPartitions();
      consumer.assign(all);
      all.forEach(tp -> consumer.seek(tp, from.getOrDefault(tp, 0L)));
      Map<TopicPartition, Long> ends;
      Properties uncommitted = new Properties();
      uncommitted.putAll(props);
      uncommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
      try (KafkaConsumer<String, String> highWatermarks = new KafkaConsumer<>(uncommitted)) {
        ends = highWatermarks.endOffsets(all, timeout);
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (all.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "reading " + name + " did not reach the end offsets " + ends + " in " + timeout);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(read::add);
      }
    }
    return read;
  }
}
