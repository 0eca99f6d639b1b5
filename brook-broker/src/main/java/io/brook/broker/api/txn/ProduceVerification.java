package io.brook.broker.api.txn;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.replica.Partition;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.storage.producer.VerificationGuard;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transaction verification of one produce request (KIP-890), as Kafka's ReplicaManager does it:
 * a transactional batch whose producer has no transaction open on the partition is appended only
 * once the producer's transaction coordinator confirmed the partition is in the transaction
 * (Produce up to version 11), or added it (version 12 and later, transaction protocol V2, where
 * producers no longer add partitions themselves). The partitions of the request that wait are asked
 * in one call; each append then carries its partition's {@link VerificationGuard}, so a transaction
 * that ended meanwhile is not reopened by a late batch.
 *
 * <p>A waiting batch must be copied first ({@link Partition#ownCopy}): the request's network buffer
 * is given back if its connection closes while the coordinator answers. That is one copy per
 * partition per transaction, never per record.
 */
public final class ProduceVerification {
  /** The first Produce version whose transactional batches add their partition (KIP-890 V2). */
  static final short FIRST_ADD_PARTITION_VERSION = 12;

  /** The last Produce version that predates TRANSACTION_ABORTABLE (KIP-1050). */
  static final short LAST_DEFAULT_ERROR_VERSION = 10;

  private final TxnPartitionVerifier verifier;
  private final String transactionalId;
  private final short produceVersion;

  // The partitions waiting, lazily; every waiting batch of one request has one producer.
  private Map<TopicPartition, CompletableFuture<Optional<ApiFailure>>> waiting;
  private long producerId;
  private short producerEpoch;
  private boolean severalProducers;

  private ProduceVerification(
      TxnPartitionVerifier verifier, String transactionalId, short produceVersion) {
    this.verifier = verifier;
    this.transactionalId = transactionalId;
    this.produceVersion = produceVersion;
  }

  /**
   * The verification of one request: {@code verifier} is empty when {@code
   * transaction.partition.verification.enable} is false.
   */
  public static ProduceVerification of(
      Optional<TxnPartitionVerifier> verifier, String transactionalId, short produceVersion) {
    return new ProduceVerification(verifier.orElse(null), transactionalId, produceVersion);
  }

  /**
   * The guard the append of {@code records} must carry: {@link VerificationGuard#NOT_CHECKED} when
   * verification is off; {@link VerificationGuard#SENTINEL} for a batch that needs no coordinator
   * (not transactional, or its transaction is open on the partition; a transactional batch of a
   * request without transactional id gets it too, and so is refused unless its transaction is
   * open); else a fresh guard, and the append must wait for {@link #await}.
   */
  public VerificationGuard guardFor(Partition partition, MemoryRecords records) {
    if (verifier == null) {
      return VerificationGuard.NOT_CHECKED;
    }
    RecordBatch batch = records.firstBatch();
    if (transactionalId == null || batch == null || !batch.isTransactional()) {
      return VerificationGuard.SENTINEL;
    }
    return partition.maybeStartTransactionVerification(
        batch.producerId(),
        batch.producerEpoch(),
        batch.baseSequence(),
        produceVersion >= FIRST_ADD_PARTITION_VERSION);
  }

  /** Whether an append with {@code guard} must wait for the coordinator. */
  public static boolean mustWait(VerificationGuard guard) {
    return guard != VerificationGuard.NOT_CHECKED && guard != VerificationGuard.SENTINEL;
  }

  /**
   * Registers {@code tp} for the coordinator's answer, which {@link #send} asks for: empty when the
   * partition is in the transaction, else the failure to answer the producer with.
   */
  public CompletableFuture<Optional<ApiFailure>> await(TopicPartition tp, MemoryRecords records) {
    RecordBatch batch = records.firstBatch();
    if (waiting == null) {
      waiting = new LinkedHashMap<>();
      producerId = batch.producerId();
      producerEpoch = batch.producerEpoch();
    } else if (producerId != batch.producerId() || producerEpoch != batch.producerEpoch()) {
      severalProducers = true;
    }
    return waiting.computeIfAbsent(tp, p -> new CompletableFuture<>());
  }

  /** Asks the coordinator about every partition registered by {@link #await}. */
  public void send() {
    if (waiting == null) {
      return;
    }
    if (severalProducers) {
      ApiFailure failure =
          new ApiFailure(
              Errors.INVALID_PRODUCER_ID_MAPPING,
              "Transactional records of one request must have one producer id and epoch");
      waiting.values().forEach(f -> f.complete(Optional.of(failure)));
      return;
    }
    CompletableFuture<Map<TopicPartition, Errors>> asked =
        produceVersion < FIRST_ADD_PARTITION_VERSION
            ? verifier.verify(transactionalId, producerId, producerEpoch, waiting.keySet(), true)
            : verifier.addForProduce(transactionalId, producerId, producerEpoch, waiting.keySet());
    asked.thenAccept(
        errors ->
            waiting.forEach(
                (tp, f) ->
                    f.complete(Optional.ofNullable(errors.get(tp)).map(this::produceFailure))));
  }

  /**
   * A coordinator's refusal as the producer must see it, as Kafka answers: retriable coordinator
   * errors become NOT_ENOUGH_REPLICAS, which every client retries without a metadata refresh
   * (CONCURRENT_TRANSACTIONS stays for V2 producers, which expect it while a transaction ends);
   * TRANSACTION_ABORTABLE is INVALID_TXN_STATE for clients too old to know it.
   */
  ApiFailure produceFailure(Errors error) {
    boolean addsPartitions = produceVersion >= FIRST_ADD_PARTITION_VERSION;
    switch (error) {
      case NETWORK_EXCEPTION,
          COORDINATOR_LOAD_IN_PROGRESS,
          COORDINATOR_NOT_AVAILABLE,
          NOT_COORDINATOR -> {
        return notVerified(error);
      }
      case CONCURRENT_TRANSACTIONS -> {
        return addsPartitions ? ApiFailure.of(error) : notVerified(error);
      }
      case INVALID_TXN_STATE -> {
        return new ApiFailure(error, "Partition was not added to the transaction");
      }
      case TRANSACTION_ABORTABLE -> {
        return produceVersion <= LAST_DEFAULT_ERROR_VERSION
            ? new ApiFailure(Errors.INVALID_TXN_STATE, "Partition was not added to the transaction")
            : new ApiFailure(error, "Partition was not added to the transaction");
      }
      default -> {
        return ApiFailure.of(error);
      }
    }
  }

  private static ApiFailure notVerified(Errors error) {
    return new ApiFailure(
        Errors.NOT_ENOUGH_REPLICAS,
        "Unable to verify the partition has been added to the transaction. Underlying error: "
            + error);
  }
}
