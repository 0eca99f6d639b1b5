import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
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
 * The client side of {@code scripts/restart-bench.sh}, run as a single-file program ({@code java
 * -cp kafka-clients.jar:slf4j-api.jar RestartBenchClient.java ...}), so it needs nothing built.
 *
 * <pre>
 * setup BOOTSTRAP TOPICS PARTITIONS RECORDS   creates rb-0..rb-(TOPICS-1), RECORDS records per partition
 * probe BOOTSTRAP TOPICS PARTITIONS START_MS  waits until the broker serves, prints the times
 * </pre>
 *
 * <p>"Listed" is when Metadata names every partition of every topic with a leader; "serving" is
 * when, after that, a record produced with acks=all to partition 0 of every 100th topic is read
 * back by a consumer. Both are printed in seconds since START_MS (the broker's start).
 */
public final class RestartBenchClient {
  private static final String PREFIX = "rb-";

  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    int topics = Integer.parseInt(args[2]);
    int partitions = Integer.parseInt(args[3]);
    long arg = Long.parseLong(args[4]);
    switch (args[0]) {
      case "setup" -> setup(bootstrap, topics, partitions, (int) arg);
      case "probe" -> probe(bootstrap, topics, partitions, arg);
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  private static List<String> names(int topics) {
    List<String> names = new ArrayList<>();
    for (int t = 0; t < topics; t++) {
      names.add(PREFIX + t);
    }
    return names;
  }

  private static Properties common(String bootstrap) {
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

  private static void setup(String bootstrap, int topics, int partitions, int records)
      throws Exception {
    List<String> names = names(topics);
    try (Admin admin = Admin.create(common(bootstrap))) {
      for (int from = 0; from < topics; from += 100) {
        List<NewTopic> batch = new ArrayList<>();
        for (String name : names.subList(from, Math.min(topics, from + 100))) {
          batch.add(new NewTopic(name, partitions, (short) 1));
        }
        admin.createTopics(batch).all().get();
      }
      waitListed(admin, names, partitions);
    }
    Properties props = common(bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    byte[] value = new byte[100];
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int r = 0; r < records; r++) {
        for (String name : names) {
          for (int p = 0; p < partitions; p++) {
            producer.send(new ProducerRecord<>(name, p, null, value));
          }
        }
      }
      producer.flush();
    }
    System.out.printf(
        Locale.ROOT,
        "created topics=%d partitions=%d records=%d%n",
        topics,
        topics * partitions,
        (long) topics * partitions * records);
  }

  /** Blocks until Metadata lists every partition with a leader. */
  private static void waitListed(Admin admin, List<String> names, int partitions)
      throws InterruptedException {
    while (true) {
      try {
        Map<String, TopicDescription> described =
            admin.describeTopics(names).allTopicNames().get();
        int led = 0;
        for (TopicDescription description : described.values()) {
          for (TopicPartitionInfo info : description.partitions()) {
            if (info.leader() != null && info.leader().id() >= 0) {
              led++;
            }
          }
        }
        if (led == names.size() * partitions) {
          return;
        }
      } catch (Exception e) {
        // Not up yet, or not every topic known yet.
      }
      Thread.sleep(50);
    }
  }

  private static void probe(String bootstrap, int topics, int partitions, long startMs)
      throws Exception {
    List<String> names = names(topics);
    try (Admin admin = Admin.create(common(bootstrap))) {
      waitListed(admin, names, partitions);
    }
    double listed = (System.currentTimeMillis() - startMs) / 1000.0;
    List<TopicPartition> sample = new ArrayList<>();
    for (int t = 0; t < topics; t += 100) {
      sample.add(new TopicPartition(names.get(t), 0));
    }
    Properties props = common(bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600000");
    Map<TopicPartition, Long> written = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (TopicPartition tp : sample) {
        sends.add(
            producer.send(
                new ProducerRecord<>(tp.topic(), tp.partition(), null, "probe".getBytes())));
      }
      for (Future<RecordMetadata> send : sends) {
        RecordMetadata md = send.get();
        written.put(new TopicPartition(md.topic(), md.partition()), md.offset());
      }
    }
    Properties cprops = common(bootstrap);
    cprops.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cprops.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cprops)) {
      consumer.assign(sample);
      written.forEach(consumer::seek);
      Map<TopicPartition, Long> remaining = new HashMap<>(written);
      while (!remaining.isEmpty()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        records.forEach(
            r -> remaining.remove(new TopicPartition(r.topic(), r.partition()), r.offset()));
      }
    }
    double serving = (System.currentTimeMillis() - startMs) / 1000.0;
    System.out.printf(Locale.ROOT, "listed=%.3f serving=%.3f%n", listed, serving);
  }
}
