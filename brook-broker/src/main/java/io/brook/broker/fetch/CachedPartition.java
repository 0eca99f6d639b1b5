package io.brook.broker.fetch;

import io.brook.broker.replica.Partition;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One partition of a fetch session: the request fields the client last sent for it (used while it
 * sends nothing new) and the offsets the session last reported, which decide whether a later
 * response must carry the partition. Guarded by its session's lock, except {@link #leader}.
 */
final class CachedPartition implements FetchContext.Unlisted {
  final FetchKey key;
  FetchPartition request;

  /**
   * Whether a request listed it since the last snapshot (or it just joined the session): the
   * client's fetch state for it changed, so it is read whatever the leader's state.
   */
  private boolean listed = true;

  /** The partition a follower's fetch last read it from, kept to skip the lookup; may be stale. */
  private volatile Partition leader;

  /** -1 until first reported: a partition new to the session is always answered. */
  private long highWatermark = -1;

  private long lastStableOffset = -1;
  private long logStartOffset = -1;

  CachedPartition(FetchKey key, FetchPartition request) {
    this.key = key;
    this.request = request;
  }

  /**
   * Whether an incremental response must carry {@code data}, Kafka's rule: it has records, a high
   * watermark, last stable offset or log start offset the client has not been told, a preferred
   * read replica, a diverging epoch or an error. With {@code update} the reported offsets are
   * remembered; an error resets the high watermark so the next successful read is reported too.
   */
  boolean mustRespond(PartitionData data, boolean update) {
    boolean must = data.records() != null && data.records().sizeInBytes() > 0;
    if (data.highWatermark() != highWatermark) {
      must = true;
      if (update) {
        highWatermark = data.highWatermark();
      }
    }
    if (data.lastStableOffset() != lastStableOffset) {
      must = true;
      if (update) {
        lastStableOffset = data.lastStableOffset();
      }
    }
    if (data.logStartOffset() != logStartOffset) {
      must = true;
      if (update) {
        logStartOffset = data.logStartOffset();
      }
    }
    if (data.preferredReadReplica() >= 0 || data.divergingEpoch().epoch() >= 0) {
      must = true;
    }
    if (data.errorCode() != Errors.NONE.code()) {
      must = true;
      if (update) {
        highWatermark = -1;
      }
    }
    return must;
  }

  /**
   * Whether {@code data} tells the client something it has not been told, records aside: with
   * {@code watermarks}, as {@link #mustRespond}; without, a new high watermark or last stable
   * offset alone does not count, nor does the first log start offset of a partition new to the
   * session (the next response carries it; a follower that joins thousands of partitions to its
   * session while topics are created would otherwise have each such fetch answered at once).
   */
  boolean hasNews(PartitionData data, boolean watermarks) {
    if (watermarks) {
      return mustRespond(data, false);
    }
    return (data.records() != null && data.records().sizeInBytes() > 0)
        || (logStartOffset != -1 && data.logStartOffset() != logStartOffset)
        || data.preferredReadReplica() >= 0
        || data.divergingEpoch().epoch() >= 0
        || data.errorCode() != Errors.NONE.code();
  }

  /**
   * The partition as the next read should see it: may it be skipped while quiet ({@code follower}
   * session, not listed since the last snapshot)? Clears the listed mark.
   */
  FetchContext.Requested requested(boolean follower) {
    boolean mayBeQuiet = follower && !listed;
    listed = false;
    return new FetchContext.Requested(key, request, follower ? this : null, mayBeQuiet);
  }

  /** A request listed it again: its fetch state changed. */
  void listed(FetchPartition request) {
    this.request = request;
    listed = true;
  }

  @Override
  public long reportedHighWatermark() {
    return highWatermark;
  }

  @Override
  public long reportedLastStableOffset() {
    return lastStableOffset;
  }

  @Override
  public long reportedLogStartOffset() {
    return logStartOffset;
  }

  @Override
  public Partition leader() {
    return leader;
  }

  @Override
  public void rememberLeader(Partition partition) {
    leader = partition;
  }
}
