package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code brook.jar} in its own process, killed and stopped with real signals, restarted on
 * the same data directory and port.
 */
@Timeout(180)
class BrokerProcessIT {
  /** The marker a clean shutdown leaves in each data directory (LogManager). */
  private static final String CLEAN_SHUTDOWN_MARKER = ".brook_cleanshutdown";

  /** What the log manager says when it starts on a directory that was not closed cleanly. */
  private static final String RECOVERY_LINE = "not shut down cleanly";

  private static final int SIGKILL_STATUS = 128 + 9;

  @TempDir Path tmp;

  @Test
  void everyAcknowledgedRecordSurvivesASigkillExactlyOnce() throws Exception {
    // Given: a producer with default settings (idempotent, acks=all) writing numbered records
    Path dataDir = tmp.resolve("data");
    int port = BrookProcess.freePort();
    Path config = BrookProcess.writeConfig(tmp, dataDir, port, BrookProcess.freePort());
    String bootstrap = "127.0.0.1:" + port;
    String topic = "crash";
    BrookProcess first = BrookProcess.start(config, tmp.resolve("first.log"));
    ProducerLoop loop = new ProducerLoop(bootstrap, topic);
    try {
      first.awaitReady();
      TestClients.createTopic(bootstrap, topic, 3);
      loop.start();
      await("20,000 records acknowledged before the kill")
          .atMost(Duration.ofSeconds(60))
          .until(() -> loop.acknowledged.size() >= 20_000 || !loop.failures.isEmpty());

      // When: SIGKILL mid-stream, then a restart on the same directory and port
      int killedStatus = first.kill();
      int acknowledgedAtKill = loop.acknowledged.size();
      try (BrookProcess second = BrookProcess.start(config, tmp.resolve("second.log"))) {
        second.awaitReady();
        await("the same producer goes on after the restart")
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    loop.acknowledged.size() >= acknowledgedAtKill + 5_000
                        || !loop.failures.isEmpty());
        loop.stopAndFlush();
        List<ConsumerRecord<byte[], byte[]>> records = TestClients.readAll(bootstrap, topic, 3);
        System.out.printf(
            "acknowledged before SIGKILL=%d, acknowledged in all=%d, stored=%d%n",
            acknowledgedAtKill, loop.acknowledged.size(), records.size());

        // Then
        assertThat(killedStatus).isEqualTo(SIGKILL_STATUS);
        assertThat(second.log()).contains(RECOVERY_LINE);
        assertThat(loop.failures).as("sends that failed").isEmpty();
        Map<Long, Integer> copies = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
          copies.merge(ProducerLoop.seqOf(record.value()), 1, Integer::sum);
        }
        Set<Long> duplicated = new HashSet<>();
        copies.forEach(
            (seq, n) -> {
              if (n > 1) {
                duplicated.add(seq);
              }
            });
        assertThat(duplicated).as("records stored more than once").isEmpty();
        Set<Long> missing = new HashSet<>(loop.acknowledged);
        missing.removeAll(copies.keySet());
        assertThat(missing).as("acknowledged records missing after the restart").isEmpty();
        assertThat(records).hasSize(loop.acknowledged.size());
        assertThat(second.terminate(Duration.ofSeconds(10))).isZero();
      }
    } finally {
      loop.abandon();
      first.close();
    }
  }

  @Test
  void sigtermStopsWithStatusZeroAndTheNextStartNeedsNoRecovery() throws Exception {
    // Given
    Path dataDir = tmp.resolve("data");
    int port = BrookProcess.freePort();
    Path config = BrookProcess.writeConfig(tmp, dataDir, port, BrookProcess.freePort());
    String bootstrap = "127.0.0.1:" + port;
    String topic = "clean";
    int stopStatus;
    String firstLog;
    try (BrookProcess first = BrookProcess.start(config, tmp.resolve("first.log"))) {
      first.awaitReady();
      TestClients.createTopic(bootstrap, topic, 2);
      try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
        for (int i = 0; i < 1_000; i++) {
          producer.send(new ProducerRecord<>(topic, ProducerLoop.valueOf(i)));
        }
        producer.flush();
      }

      // When
      stopStatus = first.terminate(Duration.ofSeconds(10));
      firstLog = first.log();
    }

    // Then
    assertThat(stopStatus).as(firstLog).isZero();
    assertThat(firstLog).contains("Brook stopped");
    assertThat(dataDir.resolve(CLEAN_SHUTDOWN_MARKER)).exists();
    try (BrookProcess second = BrookProcess.start(config, tmp.resolve("second.log"))) {
      second.awaitReady();
      assertThat(second.log()).doesNotContain(RECOVERY_LINE);
      assertThat(dataDir.resolve(CLEAN_SHUTDOWN_MARKER))
          .as("consumed at start, so that a crash from now on leads to recovery")
          .doesNotExist();
      assertThat(TestClients.readAll(bootstrap, topic, 2)).hasSize(1_000);
      assertThat(second.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  /**
   * Sends numbered records as fast as the producer takes them (at most 2,000 unacknowledged), and
   * remembers which were acknowledged and which failed.
   */
  private static final class ProducerLoop {
    final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final String bootstrap;
    private final String topic;
    private final Semaphore inFlight = new Semaphore(2_000);
    private final Thread thread;
    private volatile boolean running = true;

    ProducerLoop(String bootstrap, String topic) {
      this.bootstrap = bootstrap;
      this.topic = topic;
      this.thread = new Thread(this::run, "producer-loop");
      this.thread.setDaemon(true);
    }

    static byte[] valueOf(long seq) {
      return String.format("seq=%012d;%s", seq, "x".repeat(80)).getBytes(UTF_8);
    }

    static long seqOf(byte[] value) {
      String text = new String(value, UTF_8);
      return Long.parseLong(text.substring("seq=".length(), text.indexOf(';')));
    }

    void start() {
      thread.start();
    }

    private void run() {
      try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
        for (long seq = 0; running; seq++) {
          if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            seq--;
            continue;
          }
          long thisSeq = seq;
          producer.send(
              new ProducerRecord<>(topic, valueOf(seq)),
              (metadata, exception) -> {
                inFlight.release();
                if (exception == null) {
                  acknowledged.add(thisSeq);
                } else {
                  failures.add("seq " + thisSeq + ": " + exception);
                }
              });
        }
        producer.flush();
      } catch (Exception e) {
        failures.add("producer loop: " + e);
      }
    }

    /** Stops sending without waiting (a test that failed half-way). */
    void abandon() {
      running = false;
    }

    /** Stops sending and waits until every record sent so far is acknowledged or failed. */
    void stopAndFlush() throws InterruptedException {
      running = false;
      thread.join(Duration.ofSeconds(150).toMillis());
      assertThat(thread.isAlive()).as("producer loop still running").isFalse();
    }
  }
}
