package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real kafka-clients with default settings against a real in-JVM Brook. */
class ProduceConsumeIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static Properties producerProps(String... overrides) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    for (int i = 0; i < overrides.length; i += 2) {
      props.put(overrides[i], overrides[i + 1]);
    }
    return props;
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String... overrides) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    for (int i = 0; i < overrides.length; i += 2) {
      props.put(overrides[i], overrides[i + 1]);
    }
    return new KafkaConsumer<>(props);
  }

  private static void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  /** Reads every record of the topic's partitions from the beginning up to their end offsets. */
  private static List<ConsumerRecord<byte[], byte[]>> readAll(
      String topic, int partitions, String... overrides) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(overrides)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long total = ends.values().stream().mapToLong(Long::longValue).sum();
      long deadline = System.currentTimeMillis() + 60_000;
      while (out.size() < total && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          out.add(record);
        }
      }
    }
    return out;
  }

  @Test
  void hundredThousandKeyedRecordsWithHeadersAndTimestampsComeBackIntact() throws Exception {
    // Given
    String topic = "orders-100k";
    createTopic(topic, 6);
    int count = 100_000;
    long baseTimestamp = System.currentTimeMillis() - 3_600_000;
    Map<String, Integer> partitionOfKey = new HashMap<>();

    // When: default producer settings (idempotent, acks=all)
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        sends.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    null,
                    baseTimestamp + i,
                    ("order-" + (i % 997)).getBytes(StandardCharsets.UTF_8),
                    ("{\"type\":\"ORDER_PAID\",\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    headers)));
      }
      for (Future<RecordMetadata> send : sends) {
        send.get();
      }
    }
    List<ConsumerRecord<byte[], byte[]>> records = readAll(topic, 6);

    // Then
    assertThat(records).hasSize(count);
    Map<Integer, Long> lastOffset = new HashMap<>();
    Map<Integer, Integer> lastSeqInPartition = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      int seq =
          Integer.parseInt(
              new String(record.headers().lastHeader("seq").value(), StandardCharsets.UTF_8));
      String key = new String(record.key(), StandardCharsets.UTF_8);
      assertThat(key).isEqualTo("order-" + (seq % 997));
      assertThat(new String(record.value(), StandardCharsets.UTF_8))
          .isEqualTo("{\"type\":\"ORDER_PAID\",\"n\":" + seq + "}");
      assertThat(record.timestamp()).isEqualTo(baseTimestamp + seq);
      Integer previousPartition = partitionOfKey.putIfAbsent(key, record.partition());
      assertThat(previousPartition == null || previousPartition == record.partition()).isTrue();
      assertThat(record.offset()).isGreaterThan(lastOffset.getOrDefault(record.partition(), -1L));
      lastOffset.put(record.partition(), record.offset());
      assertThat(seq).isGreaterThan(lastSeqInPartition.getOrDefault(record.partition(), -1));
      lastSeqInPartition.put(record.partition(), seq);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void everyCompressionTypeRoundTrips(String compression) throws Exception {
    // Given
    String topic = "compressed-" + compression;
    createTopic(topic, 2);

    // When
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            producerProps(
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                compression,
                ProducerConfig.LINGER_MS_CONFIG,
                "20"))) {
      for (int i = 0; i < 5_000; i++) {
        producer.send(
            new ProducerRecord<>(
                topic,
                ("k" + i).getBytes(StandardCharsets.UTF_8),
                ("value " + i + " ".repeat(i % 50)).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }

    // Then
    List<ConsumerRecord<byte[], byte[]>> records = readAll(topic, 2);
    assertThat(records).hasSize(5_000);
    assertThat(
            records.stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8))
                .distinct()
                .count())
        .isEqualTo(5_000);
  }

  @Test
  void valuesUpToOneMegabyte() throws Exception {
    // Given
    String topic = "large-values";
    createTopic(topic, 1);
    byte[] value = new byte[1_000_000];
    new Random(7).nextBytes(value);

    // When
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProps(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2000000"))) {
      for (int i = 0; i < 5; i++) {
        producer.send(new ProducerRecord<>(topic, new byte[] {(byte) i}, value)).get();
      }
    }

    // Then
    List<ConsumerRecord<byte[], byte[]>> records = readAll(topic, 1);
    assertThat(records).hasSize(5);
    for (ConsumerRecord<byte[], byte[]> record : records) {
      assertThat(record.value()).isEqualTo(value);
    }
  }

  @Test
  void offsetsForTimesFindsTheFirstOffsetAtOrAfterATimestamp() throws Exception {
    // Given: timestamps 1000 apart
    String topic = "replay-since";
    createTopic(topic, 1);
    long base = System.currentTimeMillis() - 100_000;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
      for (int i = 0; i < 50; i++) {
        producer
            .send(
                new ProducerRecord<>(
                    topic, 0, base + i * 1000L, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
            .get();
      }
    }

    // When / Then
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      TopicPartition tp = new TopicPartition(topic, 0);
      Map<TopicPartition, OffsetAndTimestamp> exact =
          consumer.offsetsForTimes(Map.of(tp, base + 20_000));
      Map<TopicPartition, OffsetAndTimestamp> between =
          consumer.offsetsForTimes(Map.of(tp, base + 20_500));
      Map<TopicPartition, OffsetAndTimestamp> after =
          consumer.offsetsForTimes(Map.of(tp, base + 99_000));
      assertThat(exact.get(tp).offset()).isEqualTo(20);
      assertThat(between.get(tp).offset()).isEqualTo(21);
      assertThat(between.get(tp).timestamp()).isEqualTo(base + 21_000);
      assertThat(after.get(tp)).isNull();
      assertThat(consumer.beginningOffsets(List.of(tp)).get(tp)).isZero();
      assertThat(consumer.endOffsets(List.of(tp)).get(tp)).isEqualTo(50);
    }
  }
}
