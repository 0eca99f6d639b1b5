package io.brook.coordinator.share;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The durable state of one share-partition: the start offset below which every record is done, the
 * state batches of the in-flight records past it, and the epochs that fence stale writers (the
 * state epoch moves when the state is initialized again, the leader epoch when the partition's
 * leadership moves).
 *
 * @param snapshotEpoch counts the snapshots written for this share-partition
 * @param batches sorted by offset, not overlapping, none below {@code startOffset}
 */
public record ShareState(
    int snapshotEpoch,
    int stateEpoch,
    int leaderEpoch,
    long startOffset,
    long createTimestamp,
    long writeTimestamp,
    List<StateBatch> batches) {
  public ShareState {
    batches = List.copyOf(batches);
  }

  /** Records at or past the start offset that are done (acknowledged or archived). */
  public int deliveryCompleteCount() {
    long count = 0;
    for (StateBatch b : batches) {
      if (b.done()) {
        count += b.count();
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, count);
  }

  /** The next snapshot of this state with the epochs and timestamps given. */
  public ShareState next(int newStateEpoch, int newLeaderEpoch, long nowMs) {
    return new ShareState(
        snapshotEpoch + 1,
        newStateEpoch,
        newLeaderEpoch,
        startOffset,
        createTimestamp,
        nowMs,
        batches);
  }

  /**
   * This state with a leader's update applied: the start offset moves to {@code newStartOffset} (or
   * stays, when -1), the update's batches replace whatever the existing batches said about their
   * offsets, and what falls below the start offset is dropped.
   */
  public ShareState merge(
      int newLeaderEpoch, long newStartOffset, List<StateBatch> update, long nowMs) {
    long start = newStartOffset < 0 ? startOffset : newStartOffset;
    return new ShareState(
        snapshotEpoch + 1,
        stateEpoch,
        Math.max(leaderEpoch, newLeaderEpoch),
        start,
        createTimestamp,
        nowMs,
        combine(batches, update, start));
  }

  /**
   * {@code older} overwritten by {@code newer} where they overlap, trimmed to start at {@code
   * start}, sorted, and adjacent batches of the same state and count joined.
   */
  static List<StateBatch> combine(List<StateBatch> older, List<StateBatch> newer, long start) {
    List<StateBatch> sortedNewer = new ArrayList<>(newer);
    sortedNewer.sort(Comparator.comparingLong(StateBatch::firstOffset));
    List<StateBatch> out = new ArrayList<>();
    for (StateBatch old : older) {
      subtract(old, sortedNewer, out);
    }
    out.addAll(sortedNewer);
    out.sort(Comparator.comparingLong(StateBatch::firstOffset));
    List<StateBatch> joined = new ArrayList<>(out.size());
    for (StateBatch b : out) {
      if (b.lastOffset() < start) {
        continue;
      }
      if (b.firstOffset() < start) {
        b = b.withRange(start, b.lastOffset());
      }
      StateBatch last = joined.isEmpty() ? null : joined.get(joined.size() - 1);
      if (last != null
          && last.lastOffset() + 1 == b.firstOffset()
          && last.deliveryState() == b.deliveryState()
          && last.deliveryCount() == b.deliveryCount()) {
        joined.set(joined.size() - 1, last.withRange(last.firstOffset(), b.lastOffset()));
      } else {
        joined.add(b);
      }
    }
    return joined;
  }

  /** Adds to {@code out} the parts of {@code old} no batch of {@code cover} (sorted) overlaps. */
  private static void subtract(StateBatch old, List<StateBatch> cover, List<StateBatch> out) {
    long from = old.firstOffset();
    for (StateBatch c : cover) {
      if (c.lastOffset() < from) {
        continue;
      }
      if (c.firstOffset() > old.lastOffset()) {
        break;
      }
      if (c.firstOffset() > from) {
        out.add(old.withRange(from, c.firstOffset() - 1));
      }
      from = Math.max(from, c.lastOffset() + 1);
      if (from > old.lastOffset()) {
        return;
      }
    }
    if (from <= old.lastOffset()) {
      out.add(old.withRange(from, old.lastOffset()));
    }
  }
}
