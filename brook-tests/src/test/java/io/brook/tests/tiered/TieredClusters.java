package io.brook.tests.tiered;

import static org.awaitility.Awaitility.await;

import io.brook.storage.s3.S3SegmentStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * What the multi-node tiered ITs share, in-process ({@code EmbeddedBrookCluster}) or as processes
 * ({@code ClusterHarness}): the broker settings, a single-partition tiered topic on three replicas,
 * and the waits on its leader and on how far it is tiered.
 */
final class TieredClusters {
  /** Segment size of the tiered topics: Kafka's smallest {@code segment.bytes}. */
  static final int SEGMENT_BYTES = 1_048_576;

  private TieredClusters() {}

  /** Tiered storage on, with the copy task run every 100 ms; the store settings come on top. */
  static Map<String, String> brokerSettings(Map<String, String> store) {
    Map<String, String> config = new HashMap<>();
    config.put("remote.log.storage.system.enable", "true");
    config.put("remote.log.manager.task.interval.ms", "100");
    config.putAll(store);
    return config;
  }

  /** {@link #brokerSettings} with the S3 segment store on {@code s3}. */
  static Map<String, String> s3BrokerSettings(S3ProxyServer s3) {
    Map<String, String> config =
        brokerSettings(
            Map.of("remote.log.storage.manager.class.name", S3SegmentStore.class.getName()));
    s3.settings("").forEach((k, v) -> config.put("rsm.config." + k, v));
    return config;
  }

  /** A tiered topic with 1 MiB segments kept locally for a second once copied, remotely forever. */
  static Map<String, String> topicSettings() {
    return Map.of(
        "remote.storage.enable", "true",
        "local.retention.ms", "1000",
        "retention.ms", "-1",
        "segment.bytes", Integer.toString(SEGMENT_BYTES));
  }

  /** Creates {@code topic} with one partition on three replicas; returns once all are in sync. */
  static void createReplicated(Admin admin, String topic, Map<String, String> configs)
      throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3).configs(configs))).all().get();
    await().atMost(Duration.ofSeconds(60)).until(() -> describe(admin, topic).isr().size() == 3);
  }

  /** Partition 0 of {@code topic} as the cluster describes it now. */
  static TopicPartitionInfo describe(Admin admin, String topic) throws Exception {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get()
        .get(topic)
        .partitions()
        .get(0);
  }

  /** Waits until partition 0 of {@code topic} has a leader other than {@code formerLeader}. */
  static void awaitLeaderOtherThan(Admin admin, String topic, int formerLeader) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              TopicPartitionInfo now = describe(admin, topic);
              return now.leader() != null && now.leader().id() != formerLeader;
            });
  }

  /**
   * Waits until the highest offset in remote storage (ListOffsets latest-tiered) is past {@code
   * offset}.
   */
  static void awaitTieredPast(Admin admin, TopicPartition tp, long offset, Duration atMost) {
    await()
        .atMost(atMost)
        .until(
            () ->
                admin
                        .listOffsets(Map.of(tp, OffsetSpec.latestTiered()))
                        .all()
                        .get()
                        .get(tp)
                        .offset()
                    > offset);
  }
}
