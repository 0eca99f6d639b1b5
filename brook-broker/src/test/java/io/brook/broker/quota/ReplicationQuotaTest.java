package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** Which replicas a broker's replication throttle covers, and its rate, from the metadata. */
class ReplicationQuotaTest {
  private static MetadataImage image(MetadataRecord... records) {
    return MetadataImage.EMPTY.apply(List.of(records), records.length - 1);
  }

  private static ConfigRecord broker(String name, String key, String value) {
    return new ConfigRecord(ConfigResource.Type.BROKER, name, key, value);
  }

  private static ConfigRecord topic(String name, String key, String value) {
    return new ConfigRecord(ConfigResource.Type.TOPIC, name, key, value);
  }

  @Test
  void replicasListedForThisBrokerOrAllAreThrottledAtTheBrokersRate() {
    try (Metrics metrics = new Metrics()) {
      ReplicationQuota leader =
          new ReplicationQuota(ReplicationQuota.Side.LEADER, 2, metrics, Time.SYSTEM, 11, 1);

      leader.onMetadata(
          image(
              new TopicRecord("moved", Uuid.randomUuid()),
              new TopicRecord("all", Uuid.randomUuid()),
              new TopicRecord("other", Uuid.randomUuid()),
              broker("", "leader.replication.throttled.rate", "1000"),
              broker("2", "leader.replication.throttled.rate", "500"),
              topic("moved", "leader.replication.throttled.replicas", "0:1, 1:2,3:2"),
              topic("all", "leader.replication.throttled.replicas", "*"),
              topic("other", "follower.replication.throttled.replicas", "*")));

      assertThat(leader.bound()).isEqualTo(500);
      assertThat(leader.isThrottled(new TopicPartition("moved", 0))).isFalse();
      assertThat(leader.isThrottled(new TopicPartition("moved", 1))).isTrue();
      assertThat(leader.isThrottled(new TopicPartition("moved", 3))).isTrue();
      assertThat(leader.isThrottled(new TopicPartition("all", 7))).isTrue();
      assertThat(leader.isThrottled(new TopicPartition("other", 0))).isFalse();
    }
  }

  @Test
  void theQuotaIsExceededOnlyOnceTheRecordedRateIsOverTheBound() {
    try (Metrics metrics = new Metrics()) {
      ReplicationQuota follower =
          new ReplicationQuota(ReplicationQuota.Side.FOLLOWER, 1, metrics, Time.SYSTEM, 11, 1);
      assertThat(follower.isQuotaExceeded()).isFalse();

      follower.onMetadata(image(broker("", "follower.replication.throttled.rate", "1000")));
      follower.record(5_000); // 500 B/s over the 10 s window
      assertThat(follower.isQuotaExceeded()).isFalse();
      follower.record(10_000); // 1,500 B/s
      assertThat(follower.isQuotaExceeded()).isTrue();

      // Removing the rate lifts the throttle
      follower.onMetadata(image(broker("9", "follower.replication.throttled.rate", "1")));
      assertThat(follower.isQuotaExceeded()).isFalse();
    }
  }
}
