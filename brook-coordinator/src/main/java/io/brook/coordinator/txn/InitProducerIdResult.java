package io.brook.coordinator.txn;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of InitProducerId on a shard.
 *
 * @param needsProducerId the shard needs a fresh producer id, which it does not allocate itself
 *     (allocating may wait on the controller, and shard threads never wait): the caller allocates
 *     one and asks again with it
 */
public record InitProducerIdResult(
    Errors error, long producerId, short producerEpoch, boolean needsProducerId) {
  public static InitProducerIdResult error(Errors error) {
    return new InitProducerIdResult(error, -1L, (short) -1, false);
  }

  public static InitProducerIdResult ok(long producerId, short producerEpoch) {
    return new InitProducerIdResult(Errors.NONE, producerId, producerEpoch, false);
  }

  public static InitProducerIdResult needProducerId() {
    return new InitProducerIdResult(Errors.NONE, -1L, (short) -1, true);
  }
}
