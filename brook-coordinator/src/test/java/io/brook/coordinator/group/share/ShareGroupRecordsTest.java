package io.brook.coordinator.group.share;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsKey;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataValue;
import org.junit.jupiter.api.Test;

/** Share group records are Kafka's bytes, both ways. */
class ShareGroupRecordsTest {
  private static final short V0 = 0;
  private static final ShareGroupMember MEMBER =
      new ShareGroupMember("m", 3, "rack-a", "client", "/10.0.0.1", List.of("b", "a"));

  @Test
  void groupEpochIsKafkasRecord() {
    CoordinatorRecord brook = ShareGroupRecords.groupEpoch("g", 7);
    ShareGroupMetadataKey key = new ShareGroupMetadataKey().setGroupId("g");
    ShareGroupMetadataValue value = new ShareGroupMetadataValue().setEpoch(7);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsKey(brook, ShareGroupMetadataKey::new, key);
    assertKafkaReadsValue(brook, ShareGroupMetadataValue::new, value);
    assertThat(brook.type()).isEqualTo(ShareGroupRecords.GROUP_METADATA);
    assertThat(ShareGroupRecords.readKey(brook)).isEqualTo(new ShareGroupRecords.Key("g", null));
    assertThat(ShareGroupRecords.readEpoch(brook)).isEqualTo(7);
  }

  @Test
  void memberIsKafkasRecord() {
    CoordinatorRecord brook = ShareGroupRecords.member("g", MEMBER);
    ShareGroupMemberMetadataKey key =
        new ShareGroupMemberMetadataKey().setGroupId("g").setMemberId("m");
    ShareGroupMemberMetadataValue value =
        new ShareGroupMemberMetadataValue()
            .setRackId("rack-a")
            .setClientId("client")
            .setClientHost("/10.0.0.1")
            .setSubscribedTopicNames(List.of("b", "a"));

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ShareGroupMemberMetadataValue::new, value);
    assertThat(brook.type()).isEqualTo(ShareGroupRecords.MEMBER_METADATA);
    assertThat(ShareGroupRecords.readKey(brook)).isEqualTo(new ShareGroupRecords.Key("g", "m"));
    assertThat(ShareGroupRecords.readMember("m", brook)).isEqualTo(MEMBER.withEpoch(0));
  }

  @Test
  void statePartitionsAreKafkasInitializedTopics() {
    Uuid orders = new Uuid(1, 2);
    Map<Uuid, ShareGroup.StateTopic> topics = new LinkedHashMap<>();
    topics.put(orders, new ShareGroup.StateTopic("orders", Set.of(0)));
    CoordinatorRecord brook = ShareGroupRecords.statePartitions("g", topics);
    ShareGroupStatePartitionMetadataKey key =
        new ShareGroupStatePartitionMetadataKey().setGroupId("g");
    ShareGroupStatePartitionMetadataValue value =
        new ShareGroupStatePartitionMetadataValue()
            .setInitializedTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                        .setTopicId(orders)
                        .setTopicName("orders")
                        .setPartitions(List.of(0))));

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ShareGroupStatePartitionMetadataValue::new, value);
    assertThat(brook.type()).isEqualTo(ShareGroupRecords.STATE_PARTITIONS);
    assertThat(ShareGroupRecords.readKey(brook)).isEqualTo(new ShareGroupRecords.Key("g", null));
    assertThat(ShareGroupRecords.readStatePartitions(brook))
        .isEqualTo(new ShareGroupRecords.StatePartitions(topics, Map.of()));
    assertThat(ShareGroupRecords.statePartitionsTombstone("g").isTombstone()).isTrue();
  }

  @Test
  void initializingPartitionsAreKafkasInitializingTopics() {
    Uuid orders = new Uuid(1, 2);
    Map<Uuid, ShareGroup.StateTopic> initialized =
        Map.of(orders, new ShareGroup.StateTopic("orders", Set.of(0)));
    Map<Uuid, ShareGroup.StateTopic> initializing =
        Map.of(orders, new ShareGroup.StateTopic("orders", Set.of(2, 1)));
    CoordinatorRecord brook = ShareGroupRecords.statePartitions("g", initialized, initializing);
    ShareGroupStatePartitionMetadataValue value =
        new ShareGroupStatePartitionMetadataValue()
            .setInitializedTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                        .setTopicId(orders)
                        .setTopicName("orders")
                        .setPartitions(List.of(0))))
            .setInitializingTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                        .setTopicId(orders)
                        .setTopicName("orders")
                        .setPartitions(List.of(1, 2))));

    assertKafkaBytes(brook, new ShareGroupStatePartitionMetadataKey().setGroupId("g"), V0, value);
    assertThat(ShareGroupRecords.readStatePartitions(brook))
        .isEqualTo(new ShareGroupRecords.StatePartitions(initialized, initializing));
  }

  @Test
  void aPartitionKafkaWroteKeepsItsInitializingTopicsApartAndDropsDeletingOnes() {
    Uuid orders = new Uuid(1, 2);
    Uuid gone = new Uuid(3, 4);
    ShareGroupStatePartitionMetadataValue value =
        new ShareGroupStatePartitionMetadataValue()
            .setInitializedTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                        .setTopicId(orders)
                        .setTopicName("orders")
                        .setPartitions(List.of(0))))
            .setInitializingTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                        .setTopicId(orders)
                        .setTopicName("orders")
                        .setPartitions(List.of(1))))
            .setDeletingTopics(
                List.of(
                    new ShareGroupStatePartitionMetadataValue.TopicInfo()
                        .setTopicId(gone)
                        .setTopicName("gone")));
    CoordinatorRecord kafka =
        GeneratedRecords.record(
            new ShareGroupStatePartitionMetadataKey().setGroupId("g"), V0, value);

    assertThat(ShareGroupRecords.readStatePartitions(kafka))
        .isEqualTo(
            new ShareGroupRecords.StatePartitions(
                Map.of(orders, new ShareGroup.StateTopic("orders", Set.of(0))),
                Map.of(orders, new ShareGroup.StateTopic("orders", Set.of(1)))));
  }

  @Test
  void tombstonesHaveKafkasKeys() {
    assertThat(ShareGroupRecords.memberTombstone("g", "m").isTombstone()).isTrue();
    assertThat(ShareGroupRecords.readKey(ShareGroupRecords.memberTombstone("g", "m")))
        .isEqualTo(new ShareGroupRecords.Key("g", "m"));
    assertThat(ShareGroupRecords.readKey(ShareGroupRecords.groupTombstone("g")))
        .isEqualTo(new ShareGroupRecords.Key("g", null));
  }
}
