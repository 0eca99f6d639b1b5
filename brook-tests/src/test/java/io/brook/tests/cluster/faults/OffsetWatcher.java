package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer that reads a topic while the faults happen (read_uncommitted, every partition
 * assigned, from the beginning) and remembers which record it saw at each offset. A consumer is
 * served only what lies below the high watermark, which is never rewritten, so the invariant is: an
 * offset never holds two different records over time. The watcher checks that against everything it
 * reads (a consumer reset to the beginning reads offsets again), and {@link
 * io.brook.cli.verify.ReplicationChecker} against the final contents of the log.
 */
final class OffsetWatcher implements AutoCloseable {
  /** {@code partition/offset -> record id} of everything read so far. */
  private final Map<String, String> seen = new ConcurrentHashMap<>();

  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final KafkaConsumer<String, String> consumer;
  private final Thread thread;
  private volatile boolean stopping;
  private volatile Throwable crash;

  OffsetWatcher(String bootstrap, String topic, int partitions) {
    consumer = new KafkaConsumer<>(config(bootstrap));
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      all.add(new TopicPartition(topic, p));
    }
    consumer.assign(all);
    consumer.seekToBeginning(all);
    thread = new Thread(this::run, "offset-watcher");
    thread.setDaemon(true);
  }

  static Properties config(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    props.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    props.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
    props.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    return props;
  }

  OffsetWatcher start() {
    thread.start();
    return this;
  }

  private void run() {
    try {
      while (!stopping) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          String at = r.partition() + "/" + r.offset();
          String before = seen.putIfAbsent(at, r.value());
          if (before != null && !before.equals(r.value())) {
            violations.add(
                "offset "
                    + at
                    + " held "
                    + before
                    + ", later "
                    + r.value()
                    + " (read at "
                    + java.time.Instant.now()
                    + ")");
          }
        }
      }
    } catch (Throwable t) {
      crash = t;
    }
  }

  /** Stops reading; what was seen stays available. */
  void stop() throws InterruptedException {
    stopping = true;
    thread.join(30_000);
    if (crash != null) {
      throw new AssertionError("the offset watcher's consumer failed", crash);
    }
  }

  Map<String, String> seen() {
    return Map.copyOf(seen);
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  @Override
  public void close() {
    stopping = true;
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    consumer.close();
  }
}
