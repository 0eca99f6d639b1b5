package io.brook.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Checks batch CRCs during recovery through one reusable direct buffer. kafka-clients' own check
 * reads each batch into a fresh heap array; recovering a gigabyte that way allocates a gigabyte,
 * and the garbage collector, not the disk, sets the restart time.
 *
 * <p>The buffer is allocated at the first batch checked and sized to the largest batch so far, not
 * up front at its cap: a restart after an unclean shutdown builds one of these per segment it
 * recovers, most of them empty or holding a few small batches, and a direct buffer is zeroed page
 * by page when allocated (at 2 MiB each, 24,000 empty partitions cost 48 GiB of page faults).
 */
final class RecoveryChecksums {
  /**
   * Batches up to 2 MiB (twice the default {@code max.message.bytes}) use the shared buffer; a
   * larger one, rare and possibly a torn length, is checked by kafka-clients without growing it.
   */
  private static final int SHARED_BUFFER_BYTES = 2 * 1024 * 1024;

  /** Batches older than this format cannot be stored; see {@code BatchValidator}. */
  private static final byte REQUIRED_MAGIC = RecordBatch.MAGIC_VALUE_V2;

  /** Smallest buffer allocated: several ordinary batches' worth, so few checks grow it. */
  private static final int MIN_BUFFER_BYTES = 64 * 1024;

  /** Null until the first batch is checked; replaced by a larger one when a batch needs it. */
  private ByteBuffer buffer;

  private final CRC32C crc = new CRC32C();

  /**
   * Whether the header can be right: format, size, offsets after {@code expectedAtLeast} and within
   * the 32-bit range the segment's indexes can hold relative to {@code segmentBaseOffset} (a batch
   * past it could never have been appended to this segment, and indexing it would fail).
   */
  static boolean hasSaneHeader(
      FileChannelRecordBatch batch, long expectedAtLeast, long segmentBaseOffset) {
    return batch.magic() == REQUIRED_MAGIC
        && batch.sizeInBytes() >= DefaultRecordBatch.RECORD_BATCH_OVERHEAD
        && batch.baseOffset() >= expectedAtLeast
        && batch.lastOffset() >= batch.baseOffset()
        && batch.lastOffset() - segmentBaseOffset <= Integer.MAX_VALUE;
  }

  /** Whether the batch's stored CRC32C matches its bytes from the attributes field on. */
  boolean isValid(FileChannel channel, FileChannelRecordBatch batch) throws IOException {
    int size = batch.sizeInBytes();
    if (size > SHARED_BUFFER_BYTES) {
      return batch.isValid();
    }
    ByteBuffer buffer = bufferFor(size);
    buffer.clear().limit(size);
    long position = batch.position();
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position + buffer.position());
      if (read < 0) {
        return false;
      }
    }
    buffer.flip();
    long stored = Integer.toUnsignedLong(buffer.getInt(DefaultRecordBatch.CRC_OFFSET));
    buffer.position(DefaultRecordBatch.CRC_OFFSET + Integer.BYTES);
    crc.reset();
    crc.update(buffer);
    return crc.getValue() == stored;
  }

  private ByteBuffer bufferFor(int size) {
    ByteBuffer current = buffer;
    if (current == null || current.capacity() < size) {
      int capacity = Math.max(MIN_BUFFER_BYTES, Integer.highestOneBit(size - 1) << 1);
      current = ByteBuffer.allocateDirect(Math.min(capacity, SHARED_BUFFER_BYTES));
      buffer = current;
    }
    return current;
  }
}
