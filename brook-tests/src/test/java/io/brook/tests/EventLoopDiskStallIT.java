package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.DiskStallHook;
import io.brook.testkit.EmbeddedBrook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A produce that must wait for the disk (a segment roll, a {@code flush.messages} fsync) stalls on
 * a latch inside that disk step, on a broker with one network thread, so every connection shares
 * one Netty event loop. Meanwhile other clients' requests on that loop (ApiVersions and Metadata
 * from a new admin client, a produce to another topic, ListOffsets and fetches) are answered: the
 * stalled step runs on the disk pool, not on the loop. A test whose answers never come fails on its
 * 30-second waits (the stalled step is released then too).
 */
class EventLoopDiskStallIT {
  private static final long WAIT_SECONDS = 30;

  private final CountDownLatch stalled = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void removeHook() {
    DiskStallHook.install(null);
    release.countDown();
  }

  @Test
  void aStalledRollHoldsUpNoOtherRequestOnItsEventLoop() throws Exception {
    try (EmbeddedBrook brook = EmbeddedBrook.builder().config("num.network.threads", "1").start();
        KafkaProducer<byte[], byte[]> producer = producer(brook.bootstrapServers())) {
      // Given a record 10 minutes old in a topic rolling every minute of record time
      TestClients.createTopic(
          brook.bootstrapServers(), "rolling", 1, Map.of("segment.ms", "60000"));
      long now = System.currentTimeMillis();
      producer.send(record("rolling", now - 600_000, "old")).get(WAIT_SECONDS, TimeUnit.SECONDS);
      stallOn("rolling", DiskStallHook.Step.ROLL);

      // When a current record arrives, its append rolls, and the roll stalls
      Future<RecordMetadata> rolling = producer.send(record("rolling", now, "new"));

      // Then
      assertOtherRequestsAnswered(rolling, brook);
      assertThat(rolling.get(WAIT_SECONDS, TimeUnit.SECONDS).offset()).isEqualTo(1);
      assertThat(values(brook.bootstrapServers(), "rolling")).containsExactly("old", "new");
    }
  }

  @Test
  void aStalledFlushMessagesFsyncHoldsUpNoOtherRequestOnItsEventLoop() throws Exception {
    try (EmbeddedBrook brook = EmbeddedBrook.builder().config("num.network.threads", "1").start();
        KafkaProducer<byte[], byte[]> producer = producer(brook.bootstrapServers())) {
      // Given a topic that fsyncs after every record
      TestClients.createTopic(
          brook.bootstrapServers(), "durable", 1, Map.of("flush.messages", "1"));
      stallOn("durable", DiskStallHook.Step.FLUSH_MESSAGES);

      // When a record arrives and its fsync stalls
      Future<RecordMetadata> durable =
          producer.send(record("durable", System.currentTimeMillis(), "synced"));

      // Then
      assertOtherRequestsAnswered(durable, brook);
      assertThat(durable.get(WAIT_SECONDS, TimeUnit.SECONDS).offset()).isZero();
      assertThat(values(brook.bootstrapServers(), "durable")).containsExactly("synced");
    }
  }

  @Test
  void appendsKeepTheirOrderWhenSomeOfThemRoll() throws Exception {
    try (EmbeddedBrook brook = EmbeddedBrook.builder().config("num.network.threads", "1").start();
        // Five requests in flight and no idempotence: only the broker keeps them in order. A
        // batch holds one record (batch.size 1), so every record is its own append: left to batch
        // freely, a slow sender thread could gather all of them into one batch that never rolls.
        KafkaProducer<byte[], byte[]> producer =
            TestClients.producer(
                brook.bootstrapServers(),
                "acks",
                "1",
                "enable.idempotence",
                "false",
                "max.in.flight.requests.per.connection",
                "5",
                "linger.ms",
                "0",
                "batch.size",
                "1")) {
      // Given a topic rolling every minute of record time, and records whose time jumps two
      // minutes every tenth record, so some appends roll off the event loop and the rest do not
      TestClients.createTopic(
          brook.bootstrapServers(), "ordered", 1, Map.of("segment.ms", "60000"));
      long base = System.currentTimeMillis() - 7_200_000;
      List<String> sent = new ArrayList<>();
      List<Future<RecordMetadata>> acks = new ArrayList<>();

      // When
      for (int i = 0; i < 300; i++) {
        String value = "v" + i;
        sent.add(value);
        acks.add(producer.send(record("ordered", base + (i / 10) * 120_000L, value)));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }

      // Then every record is there, in the order sent, across several segments
      assertThat(values(brook.bootstrapServers(), "ordered")).containsExactlyElementsOf(sent);
      Path partitionDir =
          brook
              .server()
              .replicaManager()
              .partitionOrThrow(new TopicPartition("ordered", 0))
              .log()
              .dir();
      try (Stream<Path> files = Files.list(partitionDir)) {
        assertThat(files.filter(f -> f.getFileName().toString().endsWith(".log")))
            .hasSizeGreaterThan(1);
      }
    }
  }

  /** Stalls {@code step} of the topic's partition 0 until {@link #release} opens. */
  private void stallOn(String topic, DiskStallHook.Step step) {
    DiskStallHook.install(
        (tp, current) -> {
          if (tp.topic().equals(topic) && current == step) {
            stalled.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
  }

  /**
   * While {@code stalledSend} waits for its disk step, other clients are served; then the step is
   * released (also when the check fails, so that closing the producer does not wait for it).
   */
  private void assertOtherRequestsAnswered(Future<RecordMetadata> stalledSend, EmbeddedBrook brook)
      throws Exception {
    try {
      assertThat(stalled.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertServed(brook.bootstrapServers());
      assertThat(stalledSend).isNotDone();
    } finally {
      release.countDown();
    }
  }

  private static void assertServed(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap))) {
      assertThat(admin.describeCluster().nodes().get(WAIT_SECONDS, TimeUnit.SECONDS)).hasSize(1);
    }
    TestClients.createTopic(bootstrap, "other", 1);
    try (KafkaProducer<byte[], byte[]> other = producer(bootstrap)) {
      RecordMetadata written =
          other
              .send(record("other", System.currentTimeMillis(), "meanwhile"))
              .get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(written.offset()).isZero();
    }
    assertThat(values(bootstrap, "other")).containsExactly("meanwhile");
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return TestClients.producer(bootstrap, "acks", "1", "linger.ms", "0");
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, long timestamp, String value) {
    return new ProducerRecord<>(topic, 0, timestamp, null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> values(String bootstrap, String topic) {
    List<String> values = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : TestClients.readAll(bootstrap, topic, 1)) {
      values.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    return values;
  }
}
