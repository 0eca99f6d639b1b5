package io.brook.coordinator.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.junit.jupiter.api.Test;

class ConsumerGroupRecordsTest {
  private static final Uuid TOPIC = Uuid.randomUuid();

  @Test
  void everyRecordReadsBackWhatWasWritten() {
    TreeSet<TopicIdPartition> partitions =
        new TreeSet<>(List.of(new TopicIdPartition(TOPIC, 0), new TopicIdPartition(TOPIC, 3)));
    MemberSubscription subscription =
        new MemberSubscription(
            "pod-1", "rack-a", "client", "/10.0.0.1", List.of("b", "a"), null, 300_000, "range");
    MemberAssignment assignment =
        new MemberAssignment(
            7,
            6,
            MemberState.UNREVOKED_PARTITIONS,
            partitions,
            new TreeSet<>(List.of(new TopicIdPartition(TOPIC, 5))));

    CoordinatorRecord epoch = ConsumerGroupRecords.groupEpoch("g", 7);
    CoordinatorRecord metadata =
        ConsumerGroupRecords.partitionMetadata("g", List.of(new TopicMetadata(TOPIC, "t", 6)));
    CoordinatorRecord member = ConsumerGroupRecords.memberMetadata("g", "m", subscription);
    CoordinatorRecord target = ConsumerGroupRecords.targetAssignment("g", "m", partitions);
    CoordinatorRecord current = ConsumerGroupRecords.currentAssignment("g", "m", assignment);

    assertThat(ConsumerGroupRecords.readKey(epoch))
        .isEqualTo(new ConsumerGroupRecords.Key("g", null));
    assertThat(ConsumerGroupRecords.readKey(current))
        .isEqualTo(new ConsumerGroupRecords.Key("g", "m"));
    assertThat(ConsumerGroupRecords.readEpoch(epoch)).isEqualTo(7);
    assertThat(ConsumerGroupRecords.readPartitionMetadata(metadata))
        .containsExactly(new TopicMetadata(TOPIC, "t", 6));
    assertThat(ConsumerGroupRecords.readMemberMetadata(member)).isEqualTo(subscription);
    assertThat(ConsumerGroupRecords.readTargetAssignment(target)).isEqualTo(partitions);
    assertThat(ConsumerGroupRecords.readCurrentAssignment(current)).isEqualTo(assignment);
  }

  @Test
  void aLengthPrefixLargerThanTheRecordFailsWithoutAllocatingIt() {
    ByteBuffer value = ByteBuffer.allocate(2 + 4);
    value.putShort((short) 0).putInt(Integer.MAX_VALUE).flip();
    CoordinatorRecord corrupt =
        new CoordinatorRecord(
            ConsumerGroupRecords.TARGET_ASSIGNMENT_MEMBER,
            ConsumerGroupRecords.targetAssignment("g", "m", new TreeSet<>()).key(),
            value);

    assertThatThrownBy(() -> ConsumerGroupRecords.readTargetAssignment(corrupt))
        .isInstanceOf(SchemaException.class);
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
        .isInstanceOf(IllegalArgumentException.class);
  }
}
