package io.brook.storage.txn;

import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/** Finding the aborted transactions a read_committed consumer must skip in a fetched range. */
public final class AbortedTxnSearch {
  private AbortedTxnSearch() {}

  /**
   * The aborted transactions overlapping {@code [startOffset, upperBound)}, as Kafka searches: an
   * abort's entry sits in the segment of its marker, which is at or after the segment holding
   * {@code startOffset}; the walk goes forward from there until an entry's last stable offset
   * reaches {@code upperBound} (no later abort can start below it) or the segments run out.
   */
  public static List<AbortedTxn> collect(
      NavigableMap<Long, LogSegment> segments, long startOffset, long upperBound) {
    List<AbortedTxn> out = new ArrayList<>();
    if (startOffset >= upperBound) {
      return out;
    }
    Long from = segments.floorKey(startOffset);
    Map<Long, LogSegment> tail = from == null ? segments : segments.tailMap(from, true);
    try {
      for (LogSegment segment : tail.values()) {
        if (segment.txnIndex().collect(startOffset, upperBound, out)) {
          break;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading transaction indexes", e);
    }
    return out;
  }
}
