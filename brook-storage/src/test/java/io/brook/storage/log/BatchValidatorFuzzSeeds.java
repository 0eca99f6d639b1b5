package io.brook.storage.log;

import io.brook.storage.testing.Batches;
import io.brook.storage.testing.RawBatches;
import io.brook.storage.testing.RawBatches.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Writes the seed corpora of {@link BatchValidatorFuzzTest} and {@link LogRecoveryFuzzTest}: valid
 * batches of every codec and a few of each kind of lie. Run from {@code brook-storage} with the
 * test classpath; the files are checked in.
 */
final class BatchValidatorFuzzSeeds {
  private BatchValidatorFuzzSeeds() {}

  private static final long NOW = BatchValidatorFuzzTest.NOW;
  private static final String RESOURCES = "src/test/resources/io/brook/storage/log/";

  public static void main(String[] args) throws IOException {
    Path validator = Path.of(RESOURCES, "BatchValidatorFuzzTestInputs", "appendAcceptsOrRefuses");
    Path recovery =
        Path.of(RESOURCES, "LogRecoveryFuzzTestInputs", "recoveryKeepsEveryBatchBeforeTheDamage");
    Files.createDirectories(validator);
    Files.createDirectories(recovery);
    for (CompressionType type : CompressionType.values()) {
      String name = type.name.toLowerCase(java.util.Locale.ROOT);
      write(validator, "valid-" + name, 1, Batches.records(3, NOW, type));
      write(validator, "header-count-lie-" + name, 1, base(type).count(9).build());
      write(validator, "trailing-" + name, 1, base(type).trailing(new byte[] {7, 7}).build());
      write(
          validator,
          "header-count-" + name,
          1,
          base(type).add(Record.of(3, "k", "v").header("h", "v").headerCount(4)).build());
      write(recovery, "append-" + name, new byte[] {2, 0}, Batches.records(2, NOW, type));
    }
    write(validator, "valid-no-crc-fix", 0, Batches.records(2, NOW, CompressionType.NONE));
    write(
        validator,
        "compacted-null-key",
        3,
        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(NOW, null, "v".getBytes())));
    write(validator, "log-append-time", 5, Batches.records(2, NOW, CompressionType.LZ4));
    write(
        validator,
        "commit-marker",
        9,
        MemoryRecords.withEndTransactionMarker(
            0L, NOW, 0, 42L, (short) 1, new EndTransactionMarker(ControlRecordType.COMMIT, 3)));
    write(
        validator,
        "zstd-bomb",
        1,
        RawBatches.batch()
            .compression(CompressionType.ZSTD)
            .baseTimestamp(NOW)
            .zeroRecord(1024 * 1024)
            .build());
    write(validator, "idempotent", 1, Batches.idempotent(7L, (short) 0, 0, 3, NOW));
    write(recovery, "overwrite-last", new byte[] {1, 17}, Batches.records(1, NOW));
    write(recovery, "torn-zeros", new byte[] {1, 3}, MemoryRecords.readableRecords(zeros(40)));
    write(recovery, "garbage-after", new byte[] {0, 0}, MemoryRecords.readableRecords(zeros(13)));
  }

  private static RawBatches.Batch base(CompressionType type) {
    return RawBatches.batch()
        .compression(type)
        .baseTimestamp(NOW)
        .add(Record.of(0, "k0", "v0"))
        .add(Record.of(1, null, "v1").header("h", "x"))
        .add(Record.of(2, "k2", null));
  }

  private static ByteBuffer zeros(int n) {
    return ByteBuffer.allocate(n);
  }

  private static void write(Path dir, String name, int flags, MemoryRecords records)
      throws IOException {
    write(dir, name, new byte[] {(byte) flags}, records);
  }

  private static void write(Path dir, String name, byte[] prefix, MemoryRecords records)
      throws IOException {
    ByteBuffer bytes = records.buffer();
    byte[] out = new byte[prefix.length + bytes.remaining()];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    bytes.get(out, prefix.length, bytes.remaining());
    Files.write(dir.resolve(name), out);
  }
}
