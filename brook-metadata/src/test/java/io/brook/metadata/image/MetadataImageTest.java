package io.brook.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.metadata.record.ClusterIdRecord;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.ProducerIdsRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.metadata.record.UnfenceBrokerRecord;
import io.brook.metadata.record.UnregisterBrokerRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

class MetadataImageTest {
  private static final Uuid INCARNATION = Uuid.fromString("r9Rxdwl_TvCmwAtTfRsMqg");
  private static final Uuid T1 = Uuid.fromString("MvDxzVmcRsaTz33bUuRU6A");
  private static final Uuid T2 = Uuid.fromString("b3_nGZQjRpWvDHpZ9LTKqA");
  private static final List<BrokerEndpoint> ENDPOINTS =
      List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));

  private static MetadataImage apply(MetadataImage image, MetadataRecord... records) {
    return image.apply(List.of(records), image.offset() + records.length);
  }

  private static RegisterBrokerRecord register(int id, long epoch) {
    return new RegisterBrokerRecord(id, INCARNATION, epoch, ENDPOINTS, Optional.empty(), false);
  }

  /** Brokers 1-3 and topic "t1" with partition 0 on [1, 2, 3]. */
  private static MetadataImage base() {
    return apply(
        MetadataImage.EMPTY,
        register(1, 0),
        register(2, 1),
        register(3, 2),
        new TopicRecord("t1", T1),
        new PartitionRecord(T1, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0));
  }

  @Test
  void emptyImage() {
    assertThat(MetadataImage.EMPTY.offset()).isEqualTo(-1);
    assertThat(MetadataImage.EMPTY.brokers()).isEmpty();
    assertThat(MetadataImage.EMPTY.topics()).isEmpty();
    assertThat(MetadataImage.EMPTY.nextProducerId()).isZero();
    assertThat(MetadataImage.EMPTY.configs(ConfigResource.Type.TOPIC, "x")).isEmpty();
  }

  @Test
  void registerBroker() {
    // Given
    MetadataImage image = MetadataImage.EMPTY;

    // When
    MetadataImage next =
        apply(
            image, new RegisterBrokerRecord(4, INCARNATION, 0, ENDPOINTS, Optional.of("r"), true));

    // Then
    assertThat(next.offset()).isZero();
    assertThat(next.broker(4))
        .contains(new BrokerRegistration(4, INCARNATION, 0, ENDPOINTS, Optional.of("r"), true));
    assertThat(next.broker(4).orElseThrow().endpoint("PLAINTEXT")).contains(ENDPOINTS.get(0));
    assertThat(image.brokers()).isEmpty();
  }

  @Test
  void reRegistrationNeedsAHigherEpoch() {
    // Given
    MetadataImage image = base();

    // When
    MetadataImage next = apply(image, register(1, 10));

    // Then
    assertThat(next.brokers().get(1).epoch()).isEqualTo(10);
    assertThatThrownBy(() -> apply(next, register(1, 10)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void fenceUnfenceUnregister() {
    // Given
    MetadataImage image = base();

    // When
    MetadataImage fenced = apply(image, new FenceBrokerRecord(2, 1));
    MetadataImage unfenced = apply(fenced, new UnfenceBrokerRecord(2, 1));
    MetadataImage unregistered = apply(unfenced, new UnregisterBrokerRecord(2, 1));

    // Then
    assertThat(fenced.brokers().get(2).fenced()).isTrue();
    assertThat(unfenced.brokers().get(2).fenced()).isFalse();
    assertThat(unregistered.brokers()).containsOnlyKeys(1, 3);
  }

  @Test
  void brokerRecordsNeedTheCurrentEpoch() {
    MetadataImage image = base();
    for (MetadataRecord r :
        List.of(
            new FenceBrokerRecord(2, 0),
            new UnfenceBrokerRecord(2, 5),
            new UnregisterBrokerRecord(2, 2),
            new FenceBrokerRecord(9, 0))) {
      assertThatThrownBy(() -> apply(image, r))
          .as("%s", r)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void topicAndPartitions() {
    // Given
    MetadataImage image = base();

    // When
    MetadataImage next =
        apply(
            image,
            new TopicRecord("t2", T2),
            new PartitionRecord(T2, 0, List.of(2), List.of(2), 2, 0, 0),
            new PartitionRecord(T2, 1, List.of(3), List.of(3), 3, 5, 7));

    // Then
    TopicImage t2 = next.topic("t2").orElseThrow();
    assertThat(next.topic(T2)).contains(t2);
    assertThat(t2.partitions())
        .containsExactly(
            Map.entry(0, new PartitionImage(List.of(2), List.of(2), 2, 0, 0)),
            Map.entry(1, new PartitionImage(List.of(3), List.of(3), 3, 5, 7)));
    assertThat(next.topics()).extracting(TopicImage::name).containsExactly("t1", "t2");
    assertThat(image.topic("t2")).isEmpty();
  }

  @Test
  void removeTopicDropsPartitionsAndConfigs() {
    // Given
    MetadataImage image =
        apply(base(), new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "retention.ms", "1"));

    // When
    MetadataImage next = apply(image, new RemoveTopicRecord(T1));

    // Then
    assertThat(next.topic("t1")).isEmpty();
    assertThat(next.topic(T1)).isEmpty();
    assertThat(next.configs(ConfigResource.Type.TOPIC, "t1")).isEmpty();
    assertThat(image.configs(ConfigResource.Type.TOPIC, "t1")).containsEntry("retention.ms", "1");
  }

  @Test
  void partitionChangeBumpsEpochs() {
    // Given
    MetadataImage image = base();

    // When
    MetadataImage isrOnly =
        apply(
            image, new PartitionChangeRecord(T1, 0, Optional.of(List.of(1, 2)), Optional.empty()));
    MetadataImage sameLeader =
        apply(isrOnly, new PartitionChangeRecord(T1, 0, Optional.empty(), Optional.of(1)));
    MetadataImage newLeader =
        apply(
            sameLeader, new PartitionChangeRecord(T1, 0, Optional.of(List.of(2)), Optional.of(2)));
    MetadataImage reassigned =
        apply(
            newLeader,
            new PartitionChangeRecord(
                T1, 0, Optional.empty(), Optional.empty(), Optional.of(List.of(2, 3))));
    MetadataImage leaderless =
        apply(reassigned, new PartitionChangeRecord(T1, 0, Optional.empty(), Optional.of(-1)));

    // Then
    assertThat(isrOnly.partition("t1", 0))
        .contains(new PartitionImage(List.of(1, 2, 3), List.of(1, 2), 1, 0, 1));
    assertThat(sameLeader.partition("t1", 0))
        .contains(new PartitionImage(List.of(1, 2, 3), List.of(1, 2), 1, 0, 2));
    assertThat(newLeader.partition("t1", 0))
        .contains(new PartitionImage(List.of(1, 2, 3), List.of(2), 2, 1, 3));
    // dropping replica 1 bumps the leader epoch too, so a removed replica is fenced by its epoch
    assertThat(reassigned.partition("t1", 0))
        .contains(new PartitionImage(List.of(2, 3), List.of(2), 2, 2, 4));
    assertThat(leaderless.partition("t1", 0))
        .contains(new PartitionImage(List.of(2, 3), List.of(2), -1, 3, 5));
  }

  @Test
  void configsSetAndDelete() {
    // Given
    MetadataImage image = base();

    // When
    MetadataImage set =
        apply(
            image,
            new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "a", "1"),
            new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "b", "2"),
            new ConfigRecord(ConfigResource.Type.BROKER, "", "c", "3"),
            new ConfigRecord(ConfigResource.Type.BROKER, "1", "d", "4"));
    MetadataImage deleted =
        apply(
            set,
            new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "a", null),
            new ConfigRecord(ConfigResource.Type.BROKER, "1", "d", null),
            new ConfigRecord(ConfigResource.Type.BROKER, "1", "never-set", null));

    // Then
    assertThat(set.configs(ConfigResource.Type.TOPIC, "t1")).isEqualTo(Map.of("a", "1", "b", "2"));
    assertThat(set.configs(ConfigResource.Type.BROKER, "")).isEqualTo(Map.of("c", "3"));
    assertThat(deleted.configs(ConfigResource.Type.TOPIC, "t1")).isEqualTo(Map.of("b", "2"));
    assertThat(deleted.configs(ConfigResource.Type.BROKER)).containsOnlyKeys("");
  }

  @Test
  void clientQuotasSetAndRemove() {
    // Given: a user's default client, where null names the default entity
    Map<String, String> userDefaultClient = new HashMap<>();
    userDefaultClient.put("user", "alice");
    userDefaultClient.put("client-id", null);
    Map<String, String> backfill = Map.of("client-id", "backfill");

    // When
    MetadataImage set =
        apply(
            base(),
            ClientQuotaRecord.of(userDefaultClient, "producer_byte_rate", 1024, false),
            ClientQuotaRecord.of(backfill, "producer_byte_rate", 2048, false),
            ClientQuotaRecord.of(backfill, "request_percentage", 50, false));
    MetadataImage removed =
        apply(
            set,
            ClientQuotaRecord.of(backfill, "producer_byte_rate", 0, true),
            ClientQuotaRecord.of(backfill, "request_percentage", 0, true));

    // Then
    assertThat(set.clientQuotas().get(userDefaultClient))
        .isEqualTo(Map.of("producer_byte_rate", 1024.0));
    assertThat(set.clientQuotas().get(backfill))
        .isEqualTo(Map.of("producer_byte_rate", 2048.0, "request_percentage", 50.0));
    assertThat(removed.clientQuotas()).containsOnlyKeys(userDefaultClient);
    assertThat(MetadataImage.EMPTY.apply(set.toRecords(), set.offset())).isEqualTo(set);
    assertThatThrownBy(
            () -> apply(set, ClientQuotaRecord.of(backfill, "producer_byte_rate", -1, false)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void producerIdsOnlyGrow() {
    // Given
    MetadataImage image = apply(base(), new ProducerIdsRecord(1, 0, 1000));

    // When / Then
    assertThat(image.nextProducerId()).isEqualTo(1000);
    assertThat(apply(image, new ProducerIdsRecord(2, 1, 2000)).nextProducerId()).isEqualTo(2000);
    assertThatThrownBy(() -> apply(image, new ProducerIdsRecord(2, 1, 1000)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void clusterIdIsWrittenOnce() {
    // Given
    MetadataImage image = apply(base(), new ClusterIdRecord("cluster-a"));

    // When / Then
    assertThat(base().clusterId()).isEmpty();
    assertThat(image.clusterId()).contains("cluster-a");
    assertThat(apply(image, new ClusterIdRecord("cluster-a")).clusterId()).contains("cluster-a");
    assertThatThrownBy(() -> apply(image, new ClusterIdRecord("cluster-b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already cluster-a");
    assertThatThrownBy(() -> apply(base(), new ClusterIdRecord(" ")))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void recordsThatCannotApplyAreRefused() {
    MetadataImage image = base();
    Uuid unknown = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    List<MetadataRecord> refused =
        List.of(
            new PartitionRecord(unknown, 0, List.of(1), List.of(1), 1, 0, 0),
            new PartitionRecord(T1, 0, List.of(1), List.of(1), 1, 0, 0),
            new PartitionRecord(T1, 2, List.of(1), List.of(1), 1, 0, 0),
            new PartitionRecord(T1, 1, List.of(), List.of(), -1, 0, 0),
            new PartitionRecord(T1, 1, List.of(1, 1), List.of(1), 1, 0, 0),
            new PartitionRecord(T1, 1, List.of(1, 2), List.of(3), 3, 0, 0),
            new PartitionRecord(T1, 1, List.of(1, 2), List.of(1), 2, 0, 0),
            new PartitionChangeRecord(T1, 5, Optional.empty(), Optional.of(2)),
            new PartitionChangeRecord(T1, 0, Optional.of(List.of(2)), Optional.empty()),
            new PartitionChangeRecord(unknown, 0, Optional.empty(), Optional.of(2)),
            new TopicRecord("t1", T2),
            new TopicRecord("other", T1),
            new TopicRecord("zero", Uuid.ZERO_UUID),
            new RemoveTopicRecord(unknown),
            new ConfigRecord(ConfigResource.Type.TOPIC, "nope", "a", "1"),
            new ConfigRecord(ConfigResource.Type.BROKER, "x", "a", "1"),
            new RegisterBrokerRecord(-1, INCARNATION, 9, ENDPOINTS, Optional.empty(), false));
    for (MetadataRecord r : refused) {
      assertThatThrownBy(() -> apply(image, r))
          .as("%s", r)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void inconsistentReassignmentsAreRefused() {
    MetadataImage image = base();
    List<MetadataRecord> refused =
        List.of(
            // adding a broker that is not a replica
            new PartitionRecord(T1, 1, List.of(1, 2), List.of(1), 1, 0, 0, List.of(3), List.of()),
            // one replica both added and removed
            reassigning(List.of(1, 2, 3), List.of(3), List.of(3)),
            // every replica removed, or every replica added
            reassigning(List.of(1, 2, 3), List.of(), List.of(1, 2, 3)),
            reassigning(List.of(1, 2, 3), List.of(1, 2, 3), List.of()),
            // replicas dropped without clearing the adding set that named them
            new PartitionChangeRecord(
                T1, 0, Optional.of(List.of(1)), Optional.empty(), Optional.of(List.of(1))));
    MetadataImage moving = apply(image, reassigning(List.of(1, 2, 3), List.of(3), List.of(1)));
    for (MetadataRecord r : refused) {
      MetadataImage before = r == refused.get(refused.size() - 1) ? moving : image;
      assertThatThrownBy(() -> apply(before, r))
          .as("%s", r)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  private static PartitionChangeRecord reassigning(
      List<Integer> replicas, List<Integer> adding, List<Integer> removing) {
    return new PartitionChangeRecord(
        T1,
        0,
        Optional.empty(),
        Optional.empty(),
        Optional.of(replicas),
        Optional.of(adding),
        Optional.of(removing));
  }

  @Test
  void aRefusedBatchLeavesTheImageUntouched() {
    // Given
    MetadataImage image = base();

    // When
    assertThatThrownBy(
            () ->
                apply(
                    image,
                    new TopicRecord("t2", T2),
                    new PartitionRecord(T2, 1, List.of(1), List.of(1), 1, 0, 0)))
        .isInstanceOf(IllegalStateException.class);

    // Then
    assertThat(image).isEqualTo(base());
    assertThat(image.topic("t2")).isEmpty();
  }

  @Test
  void offsetsMustMoveForward() {
    // Given
    MetadataImage image = base();
    long offset = image.offset();

    // When / Then
    assertThat(image.apply(List.of(), offset + 3).offset()).isEqualTo(offset + 3);
    assertThat(image.apply(List.of(new FenceBrokerRecord(1, 0)), offset + 10).offset())
        .isEqualTo(offset + 10);
    assertThatThrownBy(() -> image.apply(List.of(new FenceBrokerRecord(1, 0)), offset))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> image.apply(List.of(), offset - 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void toRecordsRebuildsAnEqualImage() {
    // Given
    MetadataImage image =
        apply(
            base(),
            new FenceBrokerRecord(3, 2),
            new PartitionChangeRecord(T1, 0, Optional.of(List.of(1, 2)), Optional.of(2)),
            new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "a", "1"),
            new ConfigRecord(ConfigResource.Type.BROKER, "", "b", "2"),
            new ProducerIdsRecord(1, 0, 5000),
            new ClusterIdRecord("cluster-a"));

    // When
    MetadataImage rebuilt = MetadataImage.EMPTY.apply(image.toRecords(), image.offset());

    // Then
    assertThat(rebuilt).isEqualTo(image);
    assertThat(rebuilt.hashCode()).isEqualTo(image.hashCode());
    assertThat(rebuilt.toString()).isEqualTo(image.toString());
  }

  @Test
  void returnedCollectionsAreUnmodifiable() {
    MetadataImage image =
        apply(base(), new ConfigRecord(ConfigResource.Type.TOPIC, "t1", "a", "1"));
    assertThatThrownBy(() -> image.brokers().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> image.topics().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> image.topic("t1").orElseThrow().partitions().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> image.configs(ConfigResource.Type.TOPIC, "t1").clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> image.configs(ConfigResource.Type.TOPIC).clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
