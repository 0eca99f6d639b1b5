package io.brook.tests.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker-wide fair share ({@code brook.quota.fair.share.bytes.per.second}), with no quota
 * configured: a backfill producing at full speed saturates the broker's budget and is throttled,
 * while a small producer sending 1,000 records a second, below its fair share, never is.
 */
@Timeout(120)
class FairShareIT {
  /** A budget of 2 MiB/s, over two samples of 1 s so throttling starts within seconds. */
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("brook.quota.fair.share.bytes.per.second", "" + 2 * 1024 * 1024)
              .config("quota.window.num", "2")
              .config("quota.window.size.seconds", "1"));

  @Test
  void theBackfillIsThrottledAndTheSmallProducerIsNot() throws Exception {
    TestClients.createTopic(BROOK.bootstrapServers(), "backfill", 1);
    TestClients.createTopic(BROOK.bootstrapServers(), "small", 1);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> smallFailure = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> backfill =
            TestClients.producer(
                BROOK.bootstrapServers(),
                "client.id",
                "backfill",
                "acks",
                "1",
                "linger.ms",
                "5",
                "buffer.memory",
                "4194304");
        KafkaProducer<byte[], byte[]> small =
            TestClients.producer(
                BROOK.bootstrapServers(), "client.id", "small", "acks", "1", "linger.ms", "1")) {
      Thread backfillSender =
          new Thread(
              () -> {
                byte[] value = new byte[16 * 1024];
                while (!stop.get()) {
                  backfill.send(new ProducerRecord<>("backfill", value));
                }
              },
              "backfill-sender");
      // About 1,000 records of 100 bytes a second: far below a fair share of the budget
      Thread smallSender =
          new Thread(
              () -> {
                byte[] value = new byte[100];
                try {
                  while (!stop.get()) {
                    small.send(new ProducerRecord<>("small", value));
                    Thread.sleep(1);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                  smallFailure.set(e);
                }
              },
              "small-sender");
      backfillSender.start();
      smallSender.start();
      try {
        // When: the backfill is throttled
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> ClientQuotaIT.metric(backfill.metrics(), "produce-throttle-time-max") > 0);
        // and both keep sending for a few more windows while it is (about 3 s of the small one)
        double sent = ClientQuotaIT.metric(small.metrics(), "record-send-total");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> ClientQuotaIT.metric(small.metrics(), "record-send-total") > sent + 3_000);
      } finally {
        stop.set(true);
        backfillSender.join();
        smallSender.join();
      }
      small.flush();

      // Then: the backfill was throttled, the small producer never
      assertThat(smallFailure.get()).isNull();
      assertThat(ClientQuotaIT.metric(backfill.metrics(), "produce-throttle-time-avg"))
          .isGreaterThan(0);
      assertThat(ClientQuotaIT.metric(small.metrics(), "produce-throttle-time-max")).isZero();
    }
  }
}
