package io.brook.storage.epoch;

/**
 * The first offset written under a leader epoch.
 *
 * @param epoch the leader epoch, never negative
 * @param startOffset the offset of the first batch stamped with {@code epoch}, never negative
 */
public record EpochEntry(int epoch, long startOffset) {
  public EpochEntry {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
    }
    if (startOffset < 0) {
      throw new IllegalArgumentException("startOffset must be >= 0, got " + startOffset);
    }
  }
}
