package io.brook.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.brook.coordinator.group.lag.GroupLag;
import io.brook.coordinator.group.lag.PartitionLag;
import io.brook.testkit.BrookExtension;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Brook's lag view: lag in records and in time, records already lost to retention, and the forecast
 * of when retention will delete records a group has not read.
 */
class GroupLagIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final long HOUR = 3_600_000L;

  /** 100 records, one batch each, the first 2 hours old and the rest spread up to now. */
  private static TopicPartition topicWithOldRecords(String topic) throws Exception {
    TestClients.createTopic(
        BROOK.bootstrapServers(), topic, 1, Map.of("retention.ms", Long.toString(3 * HOUR)));
    long now = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < 100; i++) {
        long timestamp = now - 2 * HOUR + i * (2 * HOUR / 100);
        producer.send(new ProducerRecord<>(topic, 0, timestamp, null, new byte[] {(byte) i})).get();
      }
    }
    return new TopicPartition(topic, 0);
  }

  private static void commit(String group, TopicPartition tp, long offset) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "group.id", group)) {
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)));
    }
  }

  private static GroupLag lag(String group) throws Exception {
    return BROOK.brook().server().groupCoordinator().lag(group).get(10, TimeUnit.SECONDS);
  }

  @Test
  void lagInRecordsAndTimeWithADataLossForecastForAStalledGroup() throws Exception {
    TopicPartition tp = topicWithOldRecords("payments");
    commit("stalled", tp, 40);

    PartitionLag lag = lag("stalled").partitions().get(0);
    assertThat(lag.committedOffset()).isEqualTo(40);
    assertThat(lag.logEndOffset()).isEqualTo(100);
    assertThat(lag.lagRecords()).isEqualTo(60);
    // Record 40 was written 2h - 40 * 72 s = 72 minutes ago.
    assertThat(lag.lagTime().orElseThrow().toMillis())
        .isCloseTo(Duration.ofMinutes(72).toMillis(), within(60_000L));
    // A group that consumes nothing loses its next record when it is 3 h old: in 108 minutes.
    assertThat(lag.dataLossIn().orElseThrow().toMillis())
        .isCloseTo(Duration.ofMinutes(108).toMillis(), within(60_000L));
    assertThat(lag.recordsLost()).isZero();
  }

  @Test
  void aGroupConsumingFasterThanProductionHasNoForecast() throws Exception {
    TopicPartition tp = topicWithOldRecords("refunds");
    commit("busy", tp, 10);
    commit("busy", tp, 90);
    GroupLag lag = lag("busy");
    assertThat(lag.totalLagRecords()).isEqualTo(10);
    assertThat(lag.dataLossIn()).isEmpty();
  }

  @Test
  void aCaughtUpGroupHasNoLagAndRecordsBelowTheLogStartAreCountedAsLost() throws Exception {
    TopicPartition tp = topicWithOldRecords("invoices");
    commit("caught-up", tp, 100);
    commit("behind", tp, 20);
    assertThat(lag("caught-up").partitions().get(0).lagTime()).contains(Duration.ZERO);
    assertThat(lag("caught-up").totalLagRecords()).isZero();

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(50))).all().get();
    }
    PartitionLag behind = lag("behind").partitions().get(0);
    assertThat(behind.recordsLost()).isEqualTo(30);
    assertThat(behind.lagRecords()).isEqualTo(50);
    assertThat(List.of(behind.topicPartition())).containsExactly(tp);
  }
}
