package io.brook.storage.epoch;

/**
 * The answer to OffsetForLeaderEpoch: the largest epoch this log knows that is at most the
 * requested one, and the offset one past the last record written under it (the start offset of the
 * next epoch, or the log end offset for the latest epoch).
 *
 * @param epoch the epoch, {@code -1} when undefined
 * @param endOffset the exclusive end offset of {@code epoch}, {@code -1} when undefined
 */
public record EpochEndOffset(int epoch, long endOffset) {
  /** The requested epoch is unknown to this log (or was undefined). */
  public static final EpochEndOffset UNDEFINED = new EpochEndOffset(-1, -1L);
}
