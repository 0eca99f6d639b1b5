package io.brook.tests.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A KIP-848 consumer's assignment follows the metadata: a broker-side regex subscription picks up
 * topics created later, and partitions added to a subscribed topic are assigned.
 */
class ConsumerProtocolMetadataIT {
  @TempDir Path dataDir;
  private EmbeddedBrook brook;

  @BeforeEach
  void start() {
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "3")
            .config("group.consumer.min.heartbeat.interval.ms", "500")
            .config("group.consumer.heartbeat.interval.ms", "500")
            .start();
  }

  @AfterEach
  void stop() {
    brook.close();
  }

  private KafkaConsumer<byte[], byte[]> consumer(String group) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  /** Polls (the consumer is single-threaded) until its assignment satisfies {@code done}. */
  private static Set<TopicPartition> pollUntil(
      KafkaConsumer<byte[], byte[]> consumer, Predicate<Set<TopicPartition>> done) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(deadline)) {
      consumer.poll(Duration.ofMillis(100));
      if (done.test(consumer.assignment())) {
        return consumer.assignment();
      }
    }
    throw new AssertionError("assignment never matched; last " + consumer.assignment());
  }

  @Test
  void aRegexSubscriptionTakesTopicsCreatedLater() throws Exception {
    // Given
    String bootstrap = brook.bootstrapServers();
    TestClients.createTopic(bootstrap, "pay-eu", 2);
    TestClients.createTopic(bootstrap, "refunds", 2);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("regex-app")) {
      consumer.subscribe(new SubscriptionPattern("pay-.*"));
      pollUntil(consumer, a -> a.size() == 2);

      // When
      TestClients.createTopic(bootstrap, "pay-in", 3);

      // Then
      Set<TopicPartition> assignment = pollUntil(consumer, a -> a.size() == 5);
      Set<String> topics = new HashSet<>();
      assignment.forEach(tp -> topics.add(tp.topic()));
      assertThat(topics).containsExactlyInAnyOrder("pay-eu", "pay-in");
    }
  }

  @Test
  void partitionsAddedToASubscribedTopicAreAssigned() throws Exception {
    String bootstrap = brook.bootstrapServers();
    TestClients.createTopic(bootstrap, "shipments", 2);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("growing-app")) {
      consumer.subscribe(List.of("shipments"));
      pollUntil(consumer, a -> a.size() == 2);

      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        admin.createPartitions(Map.of("shipments", NewPartitions.increaseTo(5))).all().get();
      }

      assertThat(pollUntil(consumer, a -> a.size() == 5))
          .contains(new TopicPartition("shipments", 4));
    }
  }
}
