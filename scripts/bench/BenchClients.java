import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the bench clients ({@code RestartBenchClient}, {@code TieredBenchClient}) share: client
 * settings for a broker that may still be starting, waiting until Metadata lists every partition
 * with a leader, and the probe that writes a record to partitions and reads it back. Compiled with
 * them by their scripts.
 */
final class BenchClients {
  private BenchClients() {}

  /** Client settings that retry quickly and wait long: the broker may be starting. */
  static Properties common(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "10");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "50");
    props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "20");
    props.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "50");
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "60000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "600000");
    return props;
  }

  /** A byte-array producer with acks=all. */
  static Properties producerProps(String bootstrap) {
    Properties props = common(bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return props;
  }

  /** A byte-array consumer without a group and without auto-commit, from the earliest offset. */
  static Properties consumerProps(String bootstrap) {
    Properties props = common(bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return props;
  }

  /**
   * Blocks until Metadata lists {@code partitions} partitions with a leader for each of {@code
   * topics}, calling {@code giveUp} before every try (it throws to stop waiting).
   */
  static void waitListed(Admin admin, Collection<String> topics, int partitions, Runnable giveUp)
      throws InterruptedException {
    while (true) {
      giveUp.run();
      try {
        Map<String, TopicDescription> described =
            admin.describeTopics(topics).allTopicNames().get();
        int led = 0;
        for (TopicDescription description : described.values()) {
          for (TopicPartitionInfo info : description.partitions()) {
            if (info.leader() != null && info.leader().id() >= 0) {
              led++;
            }
          }
        }
        if (led == topics.size() * partitions) {
          return;
        }
      } catch (Exception e) {
        // Not up yet, or not every topic known yet.
      }
      Thread.sleep(50);
    }
  }

  /** Writes a record (acks=all) to each of {@code partitions}; returns the offset of each. */
  static Map<TopicPartition, Long> produceProbes(String bootstrap, List<TopicPartition> partitions)
      throws Exception {
    Properties props = producerProps(bootstrap);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600000");
    Map<TopicPartition, Long> written = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        sends.add(
            producer.send(
                new ProducerRecord<>(tp.topic(), tp.partition(), null, "probe".getBytes())));
      }
      for (Future<RecordMetadata> send : sends) {
        RecordMetadata md = send.get();
        written.put(new TopicPartition(md.topic(), md.partition()), md.offset());
      }
    }
    return written;
  }

  /**
   * Reads back the records {@link #produceProbes} wrote, with {@code consumer} (assigned those
   * partitions), calling {@code giveUp} before every poll.
   */
  static void readProbes(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> written, Runnable giveUp) {
    written.forEach(consumer::seek);
    Map<TopicPartition, Long> remaining = new HashMap<>(written);
    while (!remaining.isEmpty()) {
      giveUp.run();
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
      records.forEach(
          r -> remaining.remove(new TopicPartition(r.topic(), r.partition()), r.offset()));
    }
  }
}
