package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka's {@code kafka-consumer-groups} tool against Brook: list, describe with lag, replay since a
 * time with {@code --reset-offsets --to-datetime}, delete.
 */
@Timeout(180)
class ConsumerGroupsToolIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final String TOOL = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
  private static final String TOPIC = "tool-orders";
  private static final String GROUP = "tool-group";

  private static ChildProcess.Result tool(String... args) {
    ChildProcess.Result result =
        ChildProcess.run(ChildProcess.javaCommand(TOOL, args), "", Duration.ofSeconds(60));
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  @Test
  void listDescribeReplaySinceATimeAndDelete() throws Exception {
    String bootstrap = BROOK.bootstrapServers();
    TestClients.createTopic(bootstrap, TOPIC, 2);
    Instant now = Instant.now();
    long old = now.minus(2, ChronoUnit.HOURS).toEpochMilli();
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      for (int partition = 0; partition < 2; partition++) {
        for (int i = 0; i < 10; i++) {
          long timestamp = i < 5 ? old : now.toEpochMilli();
          producer.send(new ProducerRecord<>(TOPIC, partition, timestamp, null, new byte[1])).get();
        }
      }
    }
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    TopicPartition p1 = new TopicPartition(TOPIC, 1);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(bootstrap, "group.id", GROUP)) {
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(2), p1, new OffsetAndMetadata(3)));
    }

    assertThat(tool("--bootstrap-server", bootstrap, "--list").stdout()).contains(GROUP);

    String describe =
        tool("--bootstrap-server", bootstrap, "--describe", "--group", GROUP).stdout();
    assertThat(describe).contains("LAG");
    assertThat(describe.lines().filter(l -> l.contains(TOPIC)).map(ConsumerGroupsToolIT::columns))
        .containsExactlyInAnyOrder(
            List.of(GROUP, TOPIC, "0", "2", "10", "8"), List.of(GROUP, TOPIC, "1", "3", "10", "7"));

    String since =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxxx")
            .withZone(ZoneOffset.UTC)
            .format(now.minus(1, ChronoUnit.HOURS));
    tool(
        "--bootstrap-server",
        bootstrap,
        "--reset-offsets",
        "--group",
        GROUP,
        "--topic",
        TOPIC,
        "--to-datetime",
        since,
        "--execute");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
      assertThat(offsets.get(p0).offset()).isEqualTo(5);
      assertThat(offsets.get(p1).offset()).isEqualTo(5);
    }

    assertThat(tool("--bootstrap-server", bootstrap, "--delete", "--group", GROUP).stdout())
        .contains("successful");
    assertThat(tool("--bootstrap-server", bootstrap, "--list").stdout()).doesNotContain(GROUP);
  }

  /** The first six columns of a describe row: group, topic, partition, current, end, lag. */
  private static List<String> columns(String line) {
    return List.of(line.trim().split("\\s+")).subList(0, 6);
  }
}
