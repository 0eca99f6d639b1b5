package io.brook.coordinator.share;

/**
 * A run of offsets of a share-partition in one delivery state with one delivery count, as the
 * share-group state records and APIs carry them.
 *
 * @param deliveryState Kafka's record state code: 0 available, 1 acquired, 2 acknowledged, 4
 *     archived
 */
public record StateBatch(
    long firstOffset, long lastOffset, byte deliveryState, short deliveryCount) {
  public static final byte AVAILABLE = 0;
  public static final byte ACQUIRED = 1;
  public static final byte ACKNOWLEDGED = 2;
  public static final byte ARCHIVED = 4;

  public long count() {
    return lastOffset - firstOffset + 1;
  }

  /** Whether its records are done (acknowledged or archived) and will not be delivered again. */
  public boolean done() {
    return deliveryState == ACKNOWLEDGED || deliveryState == ARCHIVED;
  }

  StateBatch withRange(long first, long last) {
    return new StateBatch(first, last, deliveryState, deliveryCount);
  }
}
