package io.brook.storage.record;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.nio.ByteBuffer;

/**
 * Checks the chunk headers of a snappy-compressed batch before snappy-java reads it.
 *
 * <p>Why: snappy-java's {@code SnappyInputStream} allocates each chunk's output array at the
 * uncompressed length the chunk claims (up to 2 GiB) before decompressing it, so a 30-byte chunk
 * could make it allocate its claimed size. The claims are plain bytes of the batch, so they are
 * checked here first: each must fit in what the batch may still inflate to, and no snappy block can
 * expand more than {@link #MAX_EXPANSION} times (its longest copy, 64 bytes, takes a 3-byte tag).
 *
 * <p>Formats, both accepted by snappy-java and sent by clients: the xerial stream (an 8-byte magic,
 * two 4-byte version fields, then chunks of a 4-byte big-endian length and a raw snappy block;
 * another header may start a concatenated stream) written by the Java producer, and one raw snappy
 * block without any header. A raw block starts with its uncompressed length as a varint.
 */
final class SnappyFraming {
  private SnappyFraming() {}

  /** Upper bound of a snappy block's expansion: a 3-byte copy tag emits at most 64 bytes. */
  static final int MAX_EXPANSION = 22;

  private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  private static final int HEADER_BYTES = MAGIC.length + 8;

  /** Throws unless every chunk's claimed size is plausible and within {@code maxInflated}. */
  static void check(ByteBuffer compressed, long maxInflated) {
    int pos = compressed.position();
    int end = compressed.limit();
    if (!startsWithMagic(compressed, pos, end)) {
      checkBlock(compressed, pos, end - pos, maxInflated, maxInflated);
      return;
    }
    long total = 0;
    while (pos < end) {
      if (startsWithMagic(compressed, pos, end)) {
        if (end - pos < HEADER_BYTES) {
          throw corrupt("a truncated snappy stream header");
        }
        pos += HEADER_BYTES;
        continue;
      }
      if (end - pos < Integer.BYTES) {
        throw corrupt("a truncated snappy chunk length");
      }
      int chunk = compressed.getInt(pos);
      pos += Integer.BYTES;
      if (chunk <= 0 || chunk > end - pos) {
        throw corrupt("a snappy chunk of " + chunk + " bytes with " + (end - pos) + " left");
      }
      total += checkBlock(compressed, pos, chunk, maxInflated - total, maxInflated);
      pos += chunk;
    }
  }

  /** Returns the block's claimed uncompressed length after checking it. */
  private static long checkBlock(
      ByteBuffer buffer, int pos, int length, long budget, long maxInflated) {
    long claimed = 0;
    int shift = 0;
    int i = 0;
    while (true) {
      if (i >= length || i >= 5) {
        throw corrupt("a snappy block without a valid length");
      }
      int b = buffer.get(pos + i++) & 0xff;
      claimed |= (long) (b & 0x7f) << shift;
      if (b < 0x80) {
        break;
      }
      shift += 7;
    }
    if (claimed > (long) length * MAX_EXPANSION) {
      throw corrupt(
          "a snappy block of " + length + " bytes that claims " + claimed + " uncompressed bytes");
    }
    if (claimed > budget) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "the batch's records inflate past "
              + maxInflated
              + " bytes, the broker's limit (max.message.bytes x"
              + " brook.max.inflated.bytes.factor)");
    }
    return claimed;
  }

  private static boolean startsWithMagic(ByteBuffer buffer, int pos, int end) {
    if (end - pos < MAGIC.length) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (buffer.get(pos + i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private static StorageException corrupt(String what) {
    return new StorageException(StorageError.CORRUPT_MESSAGE, "the batch holds " + what);
  }
}
