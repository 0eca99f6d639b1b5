package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The admin half of share groups (KIP-932) with Kafka's own {@code kafka-share-groups} tool
 * (ShareGroupCommand, run as a process) and Admin client: describe shows the group, its members and
 * the start offsets; {@code --reset-offsets --to-earliest} of an empty group makes a new consumer
 * replay; deleting the group deletes its state, so the group made again starts fresh at the end of
 * the log (the broker's default {@code latest} reset). One broker, no sleeps.
 */
@Timeout(240)
class ShareGroupAdminIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("offsets.topic.num.partitions", "2")
              .config("group.share.heartbeat.interval.ms", "500"));

  private static final String TOOL = "org.apache.kafka.tools.consumer.group.ShareGroupCommand";
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String TOPIC = "admin-orders";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

  private static Admin admin;

  @BeforeAll
  static void admin() {
    admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  private static ChildProcess.Result tool(String... args) {
    List<String> all = new ArrayList<>(List.of("--bootstrap-server", BROOK.bootstrapServers()));
    all.addAll(List.of(args));
    ChildProcess.Result result =
        ChildProcess.run(
            ChildProcess.javaCommand(TOOL, all.toArray(String[]::new)), "", Duration.ofSeconds(60));
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  private static KafkaShareConsumer<String, String> consumer(String group, String clientId) {
    Properties props = new Properties();
    props.put("bootstrap.servers", BROOK.bootstrapServers());
    props.put("group.id", group);
    props.put("client.id", clientId);
    props.put("share.acknowledgement.mode", "explicit");
    return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
  }

  private static void produce(int from, int to) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = from; i < to; i++) {
        byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get();
      }
    }
  }

  /** The group's start offset of partition 0 as Admin reads it, -1 without state. */
  private static long startOffset(String group) throws Exception {
    Map<TopicPartition, SharePartitionOffsetInfo> offsets =
        admin
            .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
            .partitionsToOffsetInfo(group)
            .get();
    SharePartitionOffsetInfo info = offsets.get(P0);
    return info == null ? -1 : info.startOffset();
  }

  /** Polls until the leader has initialized the share-partition (its start offset is known). */
  private static void pollUntilInitialized(KafkaShareConsumer<String, String> consumer, String g) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              consumer.poll(POLL).forEach(r -> consumer.acknowledge(r, AcknowledgeType.RELEASE));
              return startOffset(g) >= 0;
            });
  }

  /** Consumes and accepts until {@code count} values were received; returns them in order. */
  private static List<String> consume(KafkaShareConsumer<String, String> consumer, int count) {
    List<String> values = new ArrayList<>();
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (values.size() < count && Instant.now().isBefore(deadline)) {
      for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
        values.add(r.value());
        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
      }
      consumer.commitSync();
    }
    return values;
  }

  private static List<String> values(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("v" + i);
    }
    return out;
  }

  /** The value of {@code column} in the describe row of partition 0. */
  private static String column(String table, String column) {
    List<String> lines = table.lines().filter(l -> !l.isBlank()).toList();
    String header = lines.stream().filter(l -> l.contains(column)).findFirst().orElseThrow();
    int index = List.of(header.trim().split("\\s+")).indexOf(column);
    String row =
        lines.stream()
            .filter(l -> l.contains(TOPIC))
            .filter(l -> List.of(l.trim().split("\\s+")).get(2).equals("0"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no row for partition 0 in\n" + table));
    return List.of(row.trim().split("\\s+")).get(index);
  }

  @Test
  void describeResetToEarliestAndDeleteWithKafkasTool() throws Exception {
    String group = "admin-group";
    TestClients.createTopic(BROOK.bootstrapServers(), TOPIC, 1);

    List<String> first;
    try (KafkaShareConsumer<String, String> a = consumer(group, "first-consumer")) {
      a.subscribe(List.of(TOPIC));
      pollUntilInitialized(a, group);
      assertThat(startOffset(group)).isZero();
      produce(0, 10);
      first = consume(a, 10);

      // While it runs: the group, its member, and the start offset past what it accepted.
      String members = tool("--describe", "--group", group, "--members").stdout();
      assertThat(members).contains(group).contains("first-consumer");
      String offsets = tool("--describe", "--group", group, "--offsets").stdout();
      assertThat(column(offsets, "START-OFFSET")).isEqualTo("10");

      // Not while it has members: the tool fails and the start offset stays.
      ChildProcess.Result refused =
          ChildProcess.run(
              ChildProcess.javaCommand(
                  TOOL,
                  "--bootstrap-server",
                  BROOK.bootstrapServers(),
                  "--reset-offsets",
                  "--group",
                  group,
                  "--topic",
                  TOPIC,
                  "--to-earliest",
                  "--execute"),
              "",
              Duration.ofSeconds(60));
      assertThat(refused.stdout() + refused.stderr()).as(refused.describe()).contains("not empty");
      assertThat(startOffset(group)).isEqualTo(10);
    }
    assertThat(first).isEqualTo(values(0, 10));

    // Empty now: reset to the earliest offset, and a new consumer replays everything.
    assertThat(tool("--describe", "--group", group, "--state").stdout()).contains("Empty");
    tool("--reset-offsets", "--group", group, "--topic", TOPIC, "--to-earliest", "--execute");
    assertThat(startOffset(group)).isZero();
    try (KafkaShareConsumer<String, String> b = consumer(group, "replaying-consumer")) {
      b.subscribe(List.of(TOPIC));
      assertThat(consume(b, 10)).isEqualTo(values(0, 10));
    }
    assertThat(startOffset(group)).isEqualTo(10);

    // Deleted, then made again: its state is gone, so it starts at the end of the log.
    admin.deleteShareGroups(List.of(group)).all().get();
    produce(10, 15);
    try (KafkaShareConsumer<String, String> c = consumer(group, "fresh-consumer")) {
      c.subscribe(List.of(TOPIC));
      pollUntilInitialized(c, group);
      assertThat(startOffset(group)).isEqualTo(15);
      produce(15, 18);
      assertThat(consume(c, 3)).isEqualTo(values(15, 18));
    }
  }
}
