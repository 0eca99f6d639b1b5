package io.brook.storage.remote;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicIdPartition;

/**
 * Walks the batch headers of a remote segment's log from a position, fetching it in byte ranges
 * (never the whole segment): a chunk is fetched only when the next header is not in the one held.
 * Header fields are read at their record-format v2 positions.
 *
 * <p>A reader that collects batches marks where its bytes start ({@link #keepFrom}) and how far it
 * may need to read ({@link #readAheadUpTo}): bytes held from the mark on are then kept when more
 * are needed, only the missing range is fetched, and never past that end, so none of the bytes it
 * collects is fetched twice or without need.
 */
final class RemoteBatchCursor {
  /** Bytes of a v2 batch header: enough for every field read here. */
  static final int HEADER_SIZE = 61;

  private static final int LENGTH_OFFSET = 8;
  private static final int LAST_OFFSET_DELTA_OFFSET = 23;
  private static final int MAX_TIMESTAMP_OFFSET = 35;

  /** Where the cursor's bytes come from: the store, or the chunk cache in front of it. */
  @FunctionalInterface
  interface Source {
    /** Bytes {@code [start, start + length)} of the segment's log file, fewer only at its end. */
    byte[] fetch(RemoteSegment segment, long start, int length) throws IOException;
  }

  private final Source source;
  private final RemoteSegment segment;
  private final int chunkBytes;

  private ByteBuffer chunk = ByteBuffer.allocate(0);
  private long chunkStart;
  private long position;
  private int batchSize;
  private long keepFrom = -1;
  private long readAheadEnd = -1;

  /** A cursor fetching straight from the store. */
  RemoteBatchCursor(
      RemoteSegmentStore store,
      TopicIdPartition tp,
      RemoteSegment segment,
      long position,
      int chunkBytes) {
    this(
        (s, start, length) -> store.fetchLogRange(tp, s, start, length),
        segment,
        position,
        chunkBytes);
  }

  RemoteBatchCursor(Source source, RemoteSegment segment, long position, int chunkBytes) {
    this.source = source;
    this.segment = segment;
    this.position = position;
    this.chunkStart = position;
    this.chunkBytes = Math.max(HEADER_SIZE, chunkBytes);
  }

  /**
   * Moves to the next batch (the first one at the first call).
   *
   * @return false at the end of the segment
   */
  boolean next() throws IOException {
    position += batchSize;
    batchSize = 0;
    if (position + HEADER_SIZE > segment.sizeInBytes()) {
      return false;
    }
    ensure(position, HEADER_SIZE);
    int length = chunk.getInt(at(position) + LENGTH_OFFSET);
    long size = 12L + length;
    if (length < HEADER_SIZE - 12 || position + size > segment.sizeInBytes()) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE,
          "batch of " + size + " bytes at " + position + " in remote segment " + segment.id());
    }
    batchSize = (int) size;
    return true;
  }

  long position() {
    return position;
  }

  /** Bytes from {@code segmentPosition} on (at or after the current batch) are kept once held. */
  void keepFrom(long segmentPosition) {
    keepFrom = segmentPosition;
  }

  /** Fetches stop at {@code segmentPosition}, unless a header or batch asked for goes further. */
  void readAheadUpTo(long segmentPosition) {
    readAheadEnd = segmentPosition;
  }

  int batchSize() {
    return batchSize;
  }

  long baseOffset() {
    return chunk.getLong(at(position));
  }

  long lastOffset() {
    return baseOffset() + chunk.getInt(at(position) + LAST_OFFSET_DELTA_OFFSET);
  }

  long maxTimestamp() {
    return chunk.getLong(at(position) + MAX_TIMESTAMP_OFFSET);
  }

  /** Bytes {@code [start, end)} of the segment, from the chunk held if it has them. */
  ByteBuffer bytes(long start, long end) throws IOException {
    ensure(start, (int) (end - start));
    ByteBuffer out = chunk.duplicate();
    out.position(at(start)).limit(at(start) + (int) (end - start));
    return out.slice();
  }

  /**
   * Starts with {@code bytes}, fetched earlier from {@code segmentPosition} on (before the first
   * {@link #next}).
   */
  void hold(long segmentPosition, ByteBuffer bytes) {
    chunk = bytes.slice();
    chunkStart = segmentPosition;
  }

  /** The bytes held from {@code segmentPosition} on (none if it is outside what is held). */
  ByteBuffer heldFrom(long segmentPosition) {
    if (segmentPosition < chunkStart || segmentPosition > chunkStart + chunk.limit()) {
      return ByteBuffer.allocate(0);
    }
    ByteBuffer out = chunk.duplicate();
    out.position(at(segmentPosition));
    return out.slice();
  }

  private int at(long segmentPosition) {
    return (int) (segmentPosition - chunkStart);
  }

  private void ensure(long start, int length) throws IOException {
    long chunkEnd = chunkStart + chunk.limit();
    if (start >= chunkStart && start + length <= chunkEnd) {
      return;
    }
    long end = start + Math.max(length, chunkBytes);
    if (readAheadEnd >= 0) {
      end = Math.min(end, Math.max(readAheadEnd, start + length));
    }
    end = Math.min(end, segment.sizeInBytes());
    if (keepFrom >= chunkStart && keepFrom <= start) {
      // Kept bytes stay; only what follows them is fetched (with the end of a batch that ran
      // past the chunk, when the next header is wanted).
      byte[] tail = fetch(chunkEnd, end, start + length);
      ByteBuffer joined = ByteBuffer.allocate((int) (chunkEnd - keepFrom) + tail.length);
      joined.put(chunk.duplicate().position(at(keepFrom))).put(tail).flip();
      chunk = joined;
      chunkStart = keepFrom;
      return;
    }
    // Not kept: a header cut by the chunk's end is fetched again (fewer bytes than a copy).
    chunk = ByteBuffer.wrap(fetch(start, end, start + length));
    chunkStart = start;
  }

  /** Bytes {@code [from, to)} of the segment, which must reach at least {@code needed}. */
  private byte[] fetch(long from, long to, long needed) throws IOException {
    byte[] bytes = source.fetch(segment, from, (int) (to - from));
    if (from + bytes.length < needed) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE,
          "remote segment " + segment.id() + " is shorter than its metadata says");
    }
    return bytes;
  }
}
