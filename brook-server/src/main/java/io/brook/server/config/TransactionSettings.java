package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.SHORT;

import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.manager.LogManagerConfig;

/** The transaction coordinator, its state topic, and idempotent-producer state expiry. */
final class TransactionSettings {

  static final String ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MS =
      "add.partitions.to.txn.retry.backoff.ms";
  static final String ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MAX_MS =
      "add.partitions.to.txn.retry.backoff.max.ms";
  static final String PRODUCER_ID_EXPIRATION_MS = "producer.id.expiration.ms";
  static final String PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS =
      "producer.id.expiration.check.interval.ms";

  private TransactionSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.TRANSACTIONS)
        .uses(
            "transaction.state.log.replication.factor",
            SHORT,
            (short) 3,
            atLeast(1),
            HIGH,
            "Replication factor of __transaction_state; creating it waits for this many"
                + " brokers.")
        .uses(
            "transaction.state.log.num.partitions",
            INT,
            50,
            atLeast(1),
            HIGH,
            "Partitions of __transaction_state; do not change after the cluster is created.")
        .uses(
            "transaction.state.log.segment.bytes",
            INT,
            100 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Segment size of __transaction_state.")
        .uses(
            "transaction.state.log.min.isr",
            INT,
            2,
            atLeast(1),
            HIGH,
            "min.insync.replicas of __transaction_state.")
        .uses(
            "transaction.state.log.load.buffer.size",
            INT,
            5 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Read size when loading a transaction state partition into memory.")
        .uses(
            "transaction.max.timeout.ms",
            INT,
            15 * 60 * 1000,
            atLeast(1),
            HIGH,
            "Longest transaction timeout a producer may ask for.")
        .uses(
            "transactional.id.expiration.ms",
            INT,
            7 * 24 * 60 * 60 * 1000,
            atLeast(1),
            HIGH,
            "How long a transactional id without transaction status updates is remembered.")
        .uses(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms",
            INT,
            10_000,
            atLeast(1),
            LOW,
            "How often transactions past their timeout are looked for and aborted.")
        .uses(
            "transaction.remove.expired.transaction.cleanup.interval.ms",
            INT,
            60 * 60 * 1000,
            atLeast(1),
            LOW,
            "How often expired transactional ids are removed.")
        .uses(
            "transaction.partition.verification.enable",
            BOOLEAN,
            true,
            ANY,
            LOW,
            "Before the first transactional write of a producer to a partition, ask its transaction"
                + " coordinator that the partition is in the transaction; refuse the write if not.")
        .uses(
            ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MS,
            INT,
            20,
            atLeast(1),
            HIGH,
            "How long a partition leader waits before asking a transaction coordinator again to"
                + " add a partition for a transactions V2 produce, while the coordinator is still"
                + " ending the producer's previous transaction (CONCURRENT_TRANSACTIONS); also the"
                + " longest the coordinator holds such an addition, to add it as soon as that"
                + " transaction ends.")
        .uses(
            ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MAX_MS,
            INT,
            100,
            atLeast(0),
            HIGH,
            "How long a partition leader keeps asking (at most request.timeout.ms) before it hands"
                + " CONCURRENT_TRANSACTIONS back to the producer, which then retries the produce.")
        .uses(
            PRODUCER_ID_EXPIRATION_MS,
            INT,
            (int) LogOpenOptions.DEFAULT_PRODUCER_ID_EXPIRATION_MS,
            atLeast(1),
            LOW,
            "How long a producer id's sequence state is kept after its last write.")
        .uses(
            PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS,
            INT,
            (int) LogManagerConfig.DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS,
            atLeast(1),
            LOW,
            "How often expired producer ids are removed.");
  }
}
