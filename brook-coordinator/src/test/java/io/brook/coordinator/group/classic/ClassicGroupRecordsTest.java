package io.brook.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedMember;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.protocol.types.SchemaException;
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

  @Test
  void roundTripsKafkasGroupMetadataLayout() {
    // When
    CoordinatorRecord record = ClassicGroupRecords.record(GROUP);
    // Then
    assertThat(record.type()).isEqualTo((short) 2);
    assertThat(record.value().getShort(0)).isEqualTo((short) 3);
    assertThat(ClassicGroupRecords.readGroupId(record)).isEqualTo("billing");
    PersistedGroup read = ClassicGroupRecords.readValue("billing", record);
    assertThat(read.generationId()).isEqualTo(7);
    assertThat(read.protocolName()).isEqualTo("range");
    assertThat(read.leaderId()).isEqualTo("m-1");
    assertThat(read.stateTimestampMs()).isEqualTo(1234L);
    assertThat(read.members()).hasSize(2);
    assertThat(read.members().get(0).assignment()).containsExactly(2);
    assertThat(read.members().get(1).groupInstanceId()).isEqualTo("pod-2");
    assertThat(read.members().get(1).sessionTimeoutMs()).isEqualTo(10_000);
  }

  @Test
  void anEmptyGenerationHasNoProtocolOrLeader() {
    PersistedGroup empty = new PersistedGroup("g", "consumer", 3, null, null, 1L, List.of());
    PersistedGroup read = ClassicGroupRecords.readValue("g", ClassicGroupRecords.record(empty));
    assertThat(read.protocolName()).isNull();
    assertThat(read.leaderId()).isNull();
    assertThat(read.members()).isEmpty();
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
        .isInstanceOf(SchemaException.class);
  }

  @Test
  void anUnknownVersionIsRefused() {
    ByteBuffer value = ByteBuffer.allocate(2).putShort(0, (short) 9);
    CoordinatorRecord record =
        new CoordinatorRecord((short) 2, ClassicGroupRecords.tombstone("g").key(), value);
    assertThatThrownBy(() -> ClassicGroupRecords.readValue("g", record))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
