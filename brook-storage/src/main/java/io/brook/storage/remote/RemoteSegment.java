package io.brook.storage.remote;

import java.util.Objects;

/**
 * One segment in remote storage, as its partition's manifest records it.
 *
 * @param id unique per copy attempt, so a retried copy never overwrites (or is confused with) the
 *     objects of an abandoned one
 * @param baseOffset first offset the segment may hold
 * @param endOffset last offset it holds (inclusive)
 * @param maxTimestamp largest record timestamp in it (-1 if none)
 * @param sizeInBytes size of its log file
 * @param state where its copy or deletion stands
 */
public record RemoteSegment(
    String id,
    long baseOffset,
    long endOffset,
    long maxTimestamp,
    int sizeInBytes,
    RemoteSegmentState state) {

  public RemoteSegment {
    Objects.requireNonNull(id);
    Objects.requireNonNull(state);
    if (id.isEmpty() || id.indexOf(' ') >= 0 || id.indexOf('/') >= 0) {
      throw new IllegalArgumentException("bad remote segment id '" + id + "'");
    }
    if (baseOffset < 0 || endOffset < baseOffset || sizeInBytes < 0) {
      throw new IllegalArgumentException(
          "bad remote segment offsets " + baseOffset + ".." + endOffset + " size " + sizeInBytes);
    }
  }

  public RemoteSegment withState(RemoteSegmentState newState) {
    return new RemoteSegment(id, baseOffset, endOffset, maxTimestamp, sizeInBytes, newState);
  }

  /** The offset after this segment's last. */
  public long nextOffset() {
    return endOffset + 1;
  }
}
