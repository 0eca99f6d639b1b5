package io.brook.coordinator.txn;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorShard;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.coordinator.service.TxnMarkerChannel;
import io.brook.metadata.image.PartitionImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator's state for one {@code __transaction_state} partition: the
 * transactional ids it owns. Runs on the shard's thread; each request kind is served by its own
 * part (producer ids, partitions, ending, timeouts).
 */
public final class TransactionCoordinatorShard implements CoordinatorShard {
  private static final Logger log = LoggerFactory.getLogger(TransactionCoordinatorShard.class);

  private final ShardContext context;
  private final TxnStore store;
  private final TxnEnder ender;
  private final TxnProducerIds producerIds;
  private final TxnPartitions partitions;
  private final TxnTimeouts timeouts;

  public TransactionCoordinatorShard(
      ShardContext context, TxnConfig config, TxnMarkerChannel markers) {
    this.context = context;
    this.store = new TxnStore(context);
    this.partitions = new TxnPartitions(store, config.addRetryBackoffMs());
    this.ender = new TxnEnder(store, markers, partitions);
    this.producerIds = new TxnProducerIds(store, ender);
    this.timeouts = new TxnTimeouts(store, ender, config);
  }

  public CompletableFuture<InitProducerIdResult> initProducerId(
      String transactionalId,
      int timeoutMs,
      long expectedProducerId,
      short expectedEpoch,
      OptionalLong freshProducerId) {
    return producerIds.init(
        transactionalId, timeoutMs, expectedProducerId, expectedEpoch, freshProducerId);
  }

  public CompletableFuture<Errors> addPartitions(
      String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> added) {
    return partitions.add(transactionalId, producerId, producerEpoch, added, false);
  }

  /** A leader's implicit add for a transaction protocol V2 producer (KIP-890 part 2). */
  public CompletableFuture<Errors> addPartitionsV2(
      String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> added) {
    return partitions.add(transactionalId, producerId, producerEpoch, added, true);
  }

  public Map<TopicPartition, Errors> verifyPartitions(
      String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> asked) {
    return partitions.verify(transactionalId, producerId, producerEpoch, asked);
  }

  public CompletableFuture<Errors> endTxn(
      String transactionalId, long producerId, short producerEpoch, boolean commit) {
    return ender.endTxn(transactionalId, producerId, producerEpoch, commit);
  }

  /** EndTxn v5 (transaction protocol V2): see {@code TxnEnder#endTxnV2}. */
  public CompletableFuture<EndTxnResult> endTxnV2(
      String transactionalId,
      long producerId,
      short producerEpoch,
      boolean commit,
      OptionalLong freshProducerId) {
    return ender.endTxnV2(transactionalId, producerId, producerEpoch, commit, freshProducerId);
  }

  public Optional<TxnMetadata> describe(String transactionalId) {
    return store.get(transactionalId);
  }

  /** A copy of every transactional id's state, for ListTransactions. */
  public List<TxnMetadata> all() {
    return new ArrayList<>(store.all());
  }

  @Override
  public void replay(CoordinatorRecord record, long offset) {
    if (!TxnRecords.handles(record.type())) {
      log.debug(
          "Ignoring a record of unknown type partition={} type={} offset={}",
          context.partition(),
          record.type(),
          offset);
      return;
    }
    MalformedRecordException.reading(
        record,
        () -> {
          store.replay(record);
          return null;
        });
  }

  @Override
  public void onLoaded() {
    ender.setCoordinatorEpoch(leaderEpoch());
    ender.resumeAll();
    timeouts.start();
  }

  @Override
  public void onUnloaded() {
    ender.cancelAll();
    partitions.onUnloaded();
  }

  /** Markers carry the leader epoch of this partition: brokers refuse older coordinators'. */
  private int leaderEpoch() {
    return context
        .image()
        .partition(TxnConfig.TOPIC, context.partition())
        .map(PartitionImage::leaderEpoch)
        .orElse(0);
  }
}
