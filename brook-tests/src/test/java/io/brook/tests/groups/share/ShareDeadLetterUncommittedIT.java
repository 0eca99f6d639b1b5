package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dead letter whose write failed after the dead-letter partition's leader appended it is not
 * written a second time while that copy is above the high watermark. On three {@code brook server}
 * processes, the dead-letter partition's follower is paused (SIGSTOP) while it stays in the ISR, so
 * the leader appends a rejected record's letter but cannot commit it: the acks=all write times out
 * and is retried, and the retry's check for an earlier copy must wait for the high watermark to
 * pass the leader's log end instead of stopping at the high watermark and appending another copy.
 * Once the follower is resumed, the dead-letter topic holds the record exactly once and the
 * share-partition's start offset passes it.
 */
@Timeout(300)
class ShareDeadLetterUncommittedIT {
  private static final String GROUP = "dlq-uncommitted-group";
  private static final String WARMUP = "dlq-uncommitted-warmup";
  private static final String SOURCE = "dlq-uncommitted-source";
  private static final String DLQ = "dlq-uncommitted-dlq";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final Pattern FAILED_WRITE =
      Pattern.compile("Writing a dead letter failed, retrying");

  @TempDir Path tmp;

  @Test
  void aLetterAppendedButNotCommittedIsFoundByTheRetryAndNotWrittenAgain() throws Exception {
    try (ClusterHarness cluster =
            ClusterHarness.start(
                tmp,
                3,
                Map.ofEntries(
                    // One single-replica partition per internal topic: the follower to pause can
                    // be a broker that holds neither, so the group keeps working while it sleeps.
                    Map.entry("offsets.topic.num.partitions", "1"),
                    Map.entry("offsets.topic.replication.factor", "1"),
                    Map.entry("share.coordinator.state.topic.num.partitions", "1"),
                    Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                    Map.entry("share.coordinator.state.topic.min.isr", "1"),
                    Map.entry("group.share.heartbeat.interval.ms", "500"),
                    Map.entry("group.share.record.lock.duration.ms", "30000"),
                    Map.entry("brook.share.auto.offset.reset", "earliest"),
                    // The dead-letter write's acks=all timeout, so that it fails soon
                    Map.entry("request.timeout.ms", "5000"),
                    // while the paused follower stays registered and in the ISR.
                    Map.entry("broker.session.timeout.ms", "120000"),
                    Map.entry("replica.lag.time.max.ms", "120000")));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      // A first record through the group creates the group and share-state topics. Its consumer
      // is closed before the pause: the warm-up partition may live on the broker to be paused,
      // and a consumer still fetching from a stopped broker waits out its request timeouts.
      admin.createTopics(List.of(new NewTopic(WARMUP, 1, (short) 1))).all().get();
      produce(cluster.bootstrapServers(), WARMUP, "warmup");
      try (KafkaShareConsumer<String, String> warmup =
          ShareGroupClients.explicitConsumer(cluster.bootstrapServers(), GROUP)) {
        warmup.subscribe(List.of(WARMUP));
        await()
            .atMost(TIMEOUT)
            .until(() -> pollAndAcknowledge(warmup, AcknowledgeType.ACCEPT).isPresent());
      }

      Set<Integer> internal = new HashSet<>();
      Map<String, TopicDescription> internals =
          admin
              .describeTopics(List.of("__consumer_offsets", "__share_group_state"))
              .allTopicNames()
              .get();
      for (TopicDescription d : internals.values()) {
        for (TopicPartitionInfo p : d.partitions()) {
          p.replicas().forEach(n -> internal.add(n.id()));
        }
      }
      int follower =
          cluster.brokers().stream()
              .map(ClusterHarness.Node::id)
              .filter(id -> !internal.contains(id))
              .findFirst()
              .orElseThrow();
      int leader =
          cluster.brokers().stream()
              .map(ClusterHarness.Node::id)
              .filter(id -> id != follower)
              .findFirst()
              .orElseThrow();

      admin
          .createTopics(
              List.of(
                  new NewTopic(SOURCE, Map.of(0, List.of(leader))),
                  new NewTopic(DLQ, Map.of(0, List.of(leader, follower)))))
          .all()
          .get();
      ShareGroupClients.setGroupConfigs(admin, GROUP, Map.of("brook.share.dlq.topic", DLQ));
      await()
          .atMost(TIMEOUT)
          .until(
              () ->
                  admin
                          .describeTopics(List.of(DLQ))
                          .allTopicNames()
                          .get()
                          .get(DLQ)
                          .partitions()
                          .get(0)
                          .isr()
                          .size()
                      == 2);

      // The follower sleeps in the ISR: the leader can append the letter but not commit it.
      // The clients of the pause bootstrap from the leader, which knows the whole cluster: none
      // of them picks the sleeping broker for a metadata request.
      cluster.node(follower).pause();
      int failedBefore = count(FAILED_WRITE, cluster.node(leader).log());
      String awake = cluster.node(leader).bootstrap();
      produce(awake, SOURCE, "poison");
      try (KafkaShareConsumer<String, String> consumer =
          ShareGroupClients.explicitConsumer(awake, GROUP)) {
        consumer.subscribe(List.of(SOURCE));
        await()
            .atMost(TIMEOUT)
            .until(() -> pollAndAcknowledge(consumer, AcknowledgeType.REJECT).isPresent());
        // The first write timed out, then a retry failed too: the retry ran its check while the
        // first copy sat above the high watermark.
        await()
            .atMost(TIMEOUT)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> count(FAILED_WRITE, cluster.node(leader).log()) >= failedBefore + 2);
      }
      cluster.node(follower).resume();

      // The letter is done: the share-partition's start offset passes the rejected record.
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> Long.valueOf(1).equals(shareStartOffset(admin)));
      List<ConsumerRecord<byte[], byte[]>> dead =
          TestClients.readAll(cluster.bootstrapServers(), DLQ, 1);
      assertThat(dead).hasSize(1);
      assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("poison");
      assertThat(header(dead.get(0), "brook.dlq.source.offset")).isEqualTo("0");
    }
  }

  private static void produce(String bootstrap, String topic, String key) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      producer
          .send(
              new ProducerRecord<>(
                  topic,
                  key.getBytes(StandardCharsets.UTF_8),
                  ("v-" + key).getBytes(StandardCharsets.UTF_8)))
          .get();
    }
  }

  /**
   * One poll; every record polled is acknowledged as {@code type} and the acknowledgements
   * committed.
   *
   * @return the last record polled, if its acknowledgement was confirmed
   */
  private static Optional<String> pollAndAcknowledge(
      KafkaShareConsumer<String, String> consumer, AcknowledgeType type) {
    String last = null;
    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
      consumer.acknowledge(r, type);
      last = r.key();
    }
    if (last == null) {
      return Optional.empty();
    }
    Map<TopicIdPartition, Optional<KafkaException>> results;
    try {
      results = consumer.commitSync(Duration.ofSeconds(30));
    } catch (KafkaException e) {
      return Optional.empty();
    }
    return results.values().stream().allMatch(Optional::isEmpty)
        ? Optional.of(last)
        : Optional.empty();
  }

  private static Long shareStartOffset(Admin admin) throws Exception {
    var info =
        admin
            .listShareGroupOffsets(Map.of(GROUP, new ListShareGroupOffsetsSpec()))
            .partitionsToOffsetInfo(GROUP)
            .get()
            .get(new TopicPartition(SOURCE, 0));
    return info == null ? null : info.startOffset();
  }

  private static int count(Pattern pattern, String text) {
    Matcher m = pattern.matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private static String header(ConsumerRecord<?, ?> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
