package io.brook.tests.cluster.eos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once read-process-write through crashes: three nodes (separate JVMs), a payments topic
 * fed throughout, and {@link SettlementApp} in its own JVM turning every payment into a ledger
 * entry and committing its input offsets in the same transaction. Payments keep arriving until the
 * faults are over. During the run the test SIGKILLs the application, the leader of an output
 * partition, the transaction coordinator and the group coordinator. At the end {@link
 * ExactlyOnceChecker} reads the ledger with {@code read_committed}: every payment appears exactly
 * once and the committed offsets match the outputs.
 */
class ExactlyOnceFaultsIT {
  private static final String INPUT = "payment-events";
  private static final String OUTPUT = "ledger-entries";
  private static final String GROUP = "settlement";
  private static final String TRANSACTIONAL_ID = "settlement-0";
  private static final int PARTITIONS = 6;

  /** Upper bound; the source runs until the faults are over. */
  private static final int MAX_PAYMENTS = 100_000;

  private static final int PAYMENTS_PER_SECOND = 150;

  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterHarness.start(dir, 3, Map.of());
    admin = admin(cluster.bootstrapServers());
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyPaymentSettlesExactlyOnceThroughCrashes() throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic(INPUT, PARTITIONS, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2")),
                new NewTopic(OUTPUT, PARTITIONS, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2"))))
        .all()
        .get(60, TimeUnit.SECONDS);
    Path appLog =
        Files.createDirectories(Path.of("target", "cluster-logs")).resolve("settlement.log");
    Files.deleteIfExists(appLog);
    try (PaymentSource source = new PaymentSource(cluster.bootstrapServers());
        SettlementProcess app =
            new SettlementProcess(
                appLog, cluster.bootstrapServers(), INPUT, OUTPUT, GROUP, TRANSACTIONAL_ID)) {
      awaitProgress("the first transactions");

      System.out.println("fault: SIGKILL the settlement application mid-transaction");
      app.killMidTransaction();
      awaitProgress("a new instance of the application");

      crashAndRestart("the leader of " + OUTPUT + "-0", leaderOf(OUTPUT, 0));
      crashAndRestart(
          "the transaction coordinator",
          leaderOf("__transaction_state", Utils.abs(TRANSACTIONAL_ID.hashCode()) % 50));
      System.out.println("fault: SIGKILL the settlement application mid-transaction");
      app.killMidTransaction();
      crashAndRestart(
          "the group coordinator",
          leaderOf("__consumer_offsets", Utils.abs(GROUP.hashCode()) % 50));

      source.finish(Duration.ofSeconds(90));
      ExactlyOnceChecker checker = new ExactlyOnceChecker(cluster.bootstrapServers());
      Map<TopicPartition, Long> inputEnds = checker.endOffsets(INPUT, "read_committed");
      await("the group commits the end of " + INPUT + " " + inputEnds)
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> committed().equals(inputEnds));
      app.close();

      int hidden = checker.check(INPUT, OUTPUT, committed());
      assertThat(hidden)
          .as("ledger records of the transactions the killed instances left open")
          .isPositive();
      System.out.printf(
          "exactly once: %d payments, %d application instances, %d aborted ledger records hidden"
              + " from read_committed%n",
          inputEnds.values().stream().mapToLong(Long::longValue).sum(), app.starts(), hidden);
    }
  }

  private static void crashAndRestart(String what, Node node) throws Exception {
    System.out.printf("fault: SIGKILL %s (node %d)%n", what, node.id());
    node.kill();
    awaitProgress("the surviving nodes after losing " + what);
    node.restart();
    awaitProgress("the cluster with node " + node.id() + " back");
  }

  /**
   * Waits until the group commits at least 100 more input records than it had when its committed
   * offsets could first be read. That first read is part of the wait: it comes right after a fault
   * (or at the start, when the first FindCoordinator creates {@code __consumer_offsets}), while the
   * group coordinator may be moving or loading, so it fails and is asked again like every later
   * read; outside the wait it would race the failover against the admin client's timeout.
   */
  private static void awaitProgress(String by) throws Exception {
    long started = System.nanoTime();
    AtomicLong before = new AtomicLong(-1);
    await("transactions committed by " + by)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              long now = total(committed());
              if (before.get() < 0) {
                before.set(now);
                System.out.printf(
                    "committed offsets readable %d ms after the wait for %s began%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), by);
              }
              return now >= before.get() + 100;
            });
  }

  private static long total(Map<TopicPartition, Long> offsets) {
    return offsets.values().stream().mapToLong(Long::longValue).sum();
  }

  private static Map<TopicPartition, Long> committed() throws Exception {
    Map<TopicPartition, Long> offsets =
        new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
    Map<TopicPartition, OffsetAndMetadata> listed =
        admin
            .listConsumerGroupOffsets(GROUP)
            .partitionsToOffsetAndMetadata()
            .get(10, TimeUnit.SECONDS);
    listed.forEach(
        (tp, offset) -> {
          if (offset != null) {
            offsets.put(tp, offset.offset());
          }
        });
    return offsets;
  }

  private static Node leaderOf(String topic, int partition) {
    return await("the leader of " + topic + "-" + partition)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              TopicDescription description =
                  admin
                      .describeTopics(List.of(topic))
                      .allTopicNames()
                      .get(10, TimeUnit.SECONDS)
                      .get(topic);
              return cluster.node(description.partitions().get(partition).leader().id());
            },
            node -> true);
  }

  private static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    return Admin.create(props);
  }

  /** Payments arriving at a steady pace on their own thread, idempotent and acks=all. */
  private static final class PaymentSource implements AutoCloseable {
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile Throwable failure;

    PaymentSource(String bootstrap) {
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
      props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
      props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producer = new KafkaProducer<>(props);
      thread = new Thread(this::run, "payment-source");
      thread.setDaemon(true);
      thread.start();
    }

    private void run() {
      long started = System.nanoTime();
      for (int i = 0; i < MAX_PAYMENTS && running.get(); i++) {
        long due = started + i * 1_000_000_000L / PAYMENTS_PER_SECOND;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
        producer.send(
            new ProducerRecord<>(INPUT, "account-" + (i % 97), "payment-" + i),
            (metadata, error) -> {
              if (error != null) {
                failure = error;
              } else {
                acked.incrementAndGet();
              }
            });
      }
      producer.flush();
    }

    /** Stops sending and waits until every payment sent is acknowledged. */
    void finish(Duration within) throws InterruptedException {
      running.set(false);
      thread.join(within.toMillis());
      if (thread.isAlive() || failure != null) {
        throw new AssertionError("payments acknowledged: " + acked.get(), failure);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join(30_000);
      producer.close(Duration.ofSeconds(10));
    }
  }
}
