package io.brook.storage.log;

import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentNavigableMap;

/** Cutting a log's tail back to an offset, in whole batches. */
final class LogTruncation {
  private LogTruncation() {}

  /**
   * Deletes the segments that start after {@code targetOffset} and truncates the one holding it;
   * that segment becomes the active one again.
   *
   * @return the segments taken out of the map, for the caller to delete
   */
  static List<LogSegment> truncateTo(
      ConcurrentNavigableMap<Long, LogSegment> segments, long targetOffset) throws IOException {
    List<Long> doomed = new ArrayList<>(segments.tailMap(targetOffset, false).keySet());
    if (doomed.size() == segments.size()) {
      // Keep the first segment as the home of the new tail.
      doomed.remove(0);
    }
    List<LogSegment> removed = new ArrayList<>(doomed.size());
    for (Long base : doomed) {
      removed.add(segments.remove(base));
    }
    LogSegment last = segments.lastEntry().getValue();
    last.truncateTo(targetOffset);
    if (!doomed.isEmpty()) {
      last.makeActive();
    }
    return removed;
  }
}
