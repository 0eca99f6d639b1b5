package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's own command-line tools (the {@code kafka-tools} jar, same version as
 * kafka-clients), each run as a child JVM exactly as {@code kafka-topics.sh} and friends run them,
 * against a real Brook.
 */
@Timeout(180)
class KafkaToolsIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);

  /** {@code kafka-run-class.sh MAIN_CLASS ARGS}, with {@code stdin} as the tool's input. */
  private static ChildProcess.Result tool(String mainClass, String stdin, String... args) {
    return ChildProcess.run(ChildProcess.javaCommand(mainClass, args), stdin, TOOL_TIMEOUT);
  }

  private static ChildProcess.Result successfulTool(String mainClass, String... args) {
    ChildProcess.Result result = tool(mainClass, "", args);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  @Test
  void kafkaTopicsCreatesDescribesListsAltersAndDeletesATopic() {
    // Given
    String bootstrap = BROOK.bootstrapServers();
    String topics = "org.apache.kafka.tools.TopicCommand";

    // When
    ChildProcess.Result create =
        successfulTool(
            topics,
            "--bootstrap-server",
            bootstrap,
            "--create",
            "--topic",
            "tools-topic",
            "--partitions",
            "3",
            "--replication-factor",
            "1");
    ChildProcess.Result describe =
        successfulTool(
            topics, "--bootstrap-server", bootstrap, "--describe", "--topic", "tools-topic");
    ChildProcess.Result list = successfulTool(topics, "--bootstrap-server", bootstrap, "--list");
    successfulTool(
        topics,
        "--bootstrap-server",
        bootstrap,
        "--alter",
        "--topic",
        "tools-topic",
        "--partitions",
        "5");
    ChildProcess.Result describeAltered =
        successfulTool(
            topics, "--bootstrap-server", bootstrap, "--describe", "--topic", "tools-topic");
    successfulTool(topics, "--bootstrap-server", bootstrap, "--delete", "--topic", "tools-topic");
    ChildProcess.Result listAfterDelete =
        successfulTool(topics, "--bootstrap-server", bootstrap, "--list");

    // Then
    assertThat(create.stdout()).contains("Created topic tools-topic.");
    assertThat(describe.stdout())
        .as(describe.describe())
        .contains("Topic: tools-topic", "PartitionCount: 3", "ReplicationFactor: 1");
    for (int p = 0; p < 3; p++) {
      assertThat(describe.stdout())
          .containsPattern(
              "Topic: tools-topic\\s+Partition: " + p + "\\s+Leader: 1\\s+Replicas: 1\\s+Isr: 1");
    }
    assertThat(describe.stdout()).doesNotContain("Partition: 3");
    assertThat(list.stdoutLines()).contains("tools-topic");
    assertThat(describeAltered.stdout())
        .contains("PartitionCount: 5")
        .containsPattern("Partition: 4\\s+Leader: 1");
    assertThat(listAfterDelete.stdoutLines()).doesNotContain("tools-topic");
  }

  @Test
  void consoleProducerLinesAreReadBackByKafkaClientsAndByTheConsoleConsumer() throws Exception {
    // Given
    String topic = "console-lines";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    String lines =
        IntStream.range(0, 200)
            .mapToObj(i -> "key-" + i + ":line " + i + "\n")
            .collect(Collectors.joining());

    // When
    ChildProcess.Result produce =
        tool(
            "org.apache.kafka.tools.ConsoleProducer",
            lines,
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "--topic",
            topic,
            "--reader-property",
            "parse.key=true",
            "--reader-property",
            "key.separator=:");
    ChildProcess.Result consume =
        successfulTool(
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "--topic",
            topic,
            "--partition",
            "0",
            "--offset",
            "earliest",
            "--max-messages",
            "200",
            "--formatter-property",
            "print.key=true",
            "--formatter-property",
            "key.separator==");

    // Then
    assertThat(produce.exitCode()).as(produce.describe()).isZero();
    List<ConsumerRecord<byte[], byte[]>> records =
        TestClients.readAll(BROOK.bootstrapServers(), topic, 1);
    assertThat(records).hasSize(200);
    for (int i = 0; i < 200; i++) {
      assertThat(new String(records.get(i).key(), UTF_8)).isEqualTo("key-" + i);
      assertThat(new String(records.get(i).value(), UTF_8)).isEqualTo("line " + i);
    }
    assertThat(consume.stdoutLines())
        .containsExactlyElementsOf(
            IntStream.range(0, 200).mapToObj(i -> "key-" + i + "=line " + i).toList());
  }

  @Test
  void producerPerformanceSendsTwentyThousandRecordsAndGetOffsetShellCountsThem() throws Exception {
    // Given
    String topic = "perf";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);

    // When
    ChildProcess.Result perf =
        successfulTool(
            "org.apache.kafka.tools.ProducerPerformance",
            "--topic",
            topic,
            "--num-records",
            "20000",
            "--record-size",
            "100",
            "--throughput",
            "-1",
            "--command-property",
            "bootstrap.servers=" + BROOK.bootstrapServers());
    ChildProcess.Result offsets =
        successfulTool(
            "org.apache.kafka.tools.GetOffsetShell",
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "--topic",
            topic);

    // Then
    assertThat(perf.stdout()).as(perf.describe()).contains("20000 records sent");
    long sumOfEnds =
        offsets.stdoutLines().stream()
            .filter(line -> line.startsWith(topic + ":"))
            .mapToLong(line -> Long.parseLong(line.substring(line.lastIndexOf(':') + 1)))
            .sum();
    assertThat(offsets.stdoutLines()).as(offsets.describe()).hasSize(3);
    assertThat(sumOfEnds).isEqualTo(20_000);
    assertThat(
            TestClients.endOffsets(BROOK.bootstrapServers(), topic, 3).values().stream()
                .mapToLong(Long::longValue)
                .sum())
        .isEqualTo(20_000);
  }

  @Test
  void kafkaConfigsAltersDescribesAndDeletesATopicConfig() throws Exception {
    // Given
    String topic = "configured";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    String configs = "org.apache.kafka.tools.ConfigCommand";
    String[] entity = {
      "--bootstrap-server",
      BROOK.bootstrapServers(),
      "--entity-type",
      "topics",
      "--entity-name",
      topic
    };

    // When
    ChildProcess.Result alter =
        successfulTool(configs, concat(entity, "--alter", "--add-config", "retention.ms=1000"));
    ChildProcess.Result describe = successfulTool(configs, concat(entity, "--describe"));
    String retentionSeenByAdmin = topicConfig(topic, "retention.ms");
    successfulTool(configs, concat(entity, "--alter", "--delete-config", "retention.ms"));
    ChildProcess.Result describeAfterDelete = successfulTool(configs, concat(entity, "--describe"));

    // Then
    assertThat(alter.stdout()).contains("Completed updating config for topic " + topic);
    assertThat(describe.stdout()).as(describe.describe()).contains("retention.ms=1000");
    assertThat(retentionSeenByAdmin).isEqualTo("1000");
    assertThat(describeAfterDelete.stdout()).doesNotContain("retention.ms=1000");
    assertThat(topicConfig(topic, "retention.ms")).isEqualTo("604800000");
  }

  @Test
  void deleteRecordsDescribeProducersAndClusterTool(@TempDir Path tmp) throws Exception {
    // Given: 100 records from an idempotent producer in partition 0
    String topic = "trimmed";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < 100; i++) {
        producer.send(new ProducerRecord<>(topic, 0, null, ("r" + i).getBytes(UTF_8)));
      }
      producer.flush();
    }
    Path offsets = tmp.resolve("delete.json");
    Files.writeString(
        offsets,
        "{\"partitions\":[{\"topic\":\""
            + topic
            + "\",\"partition\":0,\"offset\":40}],"
            + "\"version\":1}");

    // When
    ChildProcess.Result delete =
        successfulTool(
            "org.apache.kafka.tools.DeleteRecordsCommand",
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "--offset-json-file",
            offsets.toString());
    ChildProcess.Result earliest =
        successfulTool(
            "org.apache.kafka.tools.GetOffsetShell",
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "--topic",
            topic,
            "--time",
            "-2");
    ChildProcess.Result producers =
        successfulTool(
            "org.apache.kafka.tools.TransactionsCommand",
            "--bootstrap-server",
            BROOK.bootstrapServers(),
            "describe-producers",
            "--topic",
            topic,
            "--partition",
            "0");
    ChildProcess.Result clusterId =
        successfulTool(
            "org.apache.kafka.tools.ClusterTool",
            "cluster-id",
            "--bootstrap-server",
            BROOK.bootstrapServers());

    // Then
    assertThat(delete.stdout()).as(delete.describe()).contains("low_watermark: 40");
    assertThat(earliest.stdoutLines()).containsExactly(topic + ":0:40");
    assertThat(TestClients.readAll(BROOK.bootstrapServers(), topic, 1)).hasSize(60);
    // one producer, epoch 0, last sequence 99, no open transaction
    assertThat(producers.stdout())
        .as(producers.describe())
        .containsPattern("(?m)^\\d+\\s+0\\s+-1\\s+99\\s+\\d+\\s+None\\s*$");
    assertThat(clusterId.stdout()).contains("Cluster ID: " + BROOK.brook().server().clusterId());
  }

  private static String topicConfig(String topic, String name) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      return config.get(name).value();
    }
  }

  private static String[] concat(String[] first, String... rest) {
    String[] all = new String[first.length + rest.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(rest, 0, all, first.length, rest.length);
    return all;
  }

  @Test
  void kafkaMetadataQuorumDescribesTheSingleVoter() {
    // Given
    String bootstrap = BROOK.bootstrapServers();
    String quorum = "org.apache.kafka.tools.MetadataQuorumCommand";

    // When
    ChildProcess.Result status =
        successfulTool(quorum, "--bootstrap-server", bootstrap, "describe", "--status");
    ChildProcess.Result replication =
        successfulTool(quorum, "--bootstrap-server", bootstrap, "describe", "--replication");

    // Then the node is the leader of a quorum of one, caught up
    assertThat(status.stdout())
        .containsPattern("LeaderId:\\s+1")
        .containsPattern("HighWatermark:\\s+\\d+")
        .containsPattern("MaxFollowerLag:\\s+0");
    assertThat(replication.stdout()).containsPattern("(?m)^1\\s+.*Leader");
  }
}
