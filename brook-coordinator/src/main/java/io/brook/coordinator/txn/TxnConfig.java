package io.brook.coordinator.txn;

/**
 * The transaction coordinator's settings, under Kafka's names.
 *
 * @param numPartitions {@code transaction.state.log.num.partitions}
 * @param replicationFactor {@code transaction.state.log.replication.factor}
 * @param segmentBytes {@code transaction.state.log.segment.bytes}
 * @param minIsr {@code transaction.state.log.min.isr}
 * @param loadBufferSize {@code transaction.state.log.load.buffer.size}
 * @param maxTimeoutMs {@code transaction.max.timeout.ms}: the longest timeout a producer may ask
 * @param idExpirationMs {@code transactional.id.expiration.ms}: idle ids are forgotten after this
 * @param abortTimedOutIntervalMs {@code
 *     transaction.abort.timed.out.transaction.cleanup.interval.ms}
 * @param removeExpiredIntervalMs {@code transaction.remove.expired.transaction.cleanup.interval.ms}
 * @param writeTimeoutMs how long a state write may wait to be replicated before it fails
 * @param threads the shard threads
 * @param addRetryBackoffMs {@code add.partitions.to.txn.retry.backoff.ms}: how often a leader asks
 *     again to add a partition while the producer's previous transaction ends, so also the longest
 *     the coordinator holds such an addition before answering CONCURRENT_TRANSACTIONS (0: never
 *     holds)
 */
public record TxnConfig(
    int numPartitions,
    short replicationFactor,
    int segmentBytes,
    int minIsr,
    int loadBufferSize,
    int maxTimeoutMs,
    long idExpirationMs,
    long abortTimedOutIntervalMs,
    long removeExpiredIntervalMs,
    long writeTimeoutMs,
    int threads,
    long addRetryBackoffMs) {
  public static final String TOPIC = "__transaction_state";

  /** Kafka's defaults, for tests. */
  public static TxnConfig defaults() {
    return new TxnConfig(
        50,
        (short) 3,
        100 * 1024 * 1024,
        2,
        5 * 1024 * 1024,
        15 * 60 * 1000,
        7L * 24 * 60 * 60 * 1000,
        10_000,
        60 * 60 * 1000,
        5_000,
        1,
        20);
  }
}
