package io.brook.storage.log;

import io.brook.storage.producer.ProducerStateManager;
import java.util.function.LongFunction;

/**
 * A log's last stable offset (KIP-98): the high watermark, or the first offset of the oldest
 * unresolved transaction below it, but never below the log start (as Kafka, for a transaction whose
 * start DeleteRecords removed).
 *
 * <p>Its position on disk is cached: every waiting read_committed fetch asks for it on every append
 * while a transaction is open, and resolving it reads the offset index and batch headers. A batch's
 * position only changes when the log is truncated ({@link #invalidate}); the cleaner never rewrites
 * the segment holding the last stable offset.
 */
final class LastStableOffset {
  private final ProducerStateManager producers;
  private volatile LogOffsetMetadata cached = LogOffsetMetadata.unresolved(-1);

  LastStableOffset(ProducerStateManager producers) {
    this.producers = producers;
  }

  long value(long highWatermark, long logStartOffset) {
    long first = producers.firstUnstableOffset().orElse(highWatermark);
    return Math.min(highWatermark, Math.max(first, logStartOffset));
  }

  /** The last stable offset resolved on disk; {@code resolve} finds a position when not cached. */
  LogOffsetMetadata metadata(
      LogOffsetMetadata highWatermark,
      long logStartOffset,
      LongFunction<LogOffsetMetadata> resolve) {
    long lso = value(highWatermark.messageOffset(), logStartOffset);
    if (lso == highWatermark.messageOffset()) {
      return highWatermark;
    }
    LogOffsetMetadata known = cached;
    if (known.messageOffset() != lso || !known.isResolved()) {
      known = resolve.apply(lso);
      cached = known;
    }
    return known;
  }

  /** The log was truncated: positions may have changed. */
  void invalidate() {
    cached = LogOffsetMetadata.unresolved(-1);
  }
}
