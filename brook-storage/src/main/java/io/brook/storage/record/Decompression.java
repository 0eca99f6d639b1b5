package io.brook.storage.record;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdIOException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Opens the decompression stream of a batch's records. Every stream here keeps bounded buffers of
 * its own, whatever the batch claims; the bytes it produces are counted and capped by {@link
 * BatchRecordReader}.
 *
 * <ul>
 *   <li>gzip: kafka-clients' stream (an {@code Inflater} and fixed 8 + 16 KiB buffers).
 *   <li>lz4: kafka-clients' stream; its one block buffer is at most 4 MiB (the largest block size
 *       the frame format has), taken from a {@link BufferSupplier} that keeps it for the next
 *       batch.
 *   <li>snappy: kafka-clients' stream, after {@link SnappyFraming} has checked the chunk sizes that
 *       snappy-java would otherwise allocate unchecked.
 *   <li>zstd: zstd-jni directly, so that the window a frame asks for (native memory, up to 128 MiB
 *       by zstd's default) is capped at the batch's inflation limit, never below 16 MiB so that
 *       every compression level up to 19 still decodes. Its native context (window and buffers) is
 *       kept from batch to batch and only its session reset, as creating one per batch cost more
 *       than decompressing a small batch.
 * </ul>
 *
 * <p>Not thread-safe: one per {@link BatchRecordReader}.
 */
final class Decompression implements AutoCloseable {

  /** 2^23 = 8 MiB: the largest window of zstd's regular levels (17 to 19). */
  static final int ZSTD_WINDOW_LOG_MAX = 23;

  private final BufferSupplier buffers = BufferSupplier.create();
  private final BufferInput zstdInput = new BufferInput();
  private ZstdInputStreamNoFinalizer zstd;
  private InputStream current;

  /** The stream of {@code compressed}; ends the previous batch's. */
  InputStream open(CompressionType type, ByteBuffer compressed, RecordLimits limits)
      throws IOException {
    end();
    current =
        switch (type) {
          case ZSTD -> zstd(compressed);
          case SNAPPY -> {
            SnappyFraming.check(compressed, limits.maxBatchInflatedBytes());
            yield kafkaStream(type, compressed);
          }
          case GZIP, LZ4 -> kafkaStream(type, compressed);
          case NONE ->
              throw new StorageException(StorageError.CORRUPT_MESSAGE, "not a compressed batch");
        };
    return current;
  }

  /** Ends the current batch: its buffers go back to the pools, a zstd context stays for reuse. */
  void end() {
    InputStream stream = current;
    current = null;
    if (stream != null && stream != zstd) {
      closeQuietly(stream);
    }
  }

  /** Ends the current batch and frees the zstd context (native memory). */
  @Override
  public void close() {
    end();
    if (zstd != null) {
      closeQuietly(zstd);
      zstd = null;
    }
  }

  private InputStream kafkaStream(CompressionType type, ByteBuffer compressed) {
    return Compression.of(type)
        .build()
        .wrapForInput(compressed, RecordBatch.MAGIC_VALUE_V2, buffers);
  }

  /**
   * Whether {@code failure} is a zstd frame asking for a window over {@link #ZSTD_WINDOW_LOG_MAX}.
   */
  static boolean isWindowTooLarge(Throwable failure) {
    return failure instanceof ZstdIOException zstdFailure
        && zstdFailure.getErrorCode() == Zstd.errFrameParameterWindowTooLarge();
  }

  private InputStream zstd(ByteBuffer compressed) throws IOException {
    zstdInput.reset(compressed);
    try {
      if (zstd == null) {
        zstd = new ZstdInputStreamNoFinalizer(zstdInput, RecyclingBufferPool.INSTANCE);
        zstd.setLongMax(ZSTD_WINDOW_LOG_MAX);
      } else {
        zstd.resetSession(zstdInput);
      }
      return zstd;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private static void closeQuietly(InputStream stream) {
    try {
      stream.close();
    } catch (IOException | RuntimeException e) {
      // Nothing was written through it; a failing close loses nothing.
    }
  }

  /** An {@link InputStream} over a buffer's remaining bytes, without copying them. */
  private static final class BufferInput extends InputStream {
    private ByteBuffer buffer = ByteBuffer.allocate(0);

    void reset(ByteBuffer next) {
      buffer = next;
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] into, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(length, buffer.remaining());
      buffer.get(into, offset, n);
      return n;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }
  }
}
