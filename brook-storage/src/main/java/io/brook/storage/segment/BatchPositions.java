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

  /** What {@link #read} found: no whole batch starts there (the file ends first). */
  private static final int NONE = -1;

  /** What {@link #read} found: bytes that are not a v2 batch header. */
  private static final int ODD = -2;

  /**
   * Each thread's header buffer: fetches position on several threads at once (network threads, the
   * disk pool, followers' reads), and a lookup is short and never nested, so one buffer per thread
   * serves every segment without a lock and without allocating per lookup. Direct, so the
   * positional read fills it without the JDK's copy through a temporary direct buffer.
   */
  private static final ThreadLocal<ByteBuffer> HEADER =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(PREFIX_BYTES));

  private BatchPositions() {}

  /**
   * The first batch at or after {@code startingPosition} whose last offset is at least {@code
   * target}, as {@code (last offset, position, size)}; null if none lies wholly within {@code
   * records}. Allocates nothing but its answer.
   */
  static FileRecords.LogOffsetPosition find(
      FileRecords records, OffsetIndex.Neighbours index, long target, int startingPosition) {
    FileChannel channel = records.channel();
    int end = records.sizeInBytes();
    ByteBuffer header = HEADER.get();
    try {
      OffsetPosition next = index.next();
      if (next != null && next.position() >= startingPosition) {
        // The entry's batch ends at the entry's offset, above the target: the batch holding the
        // target is this one unless an unindexed batch lies between the two entries.
        int position = next.position();
        int size = read(channel, end, position, header);
        if (size > 0 && baseOffset(header) <= target && lastOffset(header) >= target) {
          return new FileRecords.LogOffsetPosition(lastOffset(header), position, size);
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
      int size = read(channel, end, position, header);
      if (size == NONE) {
        return null;
      }
      if (size == ODD) {
        return records.searchForOffsetFromPosition(target, position);
      }
      long last = lastOffset(header);
      if (last >= target) {
        return new FileRecords.LogOffsetPosition(last, position, size);
      }
      position += size;
    }
  }

  /** The base offset of the header {@link #read} last read into {@code header}. */
  private static long baseOffset(ByteBuffer header) {
    return header.getLong(Records.OFFSET_OFFSET);
  }

  /** The last offset of the header {@link #read} last read into {@code header}. */
  private static long lastOffset(ByteBuffer header) {
    return baseOffset(header) + header.getInt(LAST_OFFSET_DELTA_OFFSET);
  }

  /**
   * Reads the header of the batch at {@code position} into {@code header}; returns the batch's size
   * in bytes, {@link #NONE} if no whole batch starts there (the file ends first), {@link #ODD} if
   * the bytes there are not a v2 batch header.
   */
  private static int read(FileChannel channel, int end, int position, ByteBuffer header)
      throws IOException {
    if (position < 0 || position + PREFIX_BYTES > end) {
      return NONE;
    }
    header.clear();
    while (header.hasRemaining()) {
      if (channel.read(header, position + header.position()) < 0) {
        return NONE;
      }
    }
    int size = Records.LOG_OVERHEAD + header.getInt(Records.SIZE_OFFSET);
    if (header.get(Records.MAGIC_OFFSET) != RecordBatch.MAGIC_VALUE_V2
        || size < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      return ODD;
    }
    if (position > end - size) {
      return NONE;
    }
    return size;
  }
}
