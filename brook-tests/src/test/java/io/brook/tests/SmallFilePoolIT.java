package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A broker allowed only four open segment files serves a topic of 24 partitions to real
 * kafka-clients: every fetch response sends (with zero copy) from more files than the bound, which
 * the pool must keep open while Netty sends them and close afterwards, and every produce reopens a
 * file another one evicted.
 */
class SmallFilePoolIT {
  private static final String TOPIC = "small-pool";
  private static final int PARTITIONS = 24;
  private static final int RECORDS_PER_PARTITION = 200;

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(EmbeddedBrook.builder().config("brook.log.max.open.files", "4"));

  @Test
  void everyRecordReadsBackThroughAPoolSmallerThanOneFetch() throws Exception {
    // Given
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    }
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
      for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
        for (int p = 0; p < PARTITIONS; p++) {
          producer.send(new ProducerRecord<>(TOPIC, p, "k", value(p, i)));
        }
      }
      producer.flush();
    }

    // When
    Map<Integer, List<String>> read = readAll();

    // Then
    for (int p = 0; p < PARTITIONS; p++) {
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
        expected.add(value(p, i));
      }
      assertThat(read.get(p)).as("partition " + p).isEqualTo(expected);
    }
  }

  private static String value(int partition, int i) {
    return "p" + partition + "-" + i + "-" + "x".repeat(40);
  }

  private static Map<Integer, List<String>> readAll() {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    Map<Integer, List<String>> out = new HashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        tps.add(new TopicPartition(TOPIC, p));
        out.put(p, new ArrayList<>());
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      long total = (long) PARTITIONS * RECORDS_PER_PARTITION;
      long seen = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seen < total && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          out.get(record.partition()).add(record.value());
          seen++;
        }
      }
    }
    return out;
  }
}
