package io.brook.tests;

import io.brook.testkit.EmbeddedBrook;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * kafka-clients as the tests use them: default settings unless a test says otherwise, and consumers
 * with {@code assign()} and no group (Brook has no group coordinator yet).
 */
public final class TestClients {
  private TestClients() {}

  /**
   * A broker with a PLAINTEXT listener (the test's own clients and the brokers' traffic) and a
   * SASL_PLAINTEXT one whose PLAIN users are alice ({@code alice-secret}), for the tests of SASL
   * logins and of the HTTP listeners that check them.
   *
   * @param mechanisms {@code sasl.enabled.mechanisms}
   */
  public static EmbeddedBrook.Builder saslBroker(String mechanisms) {
    return EmbeddedBrook.builder()
        .config(
            "listeners",
            "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
        .config("advertised.listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
        .config(
            "listener.security.protocol.map",
            "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
        .config("inter.broker.listener.name", "PLAINTEXT")
        .config("sasl.enabled.mechanisms", mechanisms)
        .config(
            "listener.name.sasl_plaintext.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " user_alice=\"alice-secret\";");
  }

  /** A producer with kafka-clients' defaults (idempotent, acks=all) plus overrides. */
  public static KafkaProducer<byte[], byte[]> producer(String bootstrap, String... overrides) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    putPairs(props, overrides);
    return new KafkaProducer<>(props);
  }

  /** A consumer without a group: callers {@code assign()} and seek. */
  public static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String... overrides) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    putPairs(props, overrides);
    return new KafkaConsumer<>(props);
  }

  public static void createTopic(
      String bootstrap, String name, int partitions, Map<String, String> configs)
      throws ExecutionException, InterruptedException {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get();
    }
  }

  public static void createTopic(String bootstrap, String name, int partitions)
      throws ExecutionException, InterruptedException {
    createTopic(bootstrap, name, partitions, Map.of());
  }

  /** Every partition's end offset (high watermark). */
  public static Map<TopicPartition, Long> endOffsets(
      String bootstrap, String topic, int partitions) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      return consumer.endOffsets(partitions(topic, partitions));
    }
  }

  /**
   * Reads every record of the topic's partitions from the beginning up to the end offsets they have
   * now; fails if they cannot all be read within a minute.
   */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(
      String bootstrap, String topic, int partitions) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      List<TopicPartition> tps = partitions(topic, partitions);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (!reached(consumer, ends)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "could not read "
                  + topic
                  + " up to "
                  + ends
                  + " within a minute; read "
                  + out.size());
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          out.add(record);
        }
      }
    }
    return out;
  }

  private static boolean reached(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      if (consumer.position(end.getKey()) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  public static List<TopicPartition> partitions(String topic, int count) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    return tps;
  }

  private static void putPairs(Properties props, String... overrides) {
    if (overrides.length % 2 != 0) {
      throw new IllegalArgumentException("overrides come in name, value pairs");
    }
    for (int i = 0; i < overrides.length; i += 2) {
      props.put(overrides[i], overrides[i + 1]);
    }
  }
}
