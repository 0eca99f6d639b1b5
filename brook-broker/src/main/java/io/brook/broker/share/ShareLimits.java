package io.brook.broker.share;

/**
 * The settings of share-partition state at a partition leader, under Kafka's names.
 *
 * @param recordLockDurationMs {@code group.share.record.lock.duration.ms}: how long an acquired
 *     record stays with its consumer before it is available again
 * @param deliveryCountLimit {@code group.share.delivery.count.limit}: deliveries after which a
 *     record that comes back is archived instead of delivered again
 * @param maxRecordLocks {@code group.share.partition.max.record.locks}: the most records a
 *     share-partition tracks past its start offset (acquired, or waiting for the start offset to
 *     pass them)
 * @param maxShareSessions {@code group.share.max.share.sessions}: share sessions per broker
 * @param sessionIdleMs {@code group.share.session.timeout.ms}: a share session unused this long
 *     (its consumer left the group without closing it) is dropped and its records released
 * @param earliest Brook's {@code brook.share.auto.offset.reset} is {@code earliest}: a new
 *     share-partition starts at the log start offset instead of the high watermark (a group's
 *     {@code share.auto.offset.reset} overrides it)
 * @param bounds the broker's bounds of the groups' own share configs
 */
public record ShareLimits(
    int recordLockDurationMs,
    int deliveryCountLimit,
    int maxRecordLocks,
    int maxShareSessions,
    long sessionIdleMs,
    boolean earliest,
    ShareGroupBounds bounds) {

  /** With Kafka's bounds of the groups' configs. */
  public ShareLimits(
      int recordLockDurationMs,
      int deliveryCountLimit,
      int maxRecordLocks,
      int maxShareSessions,
      long sessionIdleMs,
      boolean earliest) {
    this(
        recordLockDurationMs,
        deliveryCountLimit,
        maxRecordLocks,
        maxShareSessions,
        sessionIdleMs,
        earliest,
        ShareGroupBounds.KAFKA_DEFAULTS);
  }

  public ShareLimits {
    if (recordLockDurationMs < 1 || deliveryCountLimit < 1 || maxRecordLocks < 1) {
      throw new IllegalArgumentException("share limits must be positive");
    }
    if (maxShareSessions < 0) {
      throw new IllegalArgumentException("maxShareSessions must not be negative");
    }
    if (bounds == null) {
      throw new IllegalArgumentException("bounds must be given");
    }
  }

  /** Kafka's defaults ({@code share.auto.offset.reset} latest). */
  public static ShareLimits defaults() {
    return new ShareLimits(30_000, 5, 2_000, 2_000, 45_000, false);
  }
}
