package io.brook.protocol.codec;

import io.brook.protocol.ZeroCopyRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A kafka-clients {@link Writable} over one pooled {@link ByteBuf}, for encoding a response. Record
 * fields are not copied into the buffer: each one ends the current segment of the buffer and is
 * added as its own part, a {@link PinnedFileRegion} for {@link ZeroCopyRecords} ({@code sendfile})
 * or a wrapped buffer for {@link MemoryRecords}. {@link #finish()} returns the parts in wire order.
 *
 * <p>Size the buffer with {@code MessageSizeAccumulator.sizeExcludingZeroCopy()}: kafka-clients
 * counts every records field as zero-copy bytes, which is exactly what stays out of the buffer.
 *
 * <p>Not thread-safe; one per response.
 */
final class ByteBufWritable implements Writable {
  private final ByteBuf buffer;
  private final List<Object> parts = new ArrayList<>();
  private int segmentStart;
  private long recordBytes;
  private boolean finished;

  /**
   * @param buffer an empty buffer this writable takes ownership of
   */
  ByteBufWritable(ByteBuf buffer) {
    this.buffer = buffer;
    this.segmentStart = buffer.writerIndex();
  }

  /** Bytes written so far, records included. */
  long bytesWritten() {
    return buffer.writerIndex() + recordBytes;
  }

  /**
   * The encoded response as {@code ByteBuf}s and {@code FileRegion}s in wire order. The caller owns
   * them (one reference each) and must write or release every one.
   */
  List<Object> finish() {
    finished = true;
    if (parts.isEmpty()) {
      return List.of(buffer);
    }
    endSegment();
    buffer.release();
    return Collections.unmodifiableList(parts);
  }

  /** Releases everything after a failed encode. */
  void discard() {
    if (!finished) {
      finished = true;
      buffer.release();
      parts.forEach(ReferenceCountUtil::release);
      parts.clear();
    }
  }

  @Override
  public void writeRecords(BaseRecords records) {
    int size = records.sizeInBytes();
    if (records instanceof ZeroCopyRecords zeroCopy) {
      endSegment();
      if (size > 0) {
        parts.add(pinned(zeroCopy, size));
      }
    } else if (records instanceof MemoryRecords memory) {
      endSegment();
      if (size > 0) {
        parts.add(Unpooled.wrappedBuffer(memory.buffer()));
      }
    } else {
      throw new IllegalArgumentException(
          "cannot send records of type " + records.getClass().getName());
    }
    recordBytes += size;
  }

  private static PinnedFileRegion pinned(ZeroCopyRecords records, int size) {
    try {
      return PinnedFileRegion.pin(records.file(), records.position(), size);
    } catch (IOException e) {
      // The encoder's caller closes the connection; parts added so far are released by discard().
      throw new UncheckedIOException("cannot open the file of a zero-copy record range", e);
    }
  }

  private void endSegment() {
    int end = buffer.writerIndex();
    if (end > segmentStart) {
      parts.add(buffer.retainedSlice(segmentStart, end - segmentStart));
      segmentStart = end;
    }
  }

  @Override
  public void writeByte(byte val) {
    buffer.writeByte(val);
  }

  @Override
  public void writeShort(short val) {
    buffer.writeShort(val);
  }

  @Override
  public void writeInt(int val) {
    buffer.writeInt(val);
  }

  @Override
  public void writeLong(long val) {
    buffer.writeLong(val);
  }

  @Override
  public void writeDouble(double val) {
    buffer.writeDouble(val);
  }

  @Override
  public void writeByteArray(byte[] arr) {
    buffer.writeBytes(arr);
  }

  @Override
  public void writeByteBuffer(ByteBuffer buf) {
    buffer.writeBytes(buf.duplicate());
  }

  /** Unsigned LEB128: 7 bits per byte, low group first, high bit set on all but the last. */
  @Override
  public void writeUnsignedVarint(int i) {
    int value = i;
    while ((value & ~0x7F) != 0) {
      buffer.writeByte((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buffer.writeByte(value);
  }

  /** Zig-zag encoded (0, -1, 1, -2, ... map to 0, 1, 2, 3, ...), then unsigned LEB128. */
  @Override
  public void writeVarint(int i) {
    writeUnsignedVarint((i << 1) ^ (i >> 31));
  }

  @Override
  public void writeVarlong(long i) {
    long value = (i << 1) ^ (i >> 63);
    while ((value & ~0x7FL) != 0) {
      buffer.writeByte((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    buffer.writeByte((int) value);
  }
}
