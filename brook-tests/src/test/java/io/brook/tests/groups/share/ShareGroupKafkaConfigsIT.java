package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka's own share group configs (share.auto.offset.reset, share.record.lock.duration.ms, ...) set
 * on the GROUP resource with Admin, as a Kafka user sets them: a group set to earliest reads a
 * topic from its start while a group left at the broker's latest starts at the end; DescribeConfigs
 * lists the keys with their sources; values outside Kafka's rules and the broker's bounds are
 * refused. And what the group coordinator's initialization of share-partitions gives: a partition
 * added to a topic the group reads is read from its start, whatever the reset setting.
 */
class ShareGroupKafkaConfigsIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("offsets.topic.num.partitions", "2")
              .config("group.share.heartbeat.interval.ms", "500"));

  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private static Admin admin;

  @BeforeAll
  static void admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    admin = Admin.create(props);
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  private static KafkaShareConsumer<String, String> consumer(String group) {
    return ShareGroupClients.explicitConsumer(BROOK.bootstrapServers(), group);
  }

  private static void setGroupConfigs(String group, Map<String, String> configs) throws Exception {
    ShareGroupClients.setGroupConfigs(admin, group, configs);
  }

  private static Config describe(String group) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
    return admin
        .describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true))
        .all()
        .get()
        .get(resource);
  }

  private static void produce(String topic, String prefix, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < count; i++) {
        byte[] value = (prefix + i).getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, i % 2, null, value)).get();
      }
    }
  }

  /** The group's start offset of each partition of {@code topic} as Admin reads it. */
  private static Map<TopicPartition, SharePartitionOffsetInfo> offsets(String group)
      throws Exception {
    return admin
        .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
        .partitionsToOffsetInfo(group)
        .get();
  }

  /** Consumes and accepts until {@code count} values were received; returns them. */
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

  @Test
  void aGroupSetToEarliestReadsTheTopicFromItsStartAndOneLeftAtLatestFromItsEnd() throws Exception {
    String topic = "kafka-configs-reset";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    // Given records written before either group exists
    produce(topic, "before-", 20);
    setGroupConfigs("from-start", Map.of("share.auto.offset.reset", "earliest"));

    // When a group set to earliest consumes, it gets every one of them
    try (KafkaShareConsumer<String, String> consumer = consumer("from-start")) {
      consumer.subscribe(List.of(topic));
      List<String> values = consume(consumer, 20);
      assertThat(values).hasSize(20).allMatch(v -> v.startsWith("before-"));
    }

    // And a group without the config (the broker's latest) starts at the end of each partition
    try (KafkaShareConsumer<String, String> consumer = consumer("from-end")) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                consumer.poll(POLL).forEach(r -> consumer.acknowledge(r, AcknowledgeType.RELEASE));
                Map<TopicPartition, SharePartitionOffsetInfo> offsets = offsets("from-end");
                return offsets.size() == 2
                    && offsets.values().stream().allMatch(o -> o != null && o.startOffset() >= 0);
              });
      assertThat(offsets("from-end").values())
          .extracting(SharePartitionOffsetInfo::startOffset)
          .containsOnly(10L);
      produce(topic, "after-", 4);
      assertThat(consume(consumer, 4)).hasSize(4).allMatch(v -> v.startsWith("after-"));
    }
  }

  @Test
  void describeConfigsListsKafkasKeysWithTheirSources() throws Exception {
    String group = "kafka-configs-described";
    setGroupConfigs(
        group,
        Map.of("share.record.lock.duration.ms", "20000", "share.auto.offset.reset", "earliest"));

    Config described = describe(group);
    ConfigEntry lock = described.get("share.record.lock.duration.ms");
    assertThat(lock.value()).isEqualTo("20000");
    assertThat(lock.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
    assertThat(lock.synonyms())
        .extracting(ConfigEntry.ConfigSynonym::name, ConfigEntry.ConfigSynonym::source)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "share.record.lock.duration.ms", ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG),
            org.assertj.core.groups.Tuple.tuple(
                "group.share.record.lock.duration.ms", ConfigEntry.ConfigSource.DEFAULT_CONFIG));
    assertThat(described.get("share.auto.offset.reset").value()).isEqualTo("earliest");
    // Not set on the group: the broker's setting, from its file or its default.
    ConfigEntry heartbeat = described.get("share.heartbeat.interval.ms");
    assertThat(heartbeat.value()).isEqualTo("500");
    assertThat(heartbeat.source()).isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
    ConfigEntry limit = described.get("share.delivery.count.limit");
    assertThat(limit.value()).isEqualTo("5");
    assertThat(limit.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    assertThat(described.get("share.session.timeout.ms").value()).isEqualTo("45000");
    assertThat(described.get("share.partition.max.record.locks").value()).isEqualTo("2000");
    assertThat(described.get("share.isolation.level").value()).isEqualTo("read_uncommitted");
    assertThat(described.get("brook.share.dlq.topic").value()).isEmpty();
  }

  @Test
  void aPartitionAddedToATopicTheGroupReadsIsReadFromItsStart() throws Exception {
    String topic = "kafka-configs-grown";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (KafkaShareConsumer<String, String> consumer = consumer("grown-group")) {
      consumer.subscribe(List.of(topic));
      // Given a group (at the broker's latest) that reads partition 0
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                consumer.poll(POLL).forEach(r -> consumer.acknowledge(r, AcknowledgeType.RELEASE));
                SharePartitionOffsetInfo info =
                    offsets("grown-group").get(new TopicPartition(topic, 0));
                return info != null && info.startOffset() >= 0;
              });
      // When the topic grows and records go to the new partition at once
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all().get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(BROOK.bootstrapServers())) {
        for (int i = 0; i < 6; i++) {
          byte[] value = ("new-" + i).getBytes(StandardCharsets.UTF_8);
          producer.send(new ProducerRecord<>(topic, 1, null, value)).get();
        }
      }
      // Then the group gets all of them, however late its first fetch of the partition came:
      // the group coordinator initialized it at offset 0, not at the reset setting's latest.
      assertThat(consume(consumer, 6)).hasSize(6).allMatch(v -> v.startsWith("new-"));
    }
  }

  @Test
  void valuesOutsideKafkasRulesAndTheBrokersBoundsAreRefused() throws Exception {
    String group = "kafka-configs-refused";
    for (Map<String, String> bad :
        List.of(
            Map.of("share.record.lock.duration.ms", "5000"), // below group.share.min.* (15000)
            Map.of("share.delivery.count.limit", "11"), // above group.share.max.* (10)
            Map.of("share.session.timeout.ms", "50000", "share.heartbeat.interval.ms", "50000"),
            Map.of("share.auto.offset.reset", "by_duration:yesterday"),
            Map.of("share.auto.offset.reset", "none"),
            Map.of("share.isolation.level", "read_committed"),
            Map.of("consumer.session.timeout.ms", "45000"))) {
      assertThatThrownBy(() -> setGroupConfigs(group, bad))
          .as("%s", bad)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InvalidConfigurationException.class);
    }
    setGroupConfigs(
        group,
        Map.of(
            "share.auto.offset.reset", "by_duration:P1DT2H",
            "share.delivery.count.limit", "3",
            "share.session.timeout.ms", "50000"));
    assertThat(describe(group).get("share.delivery.count.limit").value()).isEqualTo("3");
  }
}
