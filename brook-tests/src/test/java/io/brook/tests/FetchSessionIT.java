package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Incremental fetch sessions (KIP-227) with a real kafka-clients consumer: after its first full
 * fetch opens a session, a consumer of 50 idle partitions sends fetches that list none of them, and
 * one record later lists only the partition it moved on. The broker counts the partitions its Fetch
 * requests list (a gauge under {@code kafka.server:type=FetchSessionCache}).
 */
class FetchSessionIT {
  private static final String TOPIC = "sessions";
  private static final int PARTITIONS = 50;
  private static final String CACHE = "kafka.server:type=FetchSessionCache,name=";

  @RegisterExtension
  static final BrookExtension BROOK = new BrookExtension(EmbeddedBrook.builder());

  private static long gauge(String name) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    return ((Number) server.getAttribute(new ObjectName(CACHE + name), "Value")).longValue();
  }

  /** Polls until the broker has seen {@code more} further Fetch requests, which bring nothing. */
  private static void pollFetches(KafkaConsumer<byte[], byte[]> consumer, int more)
      throws Exception {
    long target = gauge("FetchRequests") + more;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (gauge("FetchRequests") < target) {
      assertThat(System.nanoTime()).as("the consumer keeps fetching").isLessThan(deadline);
      assertThat(consumer.poll(Duration.ofMillis(50)).count()).as("nothing new").isZero();
    }
  }

  /** Polls until one record arrives; it must be from {@code partition}. */
  private static void readOne(KafkaConsumer<byte[], byte[]> consumer, int partition) {
    int read = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (read == 0) {
      assertThat(System.nanoTime()).as("the record arrives").isLessThan(deadline);
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(50));
      for (ConsumerRecord<byte[], byte[]> record : records) {
        assertThat(record.partition()).isEqualTo(partition);
        read++;
      }
    }
    assertThat(read).isEqualTo(1);
  }

  @Test
  void aConsumerOfIdlePartitionsSendsFetchesListingNoPartitions() throws Exception {
    // Given: 50 partitions, one record in partition 7, read by a consumer of all of them
    TestClients.createTopic(BROOK.bootstrapServers(), TOPIC, PARTITIONS);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      producer.send(new ProducerRecord<>(TOPIC, 7, null, new byte[] {1})).get();
    }
    List<TopicPartition> all = TestClients.partitions(TOPIC, PARTITIONS);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "fetch.max.wait.ms", "50")) {
      consumer.assign(all);
      consumer.seekToBeginning(all);
      readOne(consumer, 7);
      pollFetches(consumer, 3); // the fetch listing partition 7's new position goes out
      assertThat(gauge("NumIncrementalFetchSessions")).isEqualTo(1);
      assertThat(gauge("NumIncrementalFetchPartitionsCached")).isEqualTo(PARTITIONS);

      // When: the consumer fetches idle partitions
      long requestsBefore = gauge("FetchRequests");
      long listedBefore = gauge("FetchRequestPartitions");
      pollFetches(consumer, 10);

      // Then: at least ten more fetches, and none listed a partition
      assertThat(gauge("FetchRequests") - requestsBefore).isGreaterThanOrEqualTo(10);
      assertThat(gauge("FetchRequestPartitions") - listedBefore).isZero();

      // When: one more record, in partition 31
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(BROOK.bootstrapServers())) {
        producer.send(new ProducerRecord<>(TOPIC, 31, null, new byte[] {2})).get();
      }
      long listedBeforeRecord = gauge("FetchRequestPartitions");
      readOne(consumer, 31);
      pollFetches(consumer, 5);

      // Then: only partition 31, whose fetch offset moved, was listed again (once, or twice if
      // the consumer left it out of a fetch while its record waited in its buffer)
      assertThat(gauge("FetchRequestPartitions") - listedBeforeRecord).isBetween(1L, 2L);
      assertThat(gauge("NumIncrementalFetchSessions")).isEqualTo(1);
    }
  }
}
