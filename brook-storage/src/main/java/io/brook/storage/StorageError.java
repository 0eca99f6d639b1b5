package io.brook.storage;

import org.apache.kafka.common.protocol.Errors;

/**
 * Every way a storage operation can fail on purpose. Each constant names the Kafka error code the
 * broker answers with, so the translation to the wire happens in exactly one place.
 */
public enum StorageError {
  /** A batch failed its CRC, is truncated, or its header lengths do not add up. */
  CORRUPT_MESSAGE(Errors.CORRUPT_MESSAGE),
  /** A batch is larger than {@code max.message.bytes}. */
  MESSAGE_TOO_LARGE(Errors.MESSAGE_TOO_LARGE),
  /**
   * A batch is well-formed but breaks a rule (offsets vs. count, control batch from a client...).
   */
  INVALID_RECORD(Errors.INVALID_RECORD),
  /** A record format (magic) this broker does not accept. */
  UNSUPPORTED_VERSION(Errors.UNSUPPORTED_VERSION),
  /** A timestamp outside the topic's allowed window. */
  INVALID_TIMESTAMP(Errors.INVALID_TIMESTAMP),
  /** A read below the log start offset or above the log end offset. */
  OFFSET_OUT_OF_RANGE(Errors.OFFSET_OUT_OF_RANGE),
  /** The producer's sequence number leaves a gap. */
  OUT_OF_ORDER_SEQUENCE_NUMBER(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER),
  /** The producer's epoch is older than the one this partition has seen: a zombie. */
  INVALID_PRODUCER_EPOCH(Errors.INVALID_PRODUCER_EPOCH),
  /**
   * A transaction marker carries a coordinator epoch older than one this partition has seen: it
   * comes from a transaction coordinator that has since been replaced.
   */
  TRANSACTION_COORDINATOR_FENCED(Errors.TRANSACTION_COORDINATOR_FENCED),
  /** A non-transactional batch from a producer whose transaction is open. */
  INVALID_TXN_STATE(Errors.INVALID_TXN_STATE),
  /** The disk failed or is full; the partition is offline until the broker restarts. */
  KAFKA_STORAGE_ERROR(Errors.KAFKA_STORAGE_ERROR),
  /** The log is closed or deleted. */
  LOG_CLOSED(Errors.NOT_LEADER_OR_FOLLOWER);

  private final Errors kafkaError;

  StorageError(Errors kafkaError) {
    this.kafkaError = kafkaError;
  }

  /** The Kafka error code the broker puts on the wire for this failure. */
  public Errors kafkaError() {
    return kafkaError;
  }
}
