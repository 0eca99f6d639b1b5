package io.brook.coordinator.group.offsets;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsKey;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static io.brook.coordinator.testing.KafkaRecords.kafkaRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.MalformedRecordException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.coordinator.group.generated.LegacyOffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;
import org.junit.jupiter.api.Test;

class OffsetRecordsTest {
  private static final TopicPartition TP = new TopicPartition("orders", 3);
  private static final CommittedOffset COMMITTED = new CommittedOffset(42L, 7, "meta", 1_000L);
  private static final OffsetCommitKey KEY =
      new OffsetCommitKey().setGroup("g").setTopic("orders").setPartition(3);
  private static final OffsetCommitValue VALUE =
      new OffsetCommitValue()
          .setOffset(42L)
          .setLeaderEpoch(7)
          .setMetadata("meta")
          .setCommitTimestamp(1_000L);

  @Test
  void writesKafkasVersionThreeBytesAndKafkaReadsThem() {
    CoordinatorRecord brook = OffsetRecords.commit("g", TP, COMMITTED);

    assertThat(brook.type()).isEqualTo(OffsetRecords.KEY_TYPE).isEqualTo((short) 1);
    assertKafkaBytes(brook, KEY, (short) 3, VALUE);
    assertKafkaReadsKey(brook, OffsetCommitKey::new, KEY);
    assertKafkaReadsValue(brook, OffsetCommitValue::new, VALUE);
    assertKafkaBytes(OffsetRecords.tombstone("g", TP), KEY, (short) 3, null);
  }

  @Test
  void readsBackWhatItWrites() {
    CoordinatorRecord brook = OffsetRecords.commit("g", TP, COMMITTED);
    assertThat(OffsetRecords.readKey(brook)).isEqualTo(new OffsetRecords.Key("g", TP));
    assertThat(OffsetRecords.readValue(brook)).isEqualTo(COMMITTED);
    assertThat(OffsetRecords.readKey(OffsetRecords.tombstone("g", TP)))
        .isEqualTo(new OffsetRecords.Key("g", TP));
  }

  @Test
  void readsEveryVersionKafkaWrites() {
    // versions 3 and 4 carry all four fields
    for (short version = 3; version <= 4; version++) {
      CoordinatorRecord kafka = kafkaRecord(KEY, version, VALUE);
      assertThat(OffsetRecords.readKey(kafka)).isEqualTo(new OffsetRecords.Key("g", TP));
      assertThat(OffsetRecords.readValue(kafka)).isEqualTo(COMMITTED);
    }
    // versions 0 to 2 have no leader epoch; 1 also an expire timestamp, ignored
    OffsetCommitValue old =
        new OffsetCommitValue().setOffset(42L).setMetadata("m").setCommitTimestamp(5L);
    for (short version = 0; version <= 2; version++) {
      assertThat(OffsetRecords.readValue(kafkaRecord(KEY, version, old)))
          .isEqualTo(new CommittedOffset(42L, -1, "m", 5L));
    }
    assertThat(
            OffsetRecords.readValue(
                kafkaRecord(KEY, (short) 1, old.duplicate().setExpireTimestamp(99L))))
        .isEqualTo(new CommittedOffset(42L, -1, "m", 5L));
  }

  @Test
  void readsKafkasLegacyKey() {
    CoordinatorRecord legacy =
        kafkaRecord(
            new LegacyOffsetCommitKey().setGroup("g").setTopic("orders").setPartition(3),
            (short) 3,
            VALUE);
    assertThat(legacy.type()).isEqualTo(OffsetRecords.KEY_TYPE_V0).isZero();
    assertThat(OffsetRecords.handles(legacy.type())).isTrue();
    assertThat(OffsetRecords.readKey(legacy)).isEqualTo(new OffsetRecords.Key("g", TP));
    assertThat(OffsetRecords.readValue(legacy)).isEqualTo(COMMITTED);
  }

  @Test
  void refusesUnknownVersionsAndMalformedBytes() {
    ByteBuffer key = OffsetRecords.tombstone("g", TP).key();
    ByteBuffer future = ByteBuffer.allocate(2 + 8).putShort((short) 5).putLong(1L).flip();
    ByteBuffer truncated = OffsetRecords.commit("g", TP, COMMITTED).value().duplicate();
    truncated.limit(truncated.limit() - 1);
    ByteBuffer hugeMetadata =
        ByteBuffer.allocate(2 + 8 + 4 + 2)
            .putShort((short) 3)
            .putLong(1L)
            .putInt(0)
            .putShort(Short.MAX_VALUE)
            .flip();
    for (ByteBuffer value :
        new ByteBuffer[] {future, truncated, hugeMetadata, ByteBuffer.allocate(1)}) {
      CoordinatorRecord record = new CoordinatorRecord(OffsetRecords.KEY_TYPE, key, value);
      assertThatThrownBy(() -> OffsetRecords.readValue(record))
          .isInstanceOf(MalformedRecordException.class);
    }
    CoordinatorRecord badKey =
        new CoordinatorRecord(
            OffsetRecords.KEY_TYPE, ByteBuffer.wrap(new byte[] {0, 9, 'g'}), null);
    assertThatThrownBy(() -> OffsetRecords.readKey(badKey))
        .isInstanceOf(MalformedRecordException.class);
  }
}
