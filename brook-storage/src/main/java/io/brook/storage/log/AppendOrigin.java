package io.brook.storage.log;

/** Who is appending, which decides how much the log checks and what it assigns. */
public enum AppendOrigin {
  /**
   * A producer through the partition leader: full validation (no control batches, consistent
   * offsets and counts, sequence numbers), offsets and leader epoch assigned by the log.
   */
  CLIENT,
  /**
   * The group or transaction coordinator through the partition leader: like {@link #CLIENT} but may
   * write control batches (transaction markers).
   */
  COORDINATOR,
  /**
   * A follower copying the leader: offsets and epochs are already assigned and kept as they are.
   */
  REPLICATION
}
