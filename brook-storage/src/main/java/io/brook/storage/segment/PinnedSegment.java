package io.brook.storage.segment;

import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.TimeIndex;
import java.io.IOException;
import org.apache.kafka.common.record.internal.FileRecords;

/**
 * A pin on a segment's files ({@link LogSegment#pin()}): they stay open until {@link #close()},
 * which must be called exactly once; what the accessors return is valid only until then.
 *
 * @param file the pinned files
 */
public record PinnedSegment(SegmentFile file) implements AutoCloseable {
  public FileRecords records() {
    return file.records();
  }

  public OffsetIndex offsetIndex() throws IOException {
    return file.offsetIndex();
  }

  public TimeIndex timeIndex() throws IOException {
    return file.timeIndex();
  }

  @Override
  public void close() {
    file.unpin();
  }
}
