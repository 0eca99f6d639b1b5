import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The client side of {@code scripts/restart-bench.sh}, compiled by the script with {@code javac}
 * (with {@code BenchClients.java}) against kafka-clients from {@code ~/.m2}, so it needs nothing
 * built.
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

  private static void setup(String bootstrap, int topics, int partitions, int records)
      throws Exception {
    List<String> names = names(topics);
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      for (int from = 0; from < topics; from += 100) {
        List<NewTopic> batch = new ArrayList<>();
        for (String name : names.subList(from, Math.min(topics, from + 100))) {
          batch.add(new NewTopic(name, partitions, (short) 1));
        }
        admin.createTopics(batch).all().get();
      }
      BenchClients.waitListed(admin, names, partitions, () -> {});
    }
    Properties props = BenchClients.producerProps(bootstrap);
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

  private static void probe(String bootstrap, int topics, int partitions, long startMs)
      throws Exception {
    List<String> names = names(topics);
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      BenchClients.waitListed(admin, names, partitions, () -> {});
    }
    double listed = (System.currentTimeMillis() - startMs) / 1000.0;
    List<TopicPartition> sample = new ArrayList<>();
    for (int t = 0; t < topics; t += 100) {
      sample.add(new TopicPartition(names.get(t), 0));
    }
    Map<TopicPartition, Long> written = BenchClients.produceProbes(bootstrap, sample);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(BenchClients.consumerProps(bootstrap))) {
      consumer.assign(sample);
      BenchClients.readProbes(consumer, written, () -> {});
    }
    double serving = (System.currentTimeMillis() - startMs) / 1000.0;
    System.out.printf(Locale.ROOT, "listed=%.3f serving=%.3f%n", listed, serving);
  }
}
