package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.classic.ClassicGroupRecords;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.group.offsets.OffsetRecords;
import io.brook.coordinator.testing.FakeShardContext;
import io.brook.coordinator.testing.PartitionLogView;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.record.RecordLimits;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.Crc32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading a real group shard from a log holding garbage between two offset commits: every kind of
 * bad record is skipped and both commits survive.
 */
class ShardLoaderBadRecordsTest {
  private static final TopicPartition TP = new TopicPartition("__consumer_offsets", 0);
  private static final TopicPartition BEFORE = new TopicPartition("orders", 0);
  private static final TopicPartition AFTER = new TopicPartition("orders", 1);
  private static final RecordLimits SMALL = new RecordLimits(4096, 64 * 1024);

  @TempDir Path dir;
  private PartitionLog log;

  @BeforeEach
  void open() throws Exception {
    log =
        PartitionLog.open(
            dir.resolve("p"), LogConfig.defaults(), LogOpenOptions.defaults(TP, Time.SYSTEM));
  }

  @AfterEach
  void close() throws Exception {
    log.close();
  }

  private static SimpleRecord simple(CoordinatorRecord record) {
    ByteBuffer key = record.recordKey();
    byte[] keyBytes = new byte[key.remaining()];
    key.get(keyBytes);
    byte[] value = null;
    if (record.value() != null) {
      value = new byte[record.value().remaining()];
      record.value().duplicate().get(value);
    }
    return new SimpleRecord(keyBytes, value);
  }

  private static SimpleRecord commit(TopicPartition tp, long offset) {
    return simple(OffsetRecords.commit("g", tp, new CommittedOffset(offset, 3, "m", 1_000L)));
  }

  private static SimpleRecord raw(byte[] key, byte[] value) {
    return new SimpleRecord(key, value);
  }

  private static byte[] typed(int type, byte... rest) {
    ByteBuffer b = ByteBuffer.allocate(2 + rest.length);
    b.putShort((short) type).put(rest);
    return b.array();
  }

  private void append(SimpleRecord... records) {
    log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0);
  }

  private void assertLoadKeepsBothCommitsSkipping(RecordLimits limits, long skipped) {
    FakeShardContext context = new FakeShardContext(0, 1_000L);
    GroupCoordinatorShard shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);
    ShardLoader.Result result = ShardLoader.load(new PartitionLogView(log), shard, 1024, limits);
    assertBothCommits(shard);
    assertThat(result.skipped()).isEqualTo(skipped);
  }

  /** Appends {@code records} as a follower would, after {@code change} spoilt their bytes. */
  private void appendSpoilt(MemoryRecords records, java.util.function.Consumer<ByteBuffer> change) {
    ByteBuffer bytes = records.buffer().duplicate();
    change.accept(bytes);
    rewriteCrc(bytes);
    log.appendAsFollower(MemoryRecords.readableRecords(bytes));
  }

  private static void assertBothCommits(GroupCoordinatorShard shard) {
    assertThat(shard.offsets().committed("g", BEFORE).map(CommittedOffset::offset))
        .isEqualTo(Optional.of(10L));
    assertThat(shard.offsets().committed("g", AFTER).map(CommittedOffset::offset))
        .isEqualTo(Optional.of(20L));
  }

  @Test
  void unparseableRecordsAreSkippedOneByOne() {
    byte[] groupKeyThenGarbage = typed(OffsetRecords.KEY_TYPE, (byte) 0, (byte) 1, (byte) 'g');
    append(commit(BEFORE, 10));
    append(
        raw(null, new byte[] {1}), // no key at all
        raw(new byte[] {7}, new byte[] {1}), // a key shorter than its type
        raw(typed(99, (byte) 1), new byte[] {1}), // unknown key type (ignored, not failed)
        raw(groupKeyThenGarbage, new byte[] {0, 3}), // truncated offset key
        raw(commit(BEFORE, 99).key().array(), new byte[] {0, 42, 1, 2}), // unknown value version
        raw(commit(BEFORE, 99).key().array(), new byte[] {0, 3, 0}), // truncated value
        raw(
            typed(ClassicGroupRecords.KEY_TYPE, (byte) 0, (byte) 1, (byte) 'x'),
            new byte[] {0, 3, 0x7f, 0x7f, 0x7f, 0x7f}), // length prefix far past the end
        raw(
            typed(5, (byte) 0, (byte) 1, (byte) 'x'),
            new byte[] {0, 0, (byte) 0xff})); // wrong types
    append(commit(AFTER, 20));

    assertLoadKeepsBothCommitsSkipping(
        LogConfig.defaults().recordLimits(),
        7); // everything but the unknown type, which is ignored
  }

  @Test
  void aRecordOverTheSizeCapIsSkipped() {
    append(commit(BEFORE, 10));
    byte[] huge = new byte[8192];
    append(raw(commit(AFTER, 99).key().array(), huge));
    append(commit(AFTER, 20));

    assertLoadKeepsBothCommitsSkipping(SMALL, 1);
  }

  @Test
  void aCompressedBatchInflatingPastTheCapIsCutShort() {
    append(commit(BEFORE, 10));
    // 200 records of 1 KiB zeros: a few hundred bytes compressed, 200 KiB inflated
    SimpleRecord[] bomb = new SimpleRecord[200];
    Arrays.setAll(bomb, i -> raw(typed(100, (byte) i), new byte[1024]));
    log.appendAsLeader(MemoryRecords.withRecords(Compression.gzip().build(), bomb), 0);
    append(commit(AFTER, 20));

    assertLoadKeepsBothCommitsSkipping(SMALL, 1);
  }

  /**
   * Loading reads within the partition's own limit ({@code max.message.bytes} × the inflation
   * factor: 128 KiB here), not a cap of its own: a batch a follower copied that inflates to 200 KiB
   * is cut short, as the leader would have refused it.
   */
  @Test
  void aBatchInflatingPastThePartitionsOwnLimitIsCutShort() throws Exception {
    log.close();
    log =
        PartitionLog.open(
            dir.resolve("small"),
            LogConfig.builder().maxMessageBytes(4096).build(),
            LogOpenOptions.defaults(TP, Time.SYSTEM));
    log.appendAsFollower(
        MemoryRecords.withRecords(log.logEndOffset(), Compression.NONE, 0, commit(BEFORE, 10)));
    SimpleRecord[] bomb = new SimpleRecord[200];
    Arrays.setAll(bomb, i -> raw(typed(100, (byte) i), new byte[1024]));
    log.appendAsFollower(
        MemoryRecords.withRecords(log.logEndOffset(), Compression.gzip().build(), 0, bomb));
    log.appendAsFollower(
        MemoryRecords.withRecords(log.logEndOffset(), Compression.NONE, 0, commit(AFTER, 20)));
    FakeShardContext context = new FakeShardContext(0, 1_000L);
    GroupCoordinatorShard shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);

    ShardLoader.Result result = ShardLoader.load(new PartitionLogView(log), shard, 1024);

    assertBothCommits(shard);
    assertThat(result.skipped()).isEqualTo(1);
  }

  @Test
  void aBatchThatCannotBeReadIsSkippedWhole() {
    append(commit(BEFORE, 10));
    // A gzip batch whose compressed bytes are garbage, with a valid CRC over them
    MemoryRecords gzip =
        MemoryRecords.withRecords(
            log.logEndOffset(),
            Compression.gzip().build(),
            0,
            commit(AFTER, 99),
            commit(AFTER, 98));
    appendSpoilt(
        gzip,
        bytes -> {
          for (int i = DefaultRecordBatch.RECORD_BATCH_OVERHEAD + 10; i < bytes.limit(); i++) {
            bytes.put(i, (byte) 0x5a);
          }
        });
    append(commit(AFTER, 20));

    assertLoadKeepsBothCommitsSkipping(LogConfig.defaults().recordLimits(), 1);
  }

  /**
   * A compressed batch whose header claims two billion records: materializing it (as a plain batch
   * iterator does) asks for an array of that size and throws OutOfMemoryError, which used to kill
   * the load and leave the shard loading forever.
   */
  @Test
  void aCompressedBatchClaimingBillionsOfRecordsIsNotMaterialized() {
    append(commit(BEFORE, 10));
    MemoryRecords gzip =
        MemoryRecords.withRecords(
            log.logEndOffset(), Compression.gzip().build(), 0, commit(AFTER, 99));
    appendSpoilt(
        gzip,
        bytes -> {
          bytes.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, Integer.MAX_VALUE);
          bytes.putInt(DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET, Integer.MAX_VALUE - 1);
        });
    log.appendAsFollower(
        MemoryRecords.withRecords(log.logEndOffset(), Compression.NONE, 0, commit(AFTER, 20)));

    assertLoadKeepsBothCommitsSkipping(LogConfig.defaults().recordLimits(), 1);
  }

  @Test
  void anErrorThrownByAReaderSkipsOnlyItsRecord() {
    append(commit(BEFORE, 10));
    append(raw(typed(100, (byte) 1), new byte[] {1}));
    append(commit(AFTER, 20));
    FakeShardContext context = new FakeShardContext(0, 1_000L);
    GroupCoordinatorShard groups = new GroupCoordinatorShard(context, GroupConfig.defaults());
    CoordinatorShard shard =
        new CoordinatorShard() {
          @Override
          public void replay(CoordinatorRecord record, long offset) {
            if (record.type() == 100) {
              throw new StackOverflowError("a reader recursed without end");
            }
            groups.replay(record, offset);
          }
        };

    ShardLoader.Result result =
        ShardLoader.load(
            new PartitionLogView(log), shard, 1024, LogConfig.defaults().recordLimits());

    assertBothCommits(groups);
    assertThat(result.skipped()).isEqualTo(1);
    assertThat(result.replayed()).isEqualTo(2);
  }

  /** Sets a batch's CRC (CRC-32C from its attributes to its end) after its bytes were changed. */
  static void rewriteCrc(ByteBuffer batch) {
    int size = batch.limit();
    long crc =
        Crc32C.compute(
            batch, DefaultRecordBatch.CRC_OFFSET + 4, size - DefaultRecordBatch.CRC_OFFSET - 4);
    batch.putInt(DefaultRecordBatch.CRC_OFFSET, (int) crc);
  }
}
