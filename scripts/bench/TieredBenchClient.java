import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The client side of {@code scripts/bench-tiered.sh}: compiled once by the script with {@code
 * javac} (with {@code BenchClients.java}) against kafka-clients from {@code ~/.m2}, so nothing else
 * needs building. Every command
 * prints one line of {@code key=value} fields on stdout.
 *
 * <pre>
 * create  BOOTSTRAP TOPIC PARTITIONS SEGMENT_BYTES    a topic without tiering, RF 1
 * fill    BOOTSTRAP TOPIC PARTITIONS BYTES RECORD_SIZE produces BYTES of values, partitions in turn
 * tier    BOOTSTRAP TOPIC LOCAL_RETENTION_BYTES       turns remote.storage.enable on
 * probe   BOOTSTRAP TOPIC PARTITIONS START_MS         waits until the broker lists and serves
 * probe-listed BOOTSTRAP TOPIC PARTITIONS START_MS    waits until it lists (reads nothing)
 * replay  BOOTSTRAP TOPIC PARTITIONS BYTES PARTITION_FETCH_BYTES   reads from offset 0
 * </pre>
 *
 * <p>Probe: "listed" is when Metadata names every partition with a leader; "serving" is when, after
 * that, the first record of every partition (from its earliest offset: remote storage on a tiered
 * topic) and a record produced with acks=all to every partition have been read back. Both are
 * seconds since START_MS (the broker's start, epoch milliseconds).
 *
 * <p>Replay: one consumer assigned every partition from the beginning reads BYTES / PARTITIONS of
 * record values from each partition (a partition that has its share is paused), so the same
 * offsets are read whatever the order the broker serves them in. "ttfb" is from the first poll to
 * the first record; the rate is over the whole replay, first poll to last record.
 */
public final class TieredBenchClient {
  /** Longest any command waits for the broker before it gives up (exit status 1). */
  private static final Duration PATIENCE = Duration.ofMinutes(15);

  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    String topic = args[2];
    switch (args[0]) {
      case "create" -> create(bootstrap, topic, Integer.parseInt(args[3]), args[4]);
      case "fill" ->
          fill(
              bootstrap,
              topic,
              Integer.parseInt(args[3]),
              Long.parseLong(args[4]),
              Integer.parseInt(args[5]));
      case "tier" -> tier(bootstrap, topic, args[3]);
      case "probe" -> probe(bootstrap, topic, Integer.parseInt(args[3]), Long.parseLong(args[4]));
      case "probe-listed" -> listed(bootstrap, topic, Integer.parseInt(args[3]), Long.parseLong(args[4]));
      case "replay" ->
          replay(
              bootstrap,
              topic,
              Integer.parseInt(args[3]),
              Long.parseLong(args[4]),
              Integer.parseInt(args[5]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  private static long deadline() {
    return System.nanoTime() + PATIENCE.toNanos();
  }

  private static void checkDeadline(long deadline, String what) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("gave up after " + PATIENCE + ": " + what);
    }
  }

  private static void waitListed(Admin admin, String topic, int partitions, long deadline)
      throws InterruptedException {
    BenchClients.waitListed(
        admin, List.of(topic), partitions, () -> checkDeadline(deadline, "listing " + topic));
  }

  private static void create(String bootstrap, String topic, int partitions, String segmentBytes)
      throws Exception {
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, partitions, (short) 1)
                      .configs(Map.of("segment.bytes", segmentBytes, "retention.ms", "-1"))))
          .all()
          .get();
      waitListed(admin, topic, partitions, deadline());
    }
    System.out.printf(Locale.ROOT, "created topic=%s partitions=%d%n", topic, partitions);
  }

  /**
   * Produces {@code bytes} of values (random, incompressible; sent uncompressed) of {@code
   * recordSize} bytes, 256 records to a partition before the next, so partitions end up the same
   * size.
   */
  private static void fill(
      String bootstrap, String topic, int partitions, long bytes, int recordSize)
      throws Exception {
    Properties props = BenchClients.producerProps(bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "1");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600000");
    byte[][] values = new byte[64][recordSize];
    SplittableRandom random = new SplittableRandom(405);
    for (byte[] v : values) {
      random.nextBytes(v);
    }
    long records = (bytes + recordSize - 1) / recordSize;
    AtomicReference<Exception> failed = new AtomicReference<>();
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (long i = 0; i < records && failed.get() == null; i++) {
        int partition = (int) ((i / 256) % partitions);
        producer.send(
            new ProducerRecord<>(topic, partition, null, values[(int) (i & 63)]),
            (md, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "records=%d bytes=%d seconds=%.1f mb_per_s=%.1f%n",
        records,
        records * recordSize,
        seconds,
        records * recordSize / 1048576.0 / seconds);
  }

  /** Turns tiering on for {@code topic}, keeping {@code localRetentionBytes} per partition. */
  private static void tier(String bootstrap, String topic, String localRetentionBytes)
      throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    List<AlterConfigOp> ops =
        List.of(
            new AlterConfigOp(
                new ConfigEntry("remote.storage.enable", "true"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(
                new ConfigEntry("local.retention.bytes", localRetentionBytes),
                AlterConfigOp.OpType.SET));
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
    }
    System.out.printf(
        Locale.ROOT, "tiered topic=%s local_retention_bytes=%s%n", topic, localRetentionBytes);
  }

  private static List<TopicPartition> partitions(String topic, int partitions) {
    List<TopicPartition> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  private static void listed(String bootstrap, String topic, int partitions, long startMs)
      throws Exception {
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      waitListed(admin, topic, partitions, deadline());
    }
    System.out.printf(
        Locale.ROOT, "listed=%.3f%n", (System.currentTimeMillis() - startMs) / 1000.0);
  }

  private static void probe(String bootstrap, String topic, int partitions, long startMs)
      throws Exception {
    long deadline = deadline();
    try (Admin admin = Admin.create(BenchClients.common(bootstrap))) {
      waitListed(admin, topic, partitions, deadline);
    }
    double listed = (System.currentTimeMillis() - startMs) / 1000.0;
    List<TopicPartition> all = partitions(topic, partitions);
    Map<TopicPartition, Long> written = BenchClients.produceProbes(bootstrap, all);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(BenchClients.consumerProps(bootstrap))) {
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Set<TopicPartition> first = new HashSet<>(all);
      while (!first.isEmpty()) {
        checkDeadline(deadline, "reading the first record of every partition");
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (first.remove(tp)) {
            consumer.pause(List.of(tp));
          }
        }
      }
      consumer.resume(all);
      BenchClients.readProbes(
          consumer, written, () -> checkDeadline(deadline, "reading back the probe records"));
    }
    double serving = (System.currentTimeMillis() - startMs) / 1000.0;
    System.out.printf(Locale.ROOT, "listed=%.3f serving=%.3f%n", listed, serving);
  }

  private static void replay(
      String bootstrap, String topic, int partitions, long bytes, int partitionFetchBytes)
      throws Exception {
    long deadline = deadline();
    List<TopicPartition> all = partitions(topic, partitions);
    long share = bytes / partitions;
    Properties props = BenchClients.consumerProps(bootstrap);
    props.put(
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(partitionFetchBytes));
    Map<TopicPartition, Long> read = new HashMap<>();
    long records = 0;
    long total = 0;
    long firstNs = -1;
    long lastNs;
    long start;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Set<TopicPartition> pending = new HashSet<>(all);
      start = System.nanoTime();
      lastNs = start;
      while (!pending.isEmpty()) {
        checkDeadline(deadline, "replaying " + topic);
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
        if (polled.isEmpty()) {
          continue;
        }
        lastNs = System.nanoTime();
        if (firstNs < 0) {
          firstNs = lastNs;
        }
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (!pending.contains(tp)) {
            continue; // fetched before the pause took effect: past this partition's share
          }
          long size = r.serializedValueSize();
          records++;
          total += size;
          if (read.merge(tp, size, Long::sum) >= share) {
            pending.remove(tp);
            consumer.pause(List.of(tp));
          }
        }
      }
    }
    double seconds = (lastNs - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "ttfb_ms=%.0f seconds=%.2f records=%d bytes=%d mb_per_s=%.1f%n",
        (firstNs - start) / 1e6,
        seconds,
        records,
        total,
        total / 1048576.0 / seconds);
  }
}
