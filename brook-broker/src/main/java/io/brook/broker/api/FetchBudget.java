package io.brook.broker.api;

/**
 * The bytes one pass over a fetch's partitions may still read, counted as Kafka counts them: each
 * partition reads at most its {@code partition_max_bytes} and what is left of {@code max_bytes};
 * the first partition with data may send its whole first batch past both (KIP-74), later ones only
 * whole batches that fit.
 *
 * <p>A remote read's size is known only when it is done, so it takes its whole limit from the
 * budget when it starts (Kafka estimates it the same way), and it ends the first-batch exception
 * for the partitions after it: several remote reads of one fetch never each send an oversized first
 * batch. A partition below its local log start with no room left gets no remote read at all: it is
 * answered empty and the consumer asks for it again in its next fetch.
 */
final class FetchBudget {
  private int remaining;
  private int localBytes;
  private boolean firstBatchWhole = true;

  FetchBudget(int maxBytes) {
    this.remaining = Math.max(0, maxBytes);
  }

  /** The most the next partition may read: its own limit, or what is left if less. */
  int limitFor(int partitionMaxBytes) {
    return Math.min(Math.max(0, partitionMaxBytes), remaining);
  }

  /**
   * Whether the next partition's first batch is sent whole even past its limit: no partition read
   * before it has data and no remote read was started before it.
   */
  boolean minOneBatch() {
    return firstBatchWhole;
  }

  /** Whether a remote read with {@code limit} can return anything, so is worth starting. */
  boolean roomForRemote(int limit) {
    return limit > 0 || firstBatchWhole;
  }

  /** A local read returned {@code size} bytes (the first batch may exceed what was left). */
  void readLocally(int size) {
    remaining = Math.max(0, remaining - size);
    localBytes += size;
    if (size > 0) {
      firstBatchWhole = false;
    }
  }

  /** A remote read with {@code limit} was started: it may return that much. */
  void reserveRemote(int limit) {
    remaining = Math.max(0, remaining - limit);
    firstBatchWhole = false;
  }

  /** Bytes the local reads returned (what a fetch waiting for {@code min_bytes} counts). */
  int localBytes() {
    return localBytes;
  }

  /** Bytes still free. */
  int remaining() {
    return remaining;
  }
}
