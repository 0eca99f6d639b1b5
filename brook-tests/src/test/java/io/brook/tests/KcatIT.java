package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kcat, a librdkafka (C) client, against a real Brook: it produces, consumes and lists metadata,
 * and what it writes kafka-clients reads and the other way round.
 */
@Timeout(120)
class KcatIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final Duration KCAT_TIMEOUT = Duration.ofSeconds(60);
  private static Path kcat;

  @BeforeAll
  static void kcatIsInstalled() {
    kcat =
        ChildProcess.onPath("kcat")
            .orElseThrow(
                () ->
                    new AssertionError(
                        "kcat is not on PATH. .ci/run installs it (apt-get install kcat);"
                            + " run `bash .ci/run` once, or install the Debian package kcat."));
  }

  private static ChildProcess.Result kcat(String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add(kcat.toString());
    command.addAll(List.of(args));
    ChildProcess.Result result = ChildProcess.run(command, stdin, KCAT_TIMEOUT);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  /** {@code kcat -C}: every record from the beginning to the current end, one line each. */
  private static List<String> kcatConsume(String topic, String format) {
    return kcat(
            "",
            "-C",
            "-b",
            BROOK.bootstrapServers(),
            "-t",
            topic,
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            format)
        .stdoutLines();
  }

  @Test
  void keyedLinesProducedByKcatAreConsumedByKcat() throws Exception {
    // Given
    String topic = "kcat-keyed";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);
    List<String> sent = IntStream.range(0, 300).mapToObj(i -> "key-" + i + ":value " + i).toList();

    // When
    kcat(
        String.join("\n", sent) + "\n",
        "-P",
        "-b",
        BROOK.bootstrapServers(),
        "-t",
        topic,
        "-K",
        ":");
    List<String> consumed = kcatConsume(topic, "%k=%s\n");

    // Then
    assertThat(consumed)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 300).mapToObj(i -> "key-" + i + "=value " + i).toList());
  }

  @Test
  void kcatsBalancedConsumerReadsEveryRecordInAGroupAndCommits() throws Exception {
    // Given
    String topic = "kcat-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);
    List<String> sent = IntStream.range(0, 200).mapToObj(i -> "k" + i + ":v" + i).toList();
    kcat(
        String.join("\n", sent) + "\n",
        "-P",
        "-b",
        BROOK.bootstrapServers(),
        "-t",
        topic,
        "-K",
        ":");

    // When: librdkafka's balanced consumer (JoinGroup/SyncGroup, OffsetCommit) reads to the end
    List<String> consumed =
        kcat(
                "",
                "-b",
                BROOK.bootstrapServers(),
                "-G",
                "kcat-readers",
                topic,
                "-o",
                "beginning",
                "-e",
                "-q",
                "-f",
                "%k=%s\n")
            .stdoutLines();

    // Then
    assertThat(consumed)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 200).mapToObj(i -> "k" + i + "=v" + i).toList());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets("kcat-readers").partitionsToOffsetAndMetadata().get();
      Map<TopicPartition, Long> ends = TestClients.endOffsets(BROOK.bootstrapServers(), topic, 3);
      assertThat(committed.keySet()).isEqualTo(ends.keySet());
      committed.forEach((tp, offset) -> assertThat(offset.offset()).isEqualTo(ends.get(tp)));
    }
  }

  @Test
  void kcatListsTheBrokerAndTheTopicsPartitions() throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), "kcat-metadata", 4);

    // When
    ChildProcess.Result metadata =
        kcat("", "-L", "-b", BROOK.bootstrapServers(), "-t", "kcat-metadata");

    // Then
    assertThat(metadata.stdout())
        .as(metadata.describe())
        .contains(
            "1 brokers:",
            "broker 1 at 127.0.0.1:" + BROOK.brook().port(),
            "topic \"kcat-metadata\" with 4 partitions:");
    for (int p = 0; p < 4; p++) {
      assertThat(metadata.stdout()).contains("partition " + p + ", leader 1, replicas: 1, isrs: 1");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void whatKcatProducesKafkaClientsReadWithKeysAndHeaders(String codec) throws Exception {
    // Given
    String topic = "from-kcat-" + codec;
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    String input =
        IntStream.range(0, 500)
            .mapToObj(i -> "k" + i + "|payload " + i)
            .collect(Collectors.joining("\n"));

    // When
    kcat(
        input + "\n",
        "-P",
        "-b",
        BROOK.bootstrapServers(),
        "-t",
        topic,
        "-K",
        "|",
        "-z",
        codec,
        "-H",
        "producer=kcat");
    List<ConsumerRecord<byte[], byte[]>> records =
        TestClients.readAll(BROOK.bootstrapServers(), topic, 2);

    // Then
    assertThat(records).hasSize(500);
    List<String> seen = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      String key = new String(record.key(), UTF_8);
      assertThat(new String(record.value(), UTF_8)).isEqualTo("payload " + key.substring(1));
      Header header = record.headers().lastHeader("producer");
      assertThat(header).isNotNull();
      assertThat(new String(header.value(), UTF_8)).isEqualTo("kcat");
      seen.add(key);
    }
    assertThat(seen)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 500).mapToObj(i -> "k" + i).toList());
  }

  @ParameterizedTest
  @ValueSource(strings = {"lz4", "zstd"})
  void whatKafkaClientsProduceCompressedKcatConsumes(String codec) throws Exception {
    // Given
    String topic = "to-kcat-" + codec;
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);

    // When
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(
            BROOK.bootstrapServers(),
            ProducerConfig.COMPRESSION_TYPE_CONFIG,
            codec,
            ProducerConfig.LINGER_MS_CONFIG,
            "20")) {
      for (int i = 0; i < 2_000; i++) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("seq", Integer.toString(i).getBytes(UTF_8));
        producer.send(
            new ProducerRecord<>(
                topic,
                null,
                ("key-" + i).getBytes(UTF_8),
                ("compressed value " + i + " ".repeat(i % 40) + "end").getBytes(UTF_8),
                headers));
      }
      producer.flush();
    }
    List<String> consumed = kcatConsume(topic, "%k|%s|%h\n");

    // Then
    assertThat(consumed)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 2_000)
                .mapToObj(
                    i ->
                        "key-" + i + "|compressed value " + i + " ".repeat(i % 40) + "end|seq=" + i)
                .toList());
  }
}
