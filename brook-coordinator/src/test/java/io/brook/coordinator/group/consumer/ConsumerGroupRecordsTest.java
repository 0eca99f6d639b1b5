package io.brook.coordinator.group.consumer;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsKey;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static io.brook.coordinator.testing.KafkaRecords.kafkaRecord;
import static io.brook.coordinator.testing.KafkaRecords.kafkaValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataValue;
import org.junit.jupiter.api.Test;

class ConsumerGroupRecordsTest {
  private static final Uuid TOPIC = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
  private static final Uuid OTHER = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
  private static final short V0 = 0;

  private static final TreeSet<TopicIdPartition> PARTITIONS =
      new TreeSet<>(
          List.of(
              new TopicIdPartition(TOPIC, 0),
              new TopicIdPartition(TOPIC, 3),
              new TopicIdPartition(OTHER, 1)));
  private static final MemberSubscription SUBSCRIPTION =
      new MemberSubscription(
          "pod-1", "rack-a", "client", "/10.0.0.1", List.of("b", "a"), null, 300_000, "range");
  private static final MemberAssignment ASSIGNMENT =
      new MemberAssignment(
          7,
          6,
          MemberState.UNREVOKED_PARTITIONS,
          PARTITIONS,
          new TreeSet<>(List.of(new TopicIdPartition(TOPIC, 5))));

  @Test
  void everyRecordReadsBackWhatWasWritten() {
    CoordinatorRecord epoch = ConsumerGroupRecords.groupEpoch("g", 7);
    CoordinatorRecord metadata =
        ConsumerGroupRecords.partitionMetadata("g", List.of(new TopicMetadata(TOPIC, "t", 6)));
    CoordinatorRecord member = ConsumerGroupRecords.memberMetadata("g", "m", SUBSCRIPTION);
    CoordinatorRecord targetEpoch = ConsumerGroupRecords.targetAssignmentEpoch("g", 6);
    CoordinatorRecord target = ConsumerGroupRecords.targetAssignment("g", "m", PARTITIONS);
    CoordinatorRecord current = ConsumerGroupRecords.currentAssignment("g", "m", ASSIGNMENT);

    assertThat(ConsumerGroupRecords.readKey(epoch))
        .isEqualTo(new ConsumerGroupRecords.Key("g", null));
    assertThat(ConsumerGroupRecords.readKey(current))
        .isEqualTo(new ConsumerGroupRecords.Key("g", "m"));
    assertThat(ConsumerGroupRecords.readEpoch(epoch)).isEqualTo(7);
    assertThat(ConsumerGroupRecords.readEpoch(targetEpoch)).isEqualTo(6);
    assertThat(ConsumerGroupRecords.readPartitionMetadata(metadata))
        .containsExactly(new TopicMetadata(TOPIC, "t", 6));
    assertThat(ConsumerGroupRecords.readMemberMetadata(member)).isEqualTo(SUBSCRIPTION);
    assertThat(ConsumerGroupRecords.readTargetAssignment(target)).isEqualTo(PARTITIONS);
    assertThat(ConsumerGroupRecords.readCurrentAssignment(current)).isEqualTo(ASSIGNMENT);
  }

  @Test
  void groupEpochIsKafkasConsumerGroupMetadataRecord() {
    ConsumerGroupMetadataKey key = new ConsumerGroupMetadataKey().setGroupId("g");
    ConsumerGroupMetadataValue value = new ConsumerGroupMetadataValue().setEpoch(7);
    CoordinatorRecord brook = ConsumerGroupRecords.groupEpoch("g", 7);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsKey(brook, ConsumerGroupMetadataKey::new, key);
    assertThat(kafkaValue(brook, ConsumerGroupMetadataValue::new).epoch()).isEqualTo(7);
    assertThat(ConsumerGroupRecords.readEpoch(kafkaRecord(key, V0, value))).isEqualTo(7);
  }

  @Test
  void partitionMetadataIsKafkasPartitionMetadataRecord() {
    ConsumerGroupPartitionMetadataKey key = new ConsumerGroupPartitionMetadataKey().setGroupId("g");
    ConsumerGroupPartitionMetadataValue value =
        new ConsumerGroupPartitionMetadataValue()
            .setTopics(
                List.of(
                    new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                        .setTopicId(TOPIC)
                        .setTopicName("t")
                        .setNumPartitions(6),
                    new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                        .setTopicId(OTHER)
                        .setTopicName("u")
                        .setNumPartitions(1)));
    List<TopicMetadata> topics =
        List.of(new TopicMetadata(TOPIC, "t", 6), new TopicMetadata(OTHER, "u", 1));
    CoordinatorRecord brook = ConsumerGroupRecords.partitionMetadata("g", topics);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ConsumerGroupPartitionMetadataValue::new, value);
    CoordinatorRecord fromKafka = kafkaRecord(key, V0, value);
    assertThat(ConsumerGroupRecords.readKey(fromKafka))
        .isEqualTo(new ConsumerGroupRecords.Key("g", null));
    assertThat(ConsumerGroupRecords.readPartitionMetadata(fromKafka)).isEqualTo(topics);
  }

  @Test
  void memberMetadataIsKafkasMemberMetadataRecord() {
    ConsumerGroupMemberMetadataKey key =
        new ConsumerGroupMemberMetadataKey().setGroupId("g").setMemberId("m");
    ConsumerGroupMemberMetadataValue value =
        new ConsumerGroupMemberMetadataValue()
            .setInstanceId("pod-1")
            .setRackId("rack-a")
            .setClientId("client")
            .setClientHost("/10.0.0.1")
            .setSubscribedTopicNames(List.of("a", "b"))
            .setSubscribedTopicRegex(null)
            .setRebalanceTimeoutMs(300_000)
            .setServerAssignor("range")
            .setClassicMemberMetadata(null);
    CoordinatorRecord brook = ConsumerGroupRecords.memberMetadata("g", "m", SUBSCRIPTION);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsKey(brook, ConsumerGroupMemberMetadataKey::new, key);
    assertKafkaReadsValue(brook, ConsumerGroupMemberMetadataValue::new, value);
    CoordinatorRecord fromKafka = kafkaRecord(key, V0, value);
    assertThat(ConsumerGroupRecords.readKey(fromKafka))
        .isEqualTo(new ConsumerGroupRecords.Key("g", "m"));
    assertThat(ConsumerGroupRecords.readMemberMetadata(fromKafka)).isEqualTo(SUBSCRIPTION);
  }

  @Test
  void aRegexMemberWithoutRackOrInstanceIsKafkasRecord() {
    MemberSubscription regex =
        new MemberSubscription(null, null, "c", "/h", List.of(), "orders-.*", 45_000, null);
    ConsumerGroupMemberMetadataValue value =
        new ConsumerGroupMemberMetadataValue()
            .setInstanceId(null)
            .setRackId(null)
            .setClientId("c")
            .setClientHost("/h")
            .setSubscribedTopicNames(List.of())
            .setSubscribedTopicRegex("orders-.*")
            .setRebalanceTimeoutMs(45_000)
            .setServerAssignor(null)
            .setClassicMemberMetadata(null);
    ConsumerGroupMemberMetadataKey key =
        new ConsumerGroupMemberMetadataKey().setGroupId("g").setMemberId("m");

    assertKafkaBytes(ConsumerGroupRecords.memberMetadata("g", "m", regex), key, V0, value);
    assertThat(ConsumerGroupRecords.readMemberMetadata(kafkaRecord(key, V0, value)))
        .isEqualTo(regex);
  }

  @Test
  void targetAssignmentEpochIsKafkasTargetAssignmentMetadataRecord() {
    ConsumerGroupTargetAssignmentMetadataKey key =
        new ConsumerGroupTargetAssignmentMetadataKey().setGroupId("g");
    ConsumerGroupTargetAssignmentMetadataValue value =
        new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(6);
    CoordinatorRecord brook = ConsumerGroupRecords.targetAssignmentEpoch("g", 6);

    assertKafkaBytes(brook, key, V0, value);
    assertThat(kafkaValue(brook, ConsumerGroupTargetAssignmentMetadataValue::new).assignmentEpoch())
        .isEqualTo(6);
    assertThat(ConsumerGroupRecords.readEpoch(kafkaRecord(key, V0, value))).isEqualTo(6);
  }

  @Test
  void targetAssignmentIsKafkasTargetAssignmentMemberRecord() {
    ConsumerGroupTargetAssignmentMemberKey key =
        new ConsumerGroupTargetAssignmentMemberKey().setGroupId("g").setMemberId("m");
    ConsumerGroupTargetAssignmentMemberValue value =
        new ConsumerGroupTargetAssignmentMemberValue()
            .setTopicPartitions(
                List.of(
                    new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                        .setTopicId(TOPIC)
                        .setPartitions(List.of(0, 3)),
                    new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                        .setTopicId(OTHER)
                        .setPartitions(List.of(1))));
    CoordinatorRecord brook = ConsumerGroupRecords.targetAssignment("g", "m", PARTITIONS);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ConsumerGroupTargetAssignmentMemberValue::new, value);
    CoordinatorRecord fromKafka = kafkaRecord(key, V0, value);
    assertThat(ConsumerGroupRecords.readKey(fromKafka))
        .isEqualTo(new ConsumerGroupRecords.Key("g", "m"));
    assertThat(ConsumerGroupRecords.readTargetAssignment(fromKafka)).isEqualTo(PARTITIONS);
  }

  @Test
  void currentAssignmentIsKafkasCurrentMemberAssignmentRecord() {
    ConsumerGroupCurrentMemberAssignmentKey key =
        new ConsumerGroupCurrentMemberAssignmentKey().setGroupId("g").setMemberId("m");
    ConsumerGroupCurrentMemberAssignmentValue value =
        new ConsumerGroupCurrentMemberAssignmentValue()
            .setMemberEpoch(7)
            .setPreviousMemberEpoch(6)
            .setState((byte) 1)
            .setAssignedPartitions(
                List.of(
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(TOPIC)
                        .setPartitions(List.of(0, 3)),
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(OTHER)
                        .setPartitions(List.of(1))))
            .setPartitionsPendingRevocation(
                List.of(
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(TOPIC)
                        .setPartitions(List.of(5))));
    CoordinatorRecord brook = ConsumerGroupRecords.currentAssignment("g", "m", ASSIGNMENT);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ConsumerGroupCurrentMemberAssignmentValue::new, value);
    assertThat(ConsumerGroupRecords.readCurrentAssignment(kafkaRecord(key, V0, value)))
        .isEqualTo(ASSIGNMENT);
  }

  @Test
  void tombstonesAreKafkasTombstones() {
    List<CoordinatorRecord> member = ConsumerGroupRecords.memberTombstones("g", "m");
    assertKafkaBytes(
        member.get(0),
        new ConsumerGroupCurrentMemberAssignmentKey().setGroupId("g").setMemberId("m"),
        V0,
        null);
    assertKafkaBytes(
        member.get(1),
        new ConsumerGroupTargetAssignmentMemberKey().setGroupId("g").setMemberId("m"),
        V0,
        null);
    assertKafkaBytes(
        member.get(2),
        new ConsumerGroupMemberMetadataKey().setGroupId("g").setMemberId("m"),
        V0,
        null);
    List<CoordinatorRecord> group = ConsumerGroupRecords.groupTombstones("g");
    assertKafkaBytes(
        group.get(0), new ConsumerGroupTargetAssignmentMetadataKey().setGroupId("g"), V0, null);
    assertKafkaBytes(
        group.get(1), new ConsumerGroupPartitionMetadataKey().setGroupId("g"), V0, null);
    assertKafkaBytes(group.get(2), new ConsumerGroupMetadataKey().setGroupId("g"), V0, null);
  }

  @Test
  void aLengthPrefixLargerThanTheRecordFailsWithoutAllocatingIt() {
    // version 0, then an unsigned varint array length of about 2^28 in four bytes
    ByteBuffer value = ByteBuffer.allocate(2 + 4);
    value.putShort((short) 0).put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F}).flip();
    CoordinatorRecord corrupt =
        new CoordinatorRecord(
            ConsumerGroupRecords.TARGET_ASSIGNMENT_MEMBER,
            ConsumerGroupRecords.targetAssignment("g", "m", new TreeSet<>()).key(),
            value);

    assertThatThrownBy(() -> ConsumerGroupRecords.readTargetAssignment(corrupt))
        .isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void anUnknownValueVersionIsRefused() {
    ByteBuffer value = ByteBuffer.allocate(6);
    value.putShort((short) 9).putInt(1).flip();
    CoordinatorRecord future =
        new CoordinatorRecord(
            ConsumerGroupRecords.GROUP_METADATA,
            ConsumerGroupRecords.groupEpoch("g", 1).key(),
            value);

    assertThatThrownBy(() -> ConsumerGroupRecords.readEpoch(future))
        .isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void aTruncatedKeyIsRefused() {
    ByteBuffer key = ConsumerGroupRecords.groupEpoch("group", 1).key().duplicate();
    key.limit(key.limit() - 1);
    CoordinatorRecord truncated =
        new CoordinatorRecord(ConsumerGroupRecords.GROUP_METADATA, key, null);

    assertThatThrownBy(() -> ConsumerGroupRecords.readKey(truncated))
        .isInstanceOf(MalformedRecordException.class);
  }
}
