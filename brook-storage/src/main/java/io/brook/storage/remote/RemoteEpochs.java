package io.brook.storage.remote;

import io.brook.storage.epoch.EpochEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The leader-epoch checkpoint stored beside each remote segment (Kafka's text layout: version 0,
 * the entry count, then one {@code epoch startOffset} a line), written by the copier and read by a
 * follower that starts at the leader's local log start.
 */
final class RemoteEpochs {
  /** More entries than any real partition has; bounds what a corrupt file can make us build. */
  private static final int MAX_ENTRIES = 1_000_000;

  private RemoteEpochs() {}

  static byte[] encode(List<EpochEntry> entries) {
    StringBuilder text = new StringBuilder("0\n").append(entries.size()).append('\n');
    for (EpochEntry e : entries) {
      text.append(e.epoch()).append(' ').append(e.startOffset()).append('\n');
    }
    return text.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * @throws IllegalArgumentException if the bytes are not a version-0 checkpoint
   */
  static List<EpochEntry> parse(byte[] bytes) {
    if (bytes.length == 0) {
      return List.of();
    }
    String[] lines = new String(bytes, StandardCharsets.US_ASCII).split("\n");
    if (lines.length < 2 || !"0".equals(lines[0].trim())) {
      throw new IllegalArgumentException("not a version 0 leader-epoch checkpoint");
    }
    int count = Integer.parseInt(lines[1].trim());
    if (count < 0 || count > MAX_ENTRIES || count != lines.length - 2) {
      throw new IllegalArgumentException("leader-epoch checkpoint with a bad entry count");
    }
    List<EpochEntry> out = new ArrayList<>(count);
    for (int i = 2; i < lines.length; i++) {
      String[] f = lines[i].trim().split(" ");
      if (f.length != 2) {
        throw new IllegalArgumentException("bad leader-epoch checkpoint line " + (i + 1));
      }
      out.add(new EpochEntry(Integer.parseInt(f[0]), Long.parseLong(f[1])));
    }
    return out;
  }
}
