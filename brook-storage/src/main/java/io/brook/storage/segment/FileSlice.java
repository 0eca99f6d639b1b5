package io.brook.storage.segment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A byte range of one segment file, ready to hand to {@code sendfile}: the network layer sends
 * {@code sizeInBytes} bytes of the file from {@link #position()} without reading them. The range
 * starts at a batch boundary; it may end inside a batch when the reader's byte budget ran out
 * there, which Kafka clients expect and skip.
 *
 * <p>The file may be closed by the node's {@link FileHandlePool} while idle. To send or read the
 * range, {@link #pin()} it (reopening the file if needed), use {@link #channel()} or {@link
 * #records()}, and {@link #unpin()} it once done (the fetch path unpins when Netty releases the
 * file region, after the bytes were sent or the connection failed). The pool never closes a pinned
 * file, and a reopen finds the same inode: the segment's paths follow its renames.
 *
 * @param file the segment's files; null only for {@link #EMPTY}
 * @param position where the range starts in the file
 * @param sizeInBytes how many bytes the range covers
 */
public record FileSlice(SegmentFile file, int position, int sizeInBytes) {
  public static final FileSlice EMPTY = new FileSlice(null, 0, 0);

  /** Keeps the file open until {@link #unpin()}; pair every successful call with one unpin. */
  public void pin() throws IOException {
    file.pin();
  }

  public void unpin() {
    file.unpin();
  }

  /** The segment file's channel; only while pinned. */
  public FileChannel channel() {
    return file.records().channel();
  }

  /** The whole segment file; only while pinned. */
  public FileRecords records() {
    return file.records();
  }

  /**
   * Copies the range into the heap. For the coordinators, tests and tools: the fetch path sends the
   * file range with zero copy instead.
   */
  public MemoryRecords copyToMemory() {
    if (sizeInBytes == 0) {
      return MemoryRecords.EMPTY;
    }
    ByteBuffer buffer = ByteBuffer.allocate(sizeInBytes);
    try {
      file.pin();
      try {
        file.records().readInto(buffer, position);
      } finally {
        file.unpin();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    buffer.rewind();
    return MemoryRecords.readableRecords(buffer);
  }
}
