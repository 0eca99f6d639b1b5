package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kafkajs (a pure JavaScript client) against a real Brook: admin calls and a producer writing keys,
 * headers and gzip batches, read back with kafka-clients; and kafkajs consumers sharing a topic in
 * a consumer group.
 */
@Timeout(120)
class KafkaJsIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  /** brook-tests/js: package.json and the script; .ci/run installs node_modules there. */
  private static final Path JS_DIR =
      Path.of(System.getProperty("brook.tests.js.dir", "js")).toAbsolutePath();

  private static Path node;

  @BeforeAll
  static void nodeAndKafkajsAreInstalled() {
    node =
        ChildProcess.onPath("node")
            .orElseThrow(
                () ->
                    new AssertionError(
                        "node is not on PATH. .ci/run installs it (Debian packages nodejs, npm)."));
    assertThat(JS_DIR.resolve("node_modules/kafkajs/package.json"))
        .as(
            "kafkajs is not installed in %s. .ci/run installs it;"
                + " or run: npm install --no-audit --no-fund --no-package-lock --prefix %s",
            JS_DIR, JS_DIR)
        .exists();
  }

  /** {@code node SCRIPT BOOTSTRAP TOPIC} in brook-tests/js. */
  private static ChildProcess.Result node(String script, String topic) {
    return ChildProcess.run(
        List.of(
            node.toString(), JS_DIR.resolve(script).toString(), BROOK.bootstrapServers(), topic),
        Map.of("KAFKAJS_NO_PARTITIONER_WARNING", "1"),
        "",
        Duration.ofSeconds(90));
  }

  @Test
  void kafkajsCreatesATopicAndProducesKeyedRecordsWithHeadersThatKafkaClientsRead()
      throws Exception {
    // Given
    String topic = "from-kafkajs";

    // When
    ChildProcess.Result run = node("produce-and-admin.js", topic);

    // Then: the script's own checks passed
    assertThat(run.exitCode()).as(run.describe()).isZero();
    assertThat(run.stdoutLines())
        .as(run.describe())
        .contains("created " + topic, "metadata partitions=3 leader=1", "sent 1000");
    // and its view of the offsets is kafka-clients' view
    Map<TopicPartition, Long> ends = TestClients.endOffsets(BROOK.bootstrapServers(), topic, 3);
    String expectedOffsets =
        "offsets "
            + String.join(
                " ",
                List.of(
                    "0:" + ends.get(new TopicPartition(topic, 0)),
                    "1:" + ends.get(new TopicPartition(topic, 1)),
                    "2:" + ends.get(new TopicPartition(topic, 2))));
    assertThat(run.stdoutLines()).contains(expectedOffsets);
    // and every record is there once, with its key, value and headers
    List<ConsumerRecord<byte[], byte[]>> records =
        TestClients.readAll(BROOK.bootstrapServers(), topic, 3);
    assertThat(records).hasSize(1000);
    Set<Integer> seqs = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      int seq = Integer.parseInt(new String(record.headers().lastHeader("seq").value(), UTF_8));
      assertThat(seqs.add(seq)).as("seq %d seen twice", seq).isTrue();
      assertThat(new String(record.key(), UTF_8)).isEqualTo("key-" + seq);
      assertThat(new String(record.value(), UTF_8)).isEqualTo("kafkajs value " + seq);
      assertThat(new String(record.headers().lastHeader("client").value(), UTF_8))
          .isEqualTo("kafkajs");
    }
    assertThat(seqs).hasSize(1000).allMatch(seq -> seq >= 0 && seq < 1000);
  }

  @Test
  void kafkajsAdminOperationsAndIdempotentProducer() {
    // When
    ChildProcess.Result run = node("admin-operations.js", "kafkajs-admin");

    // Then
    assertThat(run.exitCode()).as(run.describe()).isZero();
    assertThat(run.stdoutLines())
        .as(run.describe())
        .contains(
            "cluster " + BROOK.brook().server().clusterId(),
            "partitions 4",
            "retention.ms 7200000",
            "idempotent sent 200",
            "deleted records below 10",
            "offsets by timestamp",
            "deleted kafkajs-admin");
  }

  @Test
  void kafkajsConsumersShareATopicInAGroupAndCommit() throws Exception {
    // Given: 300 records written by kafka-clients
    String topic = "kafkajs-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < 300; i++) {
        producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(UTF_8), new byte[] {1}));
      }
    }
    Map<TopicPartition, Long> ends = TestClients.endOffsets(BROOK.bootstrapServers(), topic, 3);

    // When: two kafkajs consumers in one group read them all
    ChildProcess.Result run =
        ChildProcess.run(
            List.of(
                node.toString(),
                JS_DIR.resolve("consume-group.js").toString(),
                BROOK.bootstrapServers(),
                topic,
                "kafkajs-readers",
                "300"),
            Map.of("KAFKAJS_NO_PARTITIONER_WARNING", "1"),
            "",
            Duration.ofSeconds(90));

    // Then
    assertThat(run.exitCode()).as(run.describe()).isZero();
    String committed =
        "committed "
            + String.join(
                " ",
                List.of(
                    "0=" + ends.get(new TopicPartition(topic, 0)),
                    "1=" + ends.get(new TopicPartition(topic, 1)),
                    "2=" + ends.get(new TopicPartition(topic, 2))));
    assertThat(run.stdoutLines())
        .as(run.describe())
        .contains("consumed 300", "members 2", committed, "listed kafkajs-readers");
  }
}
