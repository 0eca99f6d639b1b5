package io.brook.cli.verify;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The records {@code brook verify produce} writes: the key is the record's id ({@code
 * p<producer>-<seq>}, {@link AckedLog#id}), the value {@code <id>|<run>|<crc>} where {@code run}
 * names the verification run and {@code crc} is the CRC-32C of {@code <id>|<run>} in hex, so a
 * reader can tell a record's value from any other data at its offset.
 */
public final class VerifyRecord {
  private VerifyRecord() {}

  public static String value(String id, String run) {
    String body = id + "|" + run;
    return body + "|" + Long.toHexString(crc(body));
  }

  /** Why {@code value} is not the value of record {@code id} of {@code run}, or null when it is. */
  public static String mismatch(String id, String run, String value) {
    if (value == null) {
      return "no value";
    }
    int last = value.lastIndexOf('|');
    if (last < 0) {
      return "no checksum";
    }
    String body = value.substring(0, last);
    if (!Long.toHexString(crc(body)).equals(value.substring(last + 1))) {
      return "checksum mismatch";
    }
    if (!body.equals(id + "|" + run)) {
      return "value of another record (" + body + ")";
    }
    return null;
  }

  private static long crc(String body) {
    CRC32C crc = new CRC32C();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }
}
