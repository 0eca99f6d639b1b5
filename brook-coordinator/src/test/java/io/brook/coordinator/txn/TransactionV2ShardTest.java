package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.service.TxnMarker;
import io.brook.coordinator.service.TxnMarkerChannel;
import io.brook.coordinator.testing.FakeShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Transaction protocol V2 (KIP-890 part 2) on one shard: the epoch bump at every EndTxn. */
class TransactionV2ShardTest {
  private static final String ID = "txn";
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final TopicPartition TP2 = new TopicPartition("orders", 1);
  private static final TxnConfig CONFIG =
      new TxnConfig(
          50, (short) 1, 1 << 20, 1, 1 << 20, 60_000, 3_600_000, 1_000, 10_000, 5_000, 1, 20);

  private final List<TxnMarker> sent = new ArrayList<>();
  private final List<CompletableFuture<Void>> pendingMarkers = new ArrayList<>();
  private FakeShardContext context;
  private TransactionCoordinatorShard shard;

  @BeforeEach
  void setUp() {
    context = new FakeShardContext(3, 1_000_000L);
    TxnMarkerChannel markers =
        marker -> {
          sent.add(marker);
          CompletableFuture<Void> f = new CompletableFuture<>();
          pendingMarkers.add(f);
          return f;
        };
    shard = new TransactionCoordinatorShard(context, CONFIG, markers);
    context.attach(shard);
    shard.onLoaded();
    shard.initProducerId(ID, 30_000, -1, (short) -1, OptionalLong.of(100L)).join();
  }

  private void ackMarkers() {
    List.copyOf(pendingMarkers).forEach(f -> f.complete(null));
    pendingMarkers.clear();
  }

  private EndTxnResult end(short epoch, boolean commit) {
    return shard.endTxnV2(ID, 100L, epoch, commit, OptionalLong.empty()).join();
  }

  private TxnMetadata state() {
    return shard.describe(ID).orElseThrow();
  }

  @Test
  void endTxnBumpsTheEpochTheMarkersCarryIt() {
    assertThat(shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.NONE);
    assertThat(state().clientTransactionVersion()).isEqualTo(TxnMetadata.TV2);

    assertThat(end((short) 0, true)).isEqualTo(EndTxnResult.ok(100L, (short) 1));
    assertThat(state().state()).isEqualTo(TransactionState.PREPARE_COMMIT);
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).producerEpoch()).isEqualTo((short) 1);
    assertThat(sent.get(0).transactionVersion())
        .as("WriteTxnMarkers tells the partitions to expect the bumped epoch")
        .isEqualTo(TxnMetadata.TV2);
    // The next transaction's first write waits for the markers, for the leader's backoff at most.
    CompletableFuture<Errors> early = shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP));
    assertThat(early).isNotDone();
    context.advance(CONFIG.addRetryBackoffMs());
    assertThat(early.join()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    // A retry of the EndTxn from the old epoch while the markers are written.
    assertThat(end((short) 0, true).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);

    ackMarkers();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
    assertThat(end((short) 0, true)).isEqualTo(EndTxnResult.ok(100L, (short) 1));
    assertThat(end((short) 0, false).error()).isEqualTo(Errors.INVALID_TXN_STATE);
    // The ended transaction's late writes are fenced (the leaders ask with the old epoch).
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(TP)))
        .containsEntry(TP, Errors.PRODUCER_FENCED);
    assertThat(shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.PRODUCER_FENCED);

    assertThat(shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP)).join())
        .isEqualTo(Errors.NONE);
    assertThat(end((short) 1, false)).isEqualTo(EndTxnResult.ok(100L, (short) 2));
    // Once the producer moved on, its old epoch is a zombie's.
    assertThat(end((short) 0, true).error()).isEqualTo(Errors.PRODUCER_FENCED);
  }

  @Test
  void theNextTransactionsFirstWriteWaitsForTheEndOfThePreviousToCommit() {
    // Given: a committed transaction whose markers are written and whose Complete* is not yet
    // committed
    shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join();
    end((short) 0, true);
    context.holdCommits(true);
    ackMarkers();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);

    // When: a leader adds a partition for the next transaction (the bumped epoch)
    CompletableFuture<Errors> add = shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP));

    // Then: it waits for the Complete* instead of answering CONCURRENT_TRANSACTIONS
    assertThat(add).isNotDone();
    context.holdCommits(false);
    context.releaseCommits();
    assertThat(add.join()).isEqualTo(Errors.NONE);
    assertThat(state().state()).isEqualTo(TransactionState.ONGOING);
    assertThat(state().partitions()).containsExactly(TP);
  }

  @Test
  void theNextTransactionsWritesArrivingDuringTheMarkersAreAddedWithTheEnd() {
    // Given: a committed transaction whose markers are being written
    shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join();
    end((short) 0, true);

    // When: two leaders add partitions for the next transaction (the bumped epoch)
    CompletableFuture<Errors> first = shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP));
    CompletableFuture<Errors> second = shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP2));

    // Then: both wait for the markers instead of answering CONCURRENT_TRANSACTIONS, and are written
    // in the write that completes the previous transaction: its Complete*, then the next Ongoing
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    int before = context.records().size();
    context.advance(CONFIG.addRetryBackoffMs() - 1);
    ackMarkers();
    assertThat(first.join()).isEqualTo(Errors.NONE);
    assertThat(second.join()).isEqualTo(Errors.NONE);
    List<CoordinatorRecord> written = context.records().subList(before, context.records().size());
    assertThat(written)
        .extracting(r -> TxnRecords.readValue(ID, r).state())
        .containsExactly(TransactionState.COMPLETE_COMMIT, TransactionState.ONGOING);
    assertThat(state().state()).isEqualTo(TransactionState.ONGOING);
    assertThat(state().producerEpoch()).isEqualTo((short) 1);
    assertThat(state().partitions()).containsExactlyInAnyOrder(TP, TP2);
    context.advance(CONFIG.addRetryBackoffMs());
    assertThat(state().state()).isEqualTo(TransactionState.ONGOING);

    // And: loading the log gives the same state, and the transaction ends as usual
    TransactionCoordinatorShard reloaded =
        new TransactionCoordinatorShard(context, CONFIG, marker -> new CompletableFuture<>());
    context.replayInto(reloaded);
    assertThat(reloaded.describe(ID)).contains(state());
    assertThat(end((short) 1, true)).isEqualTo(EndTxnResult.ok(100L, (short) 2));
    assertThat(sent.get(sent.size() - 1).partitions()).containsExactlyInAnyOrder(TP, TP2);
  }

  @Test
  void aWriteOfAnEndedTransactionIsNotHeld() {
    // Given: a committed transaction whose markers are being written
    shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join();
    end((short) 0, true);

    // Then: a late write of it (its own epoch) is fenced at once, not held for the next one
    assertThat(shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP2)).join())
        .isEqualTo(Errors.PRODUCER_FENCED);
  }

  @Test
  void aHeldWriteIsAnsweredWhenTheShardIsUnloaded() {
    shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join();
    end((short) 0, true);
    CompletableFuture<Errors> held = shard.addPartitionsV2(ID, 100L, (short) 1, Set.of(TP));

    shard.onUnloaded();

    assertThat(held.join()).isEqualTo(Errors.NOT_COORDINATOR);
  }

  @Test
  void anIdleIdMayBeAbortedButNotCommitted() {
    assertThat(end((short) 0, true).error()).isEqualTo(Errors.INVALID_TXN_STATE);
    assertThat(end((short) 0, false)).isEqualTo(EndTxnResult.ok(100L, (short) 1));
    ackMarkers();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
    assertThat(state().producerEpoch()).isEqualTo((short) 1);
  }

  @Test
  void anExhaustedEpochPassesTheIdToANewProducerId() {
    TxnMetadata ongoing =
        new TxnMetadata(
            ID,
            100L,
            (short) (Short.MAX_VALUE - 1),
            (short) (Short.MAX_VALUE - 2),
            30_000,
            TransactionState.ONGOING,
            Set.of(TP),
            1L,
            1L);
    TxnMetadata prepared = ongoing.prepareEndV2(true, 200L, 2L);
    assertThat(prepared.producerId()).isEqualTo(100L);
    assertThat(prepared.producerEpoch()).isEqualTo(Short.MAX_VALUE);
    assertThat(prepared.nextProducerId()).isEqualTo(200L);
    assertThat(prepared.producerIdAfterEnd()).isEqualTo(200L);
    assertThat(prepared.producerEpochAfterEnd()).isZero();

    TxnMetadata done = prepared.complete(3L);
    assertThat(done.producerId()).isEqualTo(200L);
    assertThat(done.producerEpoch()).isZero();
    assertThat(done.prevProducerId()).isEqualTo(100L);
    assertThat(done.nextProducerId()).isEqualTo(TxnMetadata.NO_PRODUCER_ID);

    // Both are stored in Kafka's tagged fields (value version 1) and read back.
    for (TxnMetadata value : List.of(prepared, done)) {
      var record = TxnRecords.record(value);
      assertThat(record.value().getShort(record.value().position())).isEqualTo((short) 1);
      assertThat(TxnRecords.readValue(ID, record).withLastProducerEpoch(value.lastProducerEpoch()))
          .isEqualTo(value);
    }
    assertThat(TransactionLogValue.HIGHEST_SUPPORTED_VERSION).isGreaterThanOrEqualTo((short) 1);
  }

  @Test
  void theShardAsksForANewProducerIdWhenTheEpochIsExhausted() {
    shard.addPartitionsV2(ID, 100L, (short) 0, Set.of(TP)).join();
    // Bring the epoch to the edge through EndTxn itself would take 32,766 transactions: start from
    // a stored value instead.
    shard.replay(
        TxnRecords.record(
            new TxnMetadata(
                ID,
                100L,
                (short) (Short.MAX_VALUE - 1),
                (short) (Short.MAX_VALUE - 2),
                30_000,
                TransactionState.ONGOING,
                Set.of(TP),
                1L,
                1L,
                -1L,
                -1L,
                TxnMetadata.TV2)),
        1_000L);
    short exhausted = (short) (Short.MAX_VALUE - 1);
    assertThat(end(exhausted, true)).isEqualTo(EndTxnResult.needProducerId());
    assertThat(shard.endTxnV2(ID, 100L, exhausted, true, OptionalLong.of(300L)).join())
        .isEqualTo(EndTxnResult.ok(300L, (short) 0));
    assertThat(sent.get(sent.size() - 1).producerEpoch()).isEqualTo(Short.MAX_VALUE);
    ackMarkers();
    assertThat(state().producerId()).isEqualTo(300L);
    assertThat(state().prevProducerId()).isEqualTo(100L);
    // The old id's retry still gets the new id and epoch.
    assertThat(end(exhausted, true)).isEqualTo(EndTxnResult.ok(300L, (short) 0));
  }
}
