package io.brook.coordinator.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The fuzz tests' input: a sequence of record keys and values, each as a 2-byte length and its
 * bytes (a value length of 0xFFFF is a null value, a tombstone). A truncated tail is dropped.
 */
final class FuzzRecords {
  private static final int NULL = 0xFFFF;

  private FuzzRecords() {}

  record Entry(ByteBuffer key, ByteBuffer value) {}

  static List<Entry> decode(byte[] input) {
    ByteBuffer in = ByteBuffer.wrap(input);
    List<Entry> entries = new ArrayList<>();
    while (true) {
      ByteBuffer key = next(in);
      if (key == null || in.remaining() < 2) {
        return entries;
      }
      int valueLength = Short.toUnsignedInt(in.getShort(in.position()));
      ByteBuffer value = null;
      if (valueLength == NULL) {
        in.position(in.position() + 2);
      } else {
        value = next(in);
        if (value == null) {
          return entries;
        }
      }
      entries.add(new Entry(key, value));
    }
  }

  private static ByteBuffer next(ByteBuffer in) {
    if (in.remaining() < 2) {
      return null;
    }
    int length = Short.toUnsignedInt(in.getShort());
    if (length == NULL || length > in.remaining()) {
      return null;
    }
    ByteBuffer bytes = in.slice(in.position(), length);
    in.position(in.position() + length);
    return bytes;
  }

  /** Encodes records as {@link #decode} reads them; for seed corpora and regression inputs. */
  static byte[] encode(List<Entry> entries) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Entry entry : entries) {
      write(out, entry.key());
      if (entry.value() == null) {
        out.write(0xFF);
        out.write(0xFF);
      } else {
        write(out, entry.value());
      }
    }
    return out.toByteArray();
  }

  private static void write(ByteArrayOutputStream out, ByteBuffer bytes) {
    int length = bytes.remaining();
    out.write(length >>> 8);
    out.write(length & 0xFF);
    byte[] copy = new byte[length];
    bytes.duplicate().get(copy);
    out.write(copy, 0, length);
  }
}
