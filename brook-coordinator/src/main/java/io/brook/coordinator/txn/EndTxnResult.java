package io.brook.coordinator.txn;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of a transaction protocol V2 EndTxn on a shard: the producer id and epoch the
 * producer continues with (EndTxn v5 returns them).
 *
 * @param needsProducerId the epoch is exhausted and the shard needs a fresh producer id, which the
 *     caller allocates off the shard thread before asking again (as for InitProducerId)
 */
public record EndTxnResult(
    Errors error, long producerId, short producerEpoch, boolean needsProducerId) {
  public static EndTxnResult error(Errors error) {
    return new EndTxnResult(error, -1L, (short) -1, false);
  }

  public static EndTxnResult ok(long producerId, short producerEpoch) {
    return new EndTxnResult(Errors.NONE, producerId, producerEpoch, false);
  }

  public static EndTxnResult needProducerId() {
    return new EndTxnResult(Errors.NONE, -1L, (short) -1, true);
  }
}
