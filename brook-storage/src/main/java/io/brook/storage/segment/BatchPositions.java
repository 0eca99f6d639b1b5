package io.brook.storage.segment;

import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Finds the batch holding an offset in a segment's log file, what every fetch does before it hands
 * a file range to {@code sendfile}. kafka-clients' {@code FileRecords.searchForOffsetFromPosition}
 * reads the first 17 bytes of each batch it passes and then the whole 61-byte header of a batch
 * whose last offset it needs: about four positional reads per lookup, since the index names a batch
 * by its last offset and a fetch usually starts at the first offset of the batch after an indexed
 * one. Here each batch visited costs one read of its first {@link #PREFIX_BYTES} bytes (base
 * offset, length, magic, last offset delta), and the index entry after the one found is tried
 * first: when every batch is indexed (batches of at least {@code index.interval.bytes}, the usual
 * case) that entry's batch is the one wanted, and a lookup is a single read.
 *
 * <p>Nothing read is trusted beyond the walk: a batch is taken only if its header says it holds the
 * offset (base at most, last at least the target), and a header that does not look like a v2 batch
 * (magic, a length shorter than a batch header) hands the search from that position to
 * kafka-clients, which reports or skips it as it always did.
 */
final class BatchPositions {
  /**
   * v2 header: base offset (8), length (4), leader epoch (4), magic (1), CRC (4), attributes (2).
   */
  private static final int LAST_OFFSET_DELTA_OFFSET =
      DefaultRecordBatch.CRC_OFFSET + Integer.BYTES + Short.BYTES;

  /** The header bytes read per batch: up to and including the last offset delta. */
  static final int PREFIX_BYTES = LAST_OFFSET_DELTA_OFFSET + Integer.BYTES;

  private BatchPositions() {}

  /**
   * The first batch at or after {@code startingPosition} whose last offset is at least {@code
   * target}, as {@code (last offset, position, size)}; null if none lies wholly within {@code
   * records}.
   */
  static FileRecords.LogOffsetPosition find(
      FileRecords records, OffsetIndex.Neighbours index, long target, int startingPosition) {
    FileChannel channel = records.channel();
    int end = records.sizeInBytes();
    ByteBuffer header = ByteBuffer.allocate(PREFIX_BYTES);
    try {
      OffsetPosition next = index.next();
      if (next != null && next.position() >= startingPosition) {
        // The entry's batch ends at the entry's offset, above the target: the batch holding the
        // target is this one unless an unindexed batch lies between the two entries.
        Header at = read(channel, end, next.position(), header);
        if (at != null && at.holds(target)) {
          return at.toPosition();
        }
      }
      int from = Math.max(index.floor().position(), startingPosition);
      if (from > end) {
        from = startingPosition;
      }
      return walk(records, channel, end, from, target, header);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read batch headers of " + records.file(), e);
    }
  }

  private static FileRecords.LogOffsetPosition walk(
      FileRecords records, FileChannel channel, int end, int from, long target, ByteBuffer header)
      throws IOException {
    int position = from;
    while (true) {
      Header at = read(channel, end, position, header);
      if (at == null) {
        return null;
      }
      if (at == Header.ODD) {
        return records.searchForOffsetFromPosition(target, position);
      }
      if (at.lastOffset() >= target) {
        return at.toPosition();
      }
      position += at.size();
    }
  }

  /** A batch header as far as positioning needs it. */
  private record Header(long baseOffset, long lastOffset, int position, int size) {
    /** Bytes that are not a v2 batch header: another magic, or a length too short for one. */
    static final Header ODD = new Header(-1, -1, -1, -1);

    boolean holds(long target) {
      return this != ODD && baseOffset <= target && lastOffset >= target;
    }

    FileRecords.LogOffsetPosition toPosition() {
      return new FileRecords.LogOffsetPosition(lastOffset, position, size);
    }
  }

  /**
   * The header of the batch at {@code position}; null if no whole batch starts there (the file ends
   * first), {@link Header#ODD} if the bytes there are not a v2 batch header.
   */
  private static Header read(FileChannel channel, int end, int position, ByteBuffer header)
      throws IOException {
    if (position < 0 || position + PREFIX_BYTES > end) {
      return null;
    }
    header.clear();
    while (header.hasRemaining()) {
      if (channel.read(header, position + header.position()) < 0) {
        return null;
      }
    }
    int size = Records.LOG_OVERHEAD + header.getInt(Records.SIZE_OFFSET);
    if (header.get(Records.MAGIC_OFFSET) != RecordBatch.MAGIC_VALUE_V2
        || size < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      return Header.ODD;
    }
    if (position > end - size) {
      return null;
    }
    long base = header.getLong(Records.OFFSET_OFFSET);
    return new Header(base, base + header.getInt(LAST_OFFSET_DELTA_OFFSET), position, size);
  }
}
