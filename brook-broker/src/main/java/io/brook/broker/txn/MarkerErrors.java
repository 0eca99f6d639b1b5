package io.brook.broker.txn;

import org.apache.kafka.common.protocol.Errors;

/** How the marker sender treats a partition's WriteTxnMarkers error. */
final class MarkerErrors {
  private MarkerErrors() {}

  /**
   * Errors retrying cannot fix: a newer coordinator or producer epoch was seen (this coordinator is
   * stale; its successor completes the transaction) or the request itself is wrong. Everything else
   * (leader moved, replicas short, timeouts, a coordinator partition loading) is retried.
   */
  static boolean isFatal(Errors error) {
    return switch (error) {
      case TRANSACTION_COORDINATOR_FENCED,
          INVALID_PRODUCER_EPOCH,
          PRODUCER_FENCED,
          CORRUPT_MESSAGE,
          MESSAGE_TOO_LARGE,
          RECORD_LIST_TOO_LARGE,
          INVALID_REQUIRED_ACKS,
          CLUSTER_AUTHORIZATION_FAILED ->
          true;
      default -> false;
    };
  }
}
