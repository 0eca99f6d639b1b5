package io.brook.controller.quorum;

import io.brook.metadata.record.MetadataRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The most recently applied metadata records with their offsets, so a broker that follows the log
 * can fetch just what it misses (a delta) instead of the whole image. Bounded by {@code
 * maxRecords}: a broker further behind gets a snapshot of the image instead.
 *
 * <p>Not thread-safe: guarded by the state machine's lock.
 */
final class RecentRecords {
  private record Batch(long firstOffset, List<MetadataRecord> records) {}

  private final int maxRecords;
  private final Deque<Batch> batches = new ArrayDeque<>();
  private int size;

  RecentRecords(int maxRecords) {
    this.maxRecords = maxRecords;
  }

  /** Remembers records applied at offsets {@code firstOffset} onwards. */
  void add(long firstOffset, List<MetadataRecord> records) {
    batches.addLast(new Batch(firstOffset, List.copyOf(records)));
    size += records.size();
    while (size > maxRecords && batches.size() > 1) {
      size -= batches.removeFirst().records().size();
    }
  }

  /** Forgets everything: the image was replaced by a snapshot. */
  void clear() {
    batches.clear();
    size = 0;
  }

  /**
   * The records after {@code offset}, up to the newest, if all of them are still here.
   *
   * @param offset the offset of the fetcher's image
   */
  Optional<List<MetadataRecord>> after(long offset) {
    List<MetadataRecord> out = new ArrayList<>();
    boolean covered = false;
    for (Batch batch : batches) {
      long last = batch.firstOffset() + batch.records().size() - 1;
      if (last <= offset) {
        covered = true;
        continue;
      }
      if (!covered && batch.firstOffset() > offset + 1) {
        return Optional.empty();
      }
      covered = true;
      int skip = (int) Math.max(0, offset + 1 - batch.firstOffset());
      out.addAll(batch.records().subList(skip, batch.records().size()));
    }
    return covered ? Optional.of(out) : Optional.empty();
  }
}
