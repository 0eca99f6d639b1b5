package io.brook.storage.segment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A byte range of one segment file, ready to hand to {@code sendfile}: the network layer sends
 * {@code sizeInBytes} bytes of {@link #channel()} from {@link #position()} without reading them.
 * The range starts at a batch boundary; it may end inside a batch when the reader's byte budget ran
 * out there, which Kafka clients expect and skip.
 *
 * @param file the segment's log file
 * @param position where the range starts in the file
 * @param sizeInBytes how many bytes the range covers
 */
public record FileSlice(FileRecords file, int position, int sizeInBytes) {
  public static final FileSlice EMPTY = new FileSlice(null, 0, 0);

  public FileChannel channel() {
    return file.channel();
  }

  /**
   * Copies the range into the heap. For tests and tools only: the fetch path sends the file range
   * with zero copy instead.
   */
  public MemoryRecords copyToMemory() {
    if (sizeInBytes == 0) {
      return MemoryRecords.EMPTY;
    }
    ByteBuffer buffer = ByteBuffer.allocate(sizeInBytes);
    try {
      file.readInto(buffer, position);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    buffer.rewind();
    return MemoryRecords.readableRecords(buffer);
  }
}
