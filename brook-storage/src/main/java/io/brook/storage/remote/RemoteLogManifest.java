package io.brook.storage.remote;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * A partition's remote segment metadata: its segments in offset order with their states, the remote
 * log start offset (moved by retention and DeleteRecords), and for a compacted topic where the next
 * remote compaction starts indexing keys (everything remote below it is compacted against all data
 * below it; see {@link RemoteCompactor}). Immutable; every change writes a whole new manifest,
 * replaced atomically in the store (see docs/adr/0007-remote-log-metadata.md).
 *
 * <p>Text, one entry a line, ending with a CRC-32C of everything before it, so a torn or corrupt
 * manifest is refused rather than half-read:
 *
 * <pre>
 * brook-remote-log-manifest 1
 * logStart 0
 * leaderEpoch 3
 * compactedTo 8192          (tiered compacted topics only)
 * segment 3c1f... COPY_SEGMENT_FINISHED 0 4095 1733000000000 1048576
 * crc 12345678
 * </pre>
 *
 * <p>{@code leaderEpoch} is the leader epoch of the broker that wrote the manifest (-1 if unknown):
 * a leader never writes over a manifest from a later epoch (see {@link TieredPartition}).
 */
public record RemoteLogManifest(
    long logStartOffset, List<RemoteSegment> segments, int leaderEpoch, long compactedEnd) {
  private static final String HEADER = "brook-remote-log-manifest 1";
  private static final String LEADER_EPOCH = "leaderEpoch ";
  private static final String COMPACTED_TO = "compactedTo ";

  /** The largest manifest read back: far beyond any real partition's, it bounds a corrupt one. */
  public static final int MAX_BYTES = 64 * 1024 * 1024;

  public static final RemoteLogManifest EMPTY = new RemoteLogManifest(0, List.of());

  public RemoteLogManifest(long logStartOffset, List<RemoteSegment> segments) {
    this(logStartOffset, segments, -1, 0);
  }

  public RemoteLogManifest(long logStartOffset, List<RemoteSegment> segments, int leaderEpoch) {
    this(logStartOffset, segments, leaderEpoch, 0);
  }

  public RemoteLogManifest {
    segments = List.copyOf(segments);
    // A leader that took over may roll at other offsets than the one before it, so its first copy
    // can start below the copied end (the batches there are the same, replicated byte for byte);
    // each segment must still reach past the one before it. Reads use the first that holds an
    // offset. Only copied segments are ordered: a remote compaction uploads rewritten segments
    // over the offsets of copied ones (COPY_SEGMENT_STARTED), and the ones they replaced stay
    // listed as DELETE_SEGMENT_STARTED until their objects are gone.
    RemoteSegment previous = null;
    for (RemoteSegment next : segments) {
      if (next.state() != RemoteSegmentState.COPY_SEGMENT_FINISHED) {
        continue;
      }
      if (previous != null
          && (next.baseOffset() < previous.baseOffset()
              || next.endOffset() <= previous.endOffset())) {
        throw new IllegalArgumentException("remote segments are out of order");
      }
      previous = next;
    }
  }

  /** The segments a reader may use: copied, not being deleted, not wholly below the log start. */
  public List<RemoteSegment> readable() {
    List<RemoteSegment> out = new ArrayList<>(segments.size());
    for (RemoteSegment s : segments) {
      if (s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED
          && s.endOffset() >= logStartOffset) {
        out.add(s);
      }
    }
    return out;
  }

  /** The readable segment holding {@code offset}, if any. */
  public Optional<RemoteSegment> segmentFor(long offset) {
    if (offset < logStartOffset) {
      return Optional.empty();
    }
    for (RemoteSegment s : readable()) {
      if (s.baseOffset() <= offset && offset <= s.endOffset()) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** The offset after the last copied segment; -1 when nothing is copied. */
  public long copiedEnd() {
    long end = -1;
    for (RemoteSegment s : segments) {
      if (s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED) {
        end = Math.max(end, s.nextOffset());
      }
    }
    return end;
  }

  /** The first readable remote offset, or empty when no segment is readable. */
  public Optional<Long> firstReadableOffset() {
    List<RemoteSegment> readable = readable();
    return readable.isEmpty()
        ? Optional.empty()
        : Optional.of(Math.max(logStartOffset, readable.get(0).baseOffset()));
  }

  public RemoteLogManifest with(RemoteSegment segment) {
    List<RemoteSegment> out = new ArrayList<>(segments.size() + 1);
    boolean replaced = false;
    for (RemoteSegment s : segments) {
      if (s.id().equals(segment.id())) {
        out.add(segment);
        replaced = true;
      } else {
        out.add(s);
      }
    }
    if (!replaced) {
      out.add(segment);
    }
    return new RemoteLogManifest(logStartOffset, out, leaderEpoch, compactedEnd);
  }

  public RemoteLogManifest without(String id) {
    List<RemoteSegment> out = new ArrayList<>(segments.size());
    for (RemoteSegment s : segments) {
      if (!s.id().equals(id)) {
        out.add(s);
      }
    }
    return new RemoteLogManifest(logStartOffset, out, leaderEpoch, compactedEnd);
  }

  /**
   * The manifest after a remote compaction, in one write: the segments {@code replaced} names
   * become DELETE_SEGMENT_STARTED, and {@code rewritten} (already listed as COPY_SEGMENT_STARTED)
   * become COPY_SEGMENT_FINISHED in their place, so readers go from the old segments to the new
   * ones at once.
   */
  public RemoteLogManifest swap(List<String> replaced, List<RemoteSegment> rewritten) {
    List<String> rewrittenIds = new ArrayList<>(rewritten.size());
    for (RemoteSegment s : rewritten) {
      rewrittenIds.add(s.id());
    }
    List<RemoteSegment> out = new ArrayList<>(segments.size());
    boolean inserted = false;
    for (RemoteSegment s : segments) {
      if (rewrittenIds.contains(s.id())) {
        continue;
      }
      if (replaced.contains(s.id())) {
        out.add(s.withState(RemoteSegmentState.DELETE_SEGMENT_STARTED));
        if (!inserted) {
          for (RemoteSegment r : rewritten) {
            out.add(r.withState(RemoteSegmentState.COPY_SEGMENT_FINISHED));
          }
          inserted = true;
        }
      } else {
        out.add(s);
      }
    }
    if (!inserted) {
      throw new IllegalArgumentException("none of the replaced segments is in the manifest");
    }
    return new RemoteLogManifest(logStartOffset, out, leaderEpoch, compactedEnd);
  }

  public RemoteLogManifest withLogStartOffset(long newLogStart) {
    return new RemoteLogManifest(
        Math.max(logStartOffset, newLogStart), segments, leaderEpoch, compactedEnd);
  }

  /** With {@code end} as where the next remote compaction starts indexing keys. */
  public RemoteLogManifest withCompactedEnd(long end) {
    return new RemoteLogManifest(logStartOffset, segments, leaderEpoch, end);
  }

  /** This manifest as written by the leader in {@code epoch}. */
  public RemoteLogManifest withLeaderEpoch(int epoch) {
    return new RemoteLogManifest(logStartOffset, segments, epoch, compactedEnd);
  }

  public byte[] encode() {
    StringBuilder text = new StringBuilder(64 + segments.size() * 96);
    text.append(HEADER).append('\n').append("logStart ").append(logStartOffset).append('\n');
    text.append(LEADER_EPOCH).append(leaderEpoch).append('\n');
    if (compactedEnd > 0) {
      // Only tiered compacted topics have it, so every other manifest reads as before.
      text.append(COMPACTED_TO).append(compactedEnd).append('\n');
    }
    for (RemoteSegment s : segments) {
      text.append("segment ")
          .append(s.id())
          .append(' ')
          .append(s.state().name())
          .append(' ')
          .append(s.baseOffset())
          .append(' ')
          .append(s.endOffset())
          .append(' ')
          .append(s.maxTimestamp())
          .append(' ')
          .append(s.sizeInBytes())
          .append('\n');
    }
    byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
    String crc = "crc " + crc(body, body.length) + "\n";
    byte[] out = new byte[body.length + crc.length()];
    System.arraycopy(body, 0, out, 0, body.length);
    System.arraycopy(crc.getBytes(StandardCharsets.US_ASCII), 0, out, body.length, crc.length());
    return out;
  }

  /**
   * @throws IllegalArgumentException if the bytes are not a whole, intact manifest
   */
  public static RemoteLogManifest decode(byte[] bytes) {
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException("remote log manifest of " + bytes.length + " bytes");
    }
    int end = bytes.length;
    if (end == 0 || bytes[end - 1] != '\n') {
      throw new IllegalArgumentException("truncated remote log manifest");
    }
    int crcLine = end - 1;
    while (crcLine > 0 && bytes[crcLine - 1] != '\n') {
      crcLine--;
    }
    String last = new String(bytes, crcLine, end - 1 - crcLine, StandardCharsets.US_ASCII);
    if (!last.startsWith("crc ") || !last.substring(4).equals(Long.toString(crc(bytes, crcLine)))) {
      throw new IllegalArgumentException("remote log manifest fails its checksum");
    }
    String[] lines = new String(bytes, 0, crcLine, StandardCharsets.UTF_8).split("\n", -1);
    if (lines.length < 2 || !HEADER.equals(lines[0]) || !lines[1].startsWith("logStart ")) {
      throw new IllegalArgumentException("not a remote log manifest");
    }
    long logStart = Long.parseLong(lines[1].substring("logStart ".length()));
    List<RemoteSegment> segments = new ArrayList<>();
    int leaderEpoch = -1;
    long compactedEnd = 0;
    for (int i = 2; i < lines.length; i++) {
      if (lines[i].isEmpty()) {
        continue;
      }
      if (lines[i].startsWith(LEADER_EPOCH)) {
        leaderEpoch = Integer.parseInt(lines[i].substring(LEADER_EPOCH.length()));
        continue;
      }
      if (lines[i].startsWith(COMPACTED_TO)) {
        compactedEnd = Long.parseLong(lines[i].substring(COMPACTED_TO.length()));
        continue;
      }
      String[] f = lines[i].split(" ", -1);
      if (f.length != 7 || !"segment".equals(f[0])) {
        throw new IllegalArgumentException("bad remote log manifest line " + (i + 1));
      }
      segments.add(
          new RemoteSegment(
              f[1],
              Long.parseLong(f[3]),
              Long.parseLong(f[4]),
              Long.parseLong(f[5]),
              Integer.parseInt(f[6]),
              RemoteSegmentState.valueOf(f[2])));
    }
    return new RemoteLogManifest(logStart, segments, leaderEpoch, compactedEnd);
  }

  private static long crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return crc.getValue();
  }
}
