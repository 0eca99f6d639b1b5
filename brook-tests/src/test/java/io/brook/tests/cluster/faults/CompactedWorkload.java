package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A compacted topic under faults: an idempotent acks=all producer overwrites 40 keys over and over
 * ({@code key -> key/version}) on a topic with {@code cleanup.policy=compact} whose segments roll
 * every second, so the log cleaner works while the faults happen. The check, once every send
 * settled: for each key, the newest record in the log holds the newest acknowledged version (the
 * producer sends a key's versions in order to one partition, so the last acknowledged is the last
 * sent), and no send failed.
 */
final class CompactedWorkload implements CampaignWorkload {
  private static final int KEYS = 40;
  private static final int PARTITIONS = 3;

  private final Map<String, Long> newestAcked = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private String bootstrap;
  private String topic;
  private KafkaProducer<String, String> producer;
  private Thread thread;
  private volatile boolean stopping;
  private long acked;

  @Override
  public String name() {
    return "compacted";
  }

  @Override
  public void start(String bootstrap, String prefix) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = prefix + "-compacted";
    TopicReader.create(
        bootstrap,
        Map.of(topic, PARTITIONS),
        Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "1000",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0"));
    producer = new KafkaProducer<>(ProducerWorkload.config(bootstrap));
    thread = new Thread(this::run, "compacted-producer");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    long version = 0;
    while (!stopping) {
      long v = version++;
      String key = "k" + (v % KEYS);
      try {
        var unused =
            producer.send(
                new ProducerRecord<>(topic, key, key + "/" + v),
                (metadata, error) -> {
                  if (error == null) {
                    newestAcked.merge(key, v, Math::max);
                    synchronized (this) {
                      acked++;
                    }
                  } else {
                    failures.add(key + "/" + v + ": " + error);
                  }
                });
        TimeUnit.MILLISECONDS.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        failures.add(key + "/" + v + ": " + e);
      }
    }
  }

  @Override
  public Result finish() throws Exception {
    stopping = true;
    thread.join();
    producer.flush();
    List<String> violations = new ArrayList<>();
    failures.forEach(f -> violations.add("send failed: " + f));
    Map<String, String> newest = readNewest();
    for (Map.Entry<String, Long> e : newestAcked.entrySet()) {
      String expected = e.getKey() + "/" + e.getValue();
      String found = newest.get(e.getKey());
      if (!expected.equals(found)) {
        violations.add(
            "key " + e.getKey() + ": newest acknowledged " + expected + ", newest in log " + found);
      }
    }
    synchronized (this) {
      return new Result(acked, violations);
    }
  }

  /** The value of each key's last record, read from the beginning to the high watermark. */
  private Map<String, String> readNewest() {
    Map<String, String> newest = new HashMap<>();
    for (ConsumerRecord<String, String> r :
        TopicReader.readAll(OffsetWatcher.config(bootstrap), topic, PARTITIONS)) {
      newest.put(r.key(), r.value());
    }
    return newest;
  }

  @Override
  public void close() {
    stopping = true;
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
