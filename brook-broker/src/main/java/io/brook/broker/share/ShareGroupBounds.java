package io.brook.broker.share;

/**
 * The broker's bounds of Kafka's per-group share configs ({@code group.share.min.*} and {@code
 * group.share.max.*}): a group config outside them is refused when it is set, and a value stored
 * before the bounds changed is capped to them when it is used, as in Kafka.
 */
public record ShareGroupBounds(
    int minRecordLockDurationMs,
    int maxRecordLockDurationMs,
    int minDeliveryCountLimit,
    int maxDeliveryCountLimit,
    int minPartitionMaxRecordLocks,
    int maxPartitionMaxRecordLocks,
    int minSessionTimeoutMs,
    int maxSessionTimeoutMs,
    int minHeartbeatIntervalMs,
    int maxHeartbeatIntervalMs,
    int sessionTimeoutMs,
    int heartbeatIntervalMs) {

  /** Kafka's defaults. */
  public static final ShareGroupBounds KAFKA_DEFAULTS =
      new ShareGroupBounds(
          15_000, 60_000, 2, 10, 100, 4_000, 45_000, 60_000, 5_000, 15_000, 45_000, 5_000);

  /** {@code value} capped to [min, max]. */
  static int clamp(int value, int min, int max) {
    return Math.max(min, Math.min(max, value));
  }
}
