package io.brook.tests.cluster.eos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The exactly-once checks of a read-process-write run, from what the cluster holds at the end:
 *
 * <ul>
 *   <li>the group's committed input offsets are the input's end offsets (everything was processed);
 *   <li>read with {@code read_committed}, the output holds exactly one entry per input record, each
 *       carrying that record's value and position;
 *   <li>so the committed input positions and the outputs match: input records below a committed
 *       offset have their output, and no output exists for any other.
 * </ul>
 *
 * Also reports how many output records {@code read_uncommitted} shows beyond those: the aborted
 * transactions' writes, which {@code read_committed} must hide.
 */
final class ExactlyOnceChecker {
  private final String bootstrap;

  ExactlyOnceChecker(String bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** The input's records by position ({@code partition:offset}), read to the end. */
  Map<String, String> inputByPosition(String topic) {
    Map<String, String> byPosition = new HashMap<>();
    for (ConsumerRecord<String, String> r : readAll(topic, "read_committed")) {
      byPosition.put(r.partition() + ":" + r.offset(), r.value());
    }
    return byPosition;
  }

  /** End offsets as a consumer with {@code isolation} sees them (the LSO for read_committed). */
  Map<TopicPartition, Long> endOffsets(String topic, String isolation) {
    try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
      Map<TopicPartition, Long> ends =
          new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
      ends.putAll(consumer.endOffsets(partitions(consumer, topic), Duration.ofSeconds(30)));
      return ends;
    }
  }

  /**
   * Checks the output against the input.
   *
   * @return how many output records only read_uncommitted sees (aborted writes)
   */
  int check(String input, String output, Map<TopicPartition, Long> committed) {
    Map<String, String> inputs = inputByPosition(input);
    Map<TopicPartition, Long> inputEnds = endOffsets(input, "read_committed");
    assertThat(committed).as("committed offsets of the group").isEqualTo(inputEnds);

    List<ConsumerRecord<String, String>> outputs = readAll(output, "read_committed");
    Map<String, Integer> perInput = new HashMap<>();
    for (ConsumerRecord<String, String> r : outputs) {
      int bar = r.value().lastIndexOf('|');
      assertThat(bar).as("output %s", r.value()).isPositive();
      String position = r.value().substring(bar + 1);
      String value = r.value().substring(0, bar);
      assertThat(inputs.get(position))
          .as("input at %s, written at output %d:%d", position, r.partition(), r.offset())
          .isEqualTo(value);
      perInput.merge(position, 1, Integer::sum);
    }
    List<String> duplicated = new ArrayList<>();
    perInput.forEach(
        (position, count) -> {
          if (count > 1) {
            duplicated.add(position + " x" + count);
          }
        });
    assertThat(duplicated).as("inputs with more than one committed output").isEmpty();
    assertThat(perInput.keySet())
        .as("inputs with a committed output")
        .containsExactlyInAnyOrderElementsOf(inputs.keySet());
    return readAll(output, "read_uncommitted").size() - outputs.size();
  }

  private List<ConsumerRecord<String, String>> readAll(String topic, String isolation) {
    List<ConsumerRecord<String, String>> all = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
      List<TopicPartition> partitions = partitions(consumer, topic);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!reached(consumer, ends)) {
        assertThat(System.nanoTime()).as("reading %s to %s", topic, ends).isLessThan(deadline);
        consumer.poll(Duration.ofMillis(200)).forEach(all::add);
      }
    }
    return all;
  }

  private static boolean reached(
      KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (consumer.position(end.getKey()) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
      partitions.add(new TopicPartition(topic, p.partition()));
    }
    return partitions;
  }

  private KafkaConsumer<String, String> consumer(String isolation) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }
}
