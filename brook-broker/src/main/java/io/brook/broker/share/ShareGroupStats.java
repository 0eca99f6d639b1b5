package io.brook.broker.share;

import java.util.concurrent.atomic.LongAdder;

/**
 * A share group's counters at one broker, over the share-partitions it leads (they outlive a
 * share-partition that moves away; they start at 0 with the broker): records archived (at the
 * delivery limit or rejected), written to the dead-letter topic, and made available again after a
 * delivery (released, or their lock expired).
 */
public final class ShareGroupStats {
  private final LongAdder archived = new LongAdder();
  private final LongAdder deadLettered = new LongAdder();
  private final LongAdder redelivered = new LongAdder();

  void archived() {
    archived.increment();
  }

  void deadLettered() {
    deadLettered.increment();
  }

  void redelivered() {
    redelivered.increment();
  }

  public long archivedTotal() {
    return archived.sum();
  }

  public long deadLetteredTotal() {
    return deadLettered.sum();
  }

  public long redeliveredTotal() {
    return redelivered.sum();
  }
}
