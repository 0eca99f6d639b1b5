package io.brook.coordinator.group.classic;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsKey;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static io.brook.coordinator.testing.KafkaRecords.kafkaRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedMember;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.junit.jupiter.api.Test;

class ClassicGroupRecordsTest {
  private static final PersistedGroup GROUP =
      new PersistedGroup(
          "billing",
          "consumer",
          7,
          "range",
          "m-1",
          1234L,
          List.of(
              new PersistedMember(
                  "m-1", null, "c1", "/10.0.0.1", 300_000, 45_000, new byte[] {1}, new byte[] {2}),
              new PersistedMember(
                  "m-2", "pod-2", "c2", "/10.0.0.2", 300_000, 10_000, new byte[0], new byte[0])));

  /** {@link #GROUP} as Kafka's generated classes hold it. */
  private static final GroupMetadataValue KAFKA_GROUP =
      new GroupMetadataValue()
          .setProtocolType("consumer")
          .setGeneration(7)
          .setProtocol("range")
          .setLeader("m-1")
          .setCurrentStateTimestamp(1234L)
          .setMembers(
              List.of(
                  new GroupMetadataValue.MemberMetadata()
                      .setMemberId("m-1")
                      .setGroupInstanceId(null)
                      .setClientId("c1")
                      .setClientHost("/10.0.0.1")
                      .setRebalanceTimeout(300_000)
                      .setSessionTimeout(45_000)
                      .setSubscription(new byte[] {1})
                      .setAssignment(new byte[] {2}),
                  new GroupMetadataValue.MemberMetadata()
                      .setMemberId("m-2")
                      .setGroupInstanceId("pod-2")
                      .setClientId("c2")
                      .setClientHost("/10.0.0.2")
                      .setRebalanceTimeout(300_000)
                      .setSessionTimeout(10_000)
                      .setSubscription(new byte[0])
                      .setAssignment(new byte[0])));

  @Test
  void roundTripsKafkasGroupMetadataLayout() {
    // When
    CoordinatorRecord record = ClassicGroupRecords.record(GROUP);
    // Then
    assertThat(record.type()).isEqualTo((short) 2);
    assertThat(record.value().getShort(0)).isEqualTo((short) 3);
    assertThat(ClassicGroupRecords.readGroupId(record)).isEqualTo("billing");
    assertSameGroup(ClassicGroupRecords.readValue("billing", record));
  }

  @Test
  void writesKafkasBytesAndKafkaReadsThem() {
    CoordinatorRecord record = ClassicGroupRecords.record(GROUP);
    GroupMetadataKey key = new GroupMetadataKey().setGroup("billing");

    assertKafkaBytes(record, key, (short) 3, KAFKA_GROUP);
    assertKafkaReadsKey(record, GroupMetadataKey::new, key);
    assertKafkaReadsValue(record, GroupMetadataValue::new, KAFKA_GROUP);
    assertKafkaBytes(ClassicGroupRecords.tombstone("billing"), key, (short) 3, null);
  }

  @Test
  void readsWhatKafkaWritesInVersionsThreeAndFour() {
    GroupMetadataKey key = new GroupMetadataKey().setGroup("billing");
    for (short version = 3; version <= 4; version++) {
      CoordinatorRecord kafka = kafkaRecord(key, version, KAFKA_GROUP);
      assertThat(ClassicGroupRecords.readGroupId(kafka)).isEqualTo("billing");
      assertSameGroup(ClassicGroupRecords.readValue("billing", kafka));
    }
  }

  private static void assertSameGroup(PersistedGroup read) {
    assertThat(read).usingRecursiveComparison().ignoringFields("members").isEqualTo(GROUP);
    assertThat(read.members()).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(read.members().get(i))
          .usingRecursiveComparison()
          .isEqualTo(GROUP.members().get(i));
    }
  }

  @Test
  void anEmptyGenerationHasNoProtocolOrLeader() {
    PersistedGroup empty = new PersistedGroup("g", "consumer", 3, null, null, 1L, List.of());
    CoordinatorRecord record = ClassicGroupRecords.record(empty);
    PersistedGroup read = ClassicGroupRecords.readValue("g", record);
    assertThat(read.protocolName()).isNull();
    assertThat(read.leaderId()).isNull();
    assertThat(read.members()).isEmpty();
    assertKafkaBytes(
        record,
        new GroupMetadataKey().setGroup("g"),
        (short) 3,
        new GroupMetadataValue()
            .setProtocolType("consumer")
            .setGeneration(3)
            .setProtocol(null)
            .setLeader(null)
            .setCurrentStateTimestamp(1L)
            .setMembers(List.of()));
  }

  @Test
  void aCorruptLengthFailsWithoutAllocatingIt() {
    // Given a value claiming a billion members in a few bytes
    ByteBuffer value = ClassicGroupRecords.record(GROUP).value().duplicate();
    ByteBuffer corrupt = ByteBuffer.allocate(value.remaining());
    corrupt.put(value).flip();
    int membersCount = 2 + 2 + "consumer".length() + 4 + 2 + "range".length() + 2 + 3 + 8;
    corrupt.putInt(membersCount, 1_000_000_000);
    CoordinatorRecord record =
        new CoordinatorRecord((short) 2, ClassicGroupRecords.tombstone("billing").key(), corrupt);
    // Then
    assertThatThrownBy(() -> ClassicGroupRecords.readValue("billing", record))
        .isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void anUnknownOrTooOldVersionIsRefused() {
    // version 2 is a real Kafka value, but without the fields Brook relies on
    GroupMetadataKey key = new GroupMetadataKey().setGroup("g");
    CoordinatorRecord old =
        kafkaRecord(key, (short) 2, new GroupMetadataValue().setProtocolType("consumer"));
    CoordinatorRecord future =
        new CoordinatorRecord((short) 2, old.key(), ByteBuffer.allocate(2).putShort(0, (short) 9));
    for (CoordinatorRecord record : List.of(old, future)) {
      assertThatThrownBy(() -> ClassicGroupRecords.readValue("g", record))
          .isInstanceOf(MalformedRecordException.class);
    }
  }
}
