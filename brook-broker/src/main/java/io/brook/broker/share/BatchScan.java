package io.brook.broker.share;

import io.brook.storage.segment.FileSlice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Finds where a share fetch's read ends, from the batch headers of the slice the log returned: the
 * last offset of its last complete batch, stopping early after the batch that reaches {@code
 * untilOffset} (the records the fetch may still acquire), so a consumer is not sent megabytes of
 * records it was not given. Reads 27 header bytes per batch with positional reads, into a buffer
 * reused per thread; the records themselves are sent from the file without being read.
 */
final class BatchScan {
  /** baseOffset (8), batchLength (4), leader epoch (4), magic (1), crc (4), attributes (2). */
  private static final int LAST_OFFSET_DELTA_AT = 23;

  private static final int HEADER_READ = LAST_OFFSET_DELTA_AT + 4;
  private static final int LOG_OVERHEAD = 12;

  /** The smallest v2 batch: its header without records. */
  private static final int MIN_BATCH_LENGTH = 49;

  private static final ThreadLocal<ByteBuffer> HEADER =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(HEADER_READ));

  /** What a scan found: the slice's complete batches up to {@code lastOffset}, in {@code bytes}. */
  record Result(long lastOffset, int bytes) {
    static final Result NONE = new Result(-1, 0);
  }

  private BatchScan() {}

  static Result scan(FileSlice slice, long untilOffset) {
    if (slice.sizeInBytes() < LOG_OVERHEAD + MIN_BATCH_LENGTH) {
      return Result.NONE;
    }
    ByteBuffer header = HEADER.get();
    try {
      slice.pin();
      try {
        FileChannel channel = slice.channel();
        long start = slice.position();
        long end = start + slice.sizeInBytes();
        long position = start;
        long lastOffset = -1;
        while (position + HEADER_READ <= end) {
          header.clear();
          while (header.hasRemaining()) {
            if (channel.read(header, position + header.position()) < 0) {
              return result(lastOffset, position - start);
            }
          }
          long baseOffset = header.getLong(0);
          int length = header.getInt(8);
          if (length < MIN_BATCH_LENGTH || position + LOG_OVERHEAD + length > end) {
            break; // the read's byte budget ended inside this batch
          }
          lastOffset = baseOffset + header.getInt(LAST_OFFSET_DELTA_AT);
          position += LOG_OVERHEAD + length;
          if (lastOffset >= untilOffset) {
            break;
          }
        }
        return result(lastOffset, position - start);
      } finally {
        slice.unpin();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Result result(long lastOffset, long bytes) {
    return lastOffset < 0 ? Result.NONE : new Result(lastOffset, (int) bytes);
  }
}
