package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.coordinator.runtime.ShardTimer;
import io.brook.coordinator.service.TxnMarker;
import io.brook.coordinator.service.TxnMarkerChannel;
import io.brook.coordinator.testing.FakeShardContext;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransactionCoordinatorShardTest {
  private static final String ID = "txn";
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final TxnConfig CONFIG =
      new TxnConfig(
          50, (short) 1, 1 << 20, 1, 1 << 20, 60_000, 3_600_000, 1_000, 10_000, 5_000, 1, 20);

  /** Markers handed to the channel, completed by the test. */
  private static final class FakeMarkers implements TxnMarkerChannel {
    final List<TxnMarker> sent = new ArrayList<>();
    final List<CompletableFuture<Void>> futures = new ArrayList<>();

    @Override
    public CompletableFuture<Void> send(TxnMarker marker) {
      sent.add(marker);
      CompletableFuture<Void> f = new CompletableFuture<>();
      futures.add(f);
      return f;
    }

    void ackAll() {
      List.copyOf(futures).forEach(f -> f.complete(null));
      futures.clear();
    }
  }

  private FakeShardContext context;
  private FakeMarkers markers;
  private TransactionCoordinatorShard shard;

  @BeforeEach
  void setUp() {
    context = new FakeShardContext(3, 1_000_000L);
    markers = new FakeMarkers();
    shard = new TransactionCoordinatorShard(context, CONFIG, markers);
    context.attach(shard);
    shard.onLoaded();
  }

  private InitProducerIdResult init(long expectedPid, short expectedEpoch, long fresh) {
    return shard
        .initProducerId(ID, 30_000, expectedPid, expectedEpoch, OptionalLong.of(fresh))
        .join();
  }

  private TxnMetadata state() {
    return shard.describe(ID).orElseThrow();
  }

  @Test
  void newIdNeedsAProducerIdThenGetsEpochZero() {
    assertThat(shard.initProducerId(ID, 30_000, -1, (short) -1, OptionalLong.empty()).join())
        .isEqualTo(InitProducerIdResult.needProducerId());
    assertThat(init(-1, (short) -1, 100L)).isEqualTo(InitProducerIdResult.ok(100L, (short) 0));
    assertThat(init(-1, (short) -1, 101L)).isEqualTo(InitProducerIdResult.ok(100L, (short) 1));
  }

  @Test
  void commitWritesPrepareThenMarkersThenComplete() {
    init(-1, (short) -1, 100L);
    assertThat(shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join()).isEqualTo(Errors.NONE);
    assertThat(state().state()).isEqualTo(TransactionState.ONGOING);
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join()).isEqualTo(Errors.NONE);
    assertThat(state().state()).isEqualTo(TransactionState.PREPARE_COMMIT);
    assertThat(markers.sent).hasSize(1);
    TxnMarker marker = markers.sent.get(0);
    assertThat(marker.result()).isEqualTo(TxnResult.COMMIT);
    assertThat(marker.partitions()).containsExactly(TP);
    // While markers are pending the producer must wait.
    assertThat(shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join())
        .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    markers.ackAll();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
    assertThat(state().partitions()).isEmpty();
    // A retried EndTxn for the same outcome succeeds, the opposite one is invalid.
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join()).isEqualTo(Errors.NONE);
    assertThat(shard.endTxn(ID, 100L, (short) 0, false).join()).isEqualTo(Errors.INVALID_TXN_STATE);
  }

  @Test
  void aNewInstanceFencesTheOldAndAbortsItsTransaction() {
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    assertThat(init(-1, (short) -1, 999L).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    assertThat(state().state()).isEqualTo(TransactionState.PREPARE_ABORT);
    assertThat(state().producerEpoch()).isEqualTo((short) 1);
    assertThat(markers.sent.get(0).producerEpoch()).isEqualTo((short) 1);
    assertThat(markers.sent.get(0).result()).isEqualTo(TxnResult.ABORT);
    // The old instance is fenced.
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join()).isEqualTo(Errors.PRODUCER_FENCED);
    assertThat(init(-1, (short) -1, 999L).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    markers.ackAll();
    assertThat(init(-1, (short) -1, 999L)).isEqualTo(InitProducerIdResult.ok(100L, (short) 2));
    assertThat(shard.addPartitions(ID, 100L, (short) 1, Set.of(TP)).join())
        .isEqualTo(Errors.PRODUCER_FENCED);
  }

  @Test
  void timedOutTransactionsAreAbortedAndTheProducerCanRecover() {
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    context.advance(29_000);
    assertThat(state().state()).isEqualTo(TransactionState.ONGOING);
    context.advance(2_000);
    assertThat(state().state()).isEqualTo(TransactionState.PREPARE_ABORT);
    markers.ackAll();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
    assertThat(state().producerEpoch()).isEqualTo((short) 1);
    assertThat(shard.endTxn(ID, 100L, (short) 0, false).join()).isEqualTo(Errors.PRODUCER_FENCED);
    // KIP-360: the producer passes its id and old epoch and gets the bumped epoch back.
    assertThat(init(100L, (short) 0, 555L)).isEqualTo(InitProducerIdResult.ok(100L, (short) 1));
    assertThat(init(100L, (short) 7, 555L).error()).isEqualTo(Errors.PRODUCER_FENCED);
  }

  @Test
  void mismatchedRequestsGetKafkasErrors() {
    assertThat(shard.addPartitions(ID, 1L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
    init(-1, (short) -1, 100L);
    assertThat(shard.addPartitions(ID, 1L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join()).isEqualTo(Errors.INVALID_TXN_STATE);
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(TP)))
        .containsEntry(TP, Errors.TRANSACTION_ABORTABLE);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(TP)))
        .containsEntry(TP, Errors.NONE);
  }

  @Test
  void uncommittedWritesMakeRequestsWait() {
    init(-1, (short) -1, 100L);
    context.holdCommits(true);
    CompletableFuture<Errors> add = shard.addPartitions(ID, 100L, (short) 0, Set.of(TP));
    assertThat(add).isNotDone();
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join())
        .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    context.releaseCommits();
    assertThat(add.join()).isEqualTo(Errors.NONE);
  }

  @Test
  void additionsArrivingDuringAnUncommittedAdditionWaitAndAreWrittenTogether() {
    // Given: an addition not yet committed
    init(-1, (short) -1, 100L);
    context.holdCommits(true);
    TopicPartition second = new TopicPartition("orders", 1);
    TopicPartition third = new TopicPartition("orders", 2);
    CompletableFuture<Errors> first = shard.addPartitions(ID, 100L, (short) 0, Set.of(TP));
    int recordsBefore = context.records().size();

    // When: two more arrive (as from the other leaders of a V2 transaction's first writes)
    CompletableFuture<Errors> secondAdd = shard.addPartitions(ID, 100L, (short) 0, Set.of(second));
    CompletableFuture<Errors> thirdAdd = shard.addPartitions(ID, 100L, (short) 0, Set.of(third));

    // Then: they wait instead of answering CONCURRENT_TRANSACTIONS, and are written in one record
    // once the first addition commits
    assertThat(secondAdd).isNotDone();
    assertThat(thirdAdd).isNotDone();
    assertThat(context.records()).hasSize(recordsBefore);
    context.releaseCommits();
    assertThat(first.join()).isEqualTo(Errors.NONE);
    assertThat(context.records()).hasSize(recordsBefore + 1);
    assertThat(secondAdd).isNotDone();
    context.holdCommits(false);
    context.releaseCommits();
    assertThat(secondAdd.join()).isEqualTo(Errors.NONE);
    assertThat(thirdAdd.join()).isEqualTo(Errors.NONE);
    assertThat(state().partitions()).containsExactlyInAnyOrder(TP, second, third);
  }

  @Test
  void anAdditionWaitingForAWriteThatFailsIsAnsweredRetriably() {
    init(-1, (short) -1, 100L);
    context.holdCommits(true);
    CompletableFuture<Errors> first = shard.addPartitions(ID, 100L, (short) 0, Set.of(TP));
    CompletableFuture<Errors> waiting =
        shard.addPartitions(ID, 100L, (short) 0, Set.of(new TopicPartition("orders", 1)));
    context.holdCommits(false);
    context.failWrites(new TimeoutException("not replicated in time"));
    context.failPendingCommits(new TimeoutException("not replicated in time"));

    assertThat(first.join()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    // The id stays pending until its state is written again: the waiting addition is not
    // written on top of a state that may not be durable.
    assertThat(waiting.join()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
  }

  @Test
  void anAdditionArrivingWhileAFailedWriteIsWrittenAgainWaitsForThatWrite() {
    // Given: an addition whose commit timed out; the store writes the id's state again later
    init(-1, (short) -1, 100L);
    context.holdCommits(true);
    CompletableFuture<Errors> first = shard.addPartitions(ID, 100L, (short) 0, Set.of(TP));
    context.holdCommits(false);
    context.failPendingCommits(new TimeoutException("not replicated in time"));
    assertThat(first.join()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);

    // When: another addition arrives meanwhile
    TopicPartition second = new TopicPartition("orders", 1);
    CompletableFuture<Errors> secondAdd = shard.addPartitions(ID, 100L, (short) 0, Set.of(second));

    // Then: it is answered once the state written again commits
    assertThat(secondAdd).isNotDone();
    context.advance(TxnStore.RECONFIRM_BACKOFF_MS);
    assertThat(secondAdd).isCompletedWithValue(Errors.NONE);
    assertThat(state().partitions()).containsExactlyInAnyOrder(TP, second);
  }

  @Test
  void anAdditionDuringTheEndOfTheTransactionIsAnsweredAtOnce() {
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    context.holdCommits(true);
    CompletableFuture<Errors> end = shard.endTxn(ID, 100L, (short) 0, true);

    assertThat(shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join())
        .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
    context.releaseCommits();
    assertThat(end.join()).isEqualTo(Errors.NONE);
  }

  @Test
  void verificationAnswersFromTheCommittedStateWhileAWriteIsPending() {
    // Given: TP is in the transaction, and the addition of a second partition is not committed
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    TopicPartition second = new TopicPartition("orders", 1);
    context.holdCommits(true);
    CompletableFuture<Errors> add = shard.addPartitions(ID, 100L, (short) 0, Set.of(second));

    // Then: a broker may append to TP at once, not yet to the second partition
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(TP, second)))
        .containsEntry(TP, Errors.NONE)
        .containsEntry(second, Errors.TRANSACTION_ABORTABLE);
    context.releaseCommits();
    assertThat(add.join()).isEqualTo(Errors.NONE);
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(second)))
        .containsEntry(second, Errors.NONE);
  }

  @Test
  void verificationOfAFencedOrUnknownProducerFailsEveryPartition() {
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();

    assertThat(shard.verifyPartitions(ID, 100L, (short) 1, Set.of(TP)))
        .containsEntry(TP, Errors.PRODUCER_FENCED);
    assertThat(shard.verifyPartitions(ID, 101L, (short) 0, Set.of(TP)))
        .containsEntry(TP, Errors.INVALID_PRODUCER_ID_MAPPING);
    assertThat(shard.verifyPartitions("unknown", 100L, (short) 0, Set.of(TP)))
        .containsEntry(TP, Errors.INVALID_PRODUCER_ID_MAPPING);
    shard.endTxn(ID, 100L, (short) 0, true).join();
    assertThat(shard.verifyPartitions(ID, 100L, (short) 0, Set.of(TP)))
        .as("markers pending")
        .containsEntry(TP, Errors.CONCURRENT_TRANSACTIONS);
  }

  /** Replays writes like the runtime, then fails their commit while told to. */
  private static final class FailingCommits implements ShardContext {
    private final FakeShardContext delegate;
    final List<CompletableFuture<Void>> held = new ArrayList<>();
    boolean failCommits;

    FailingCommits(FakeShardContext delegate) {
      this.delegate = delegate;
    }

    @Override
    public int partition() {
      return delegate.partition();
    }

    @Override
    public long nowMs() {
      return delegate.nowMs();
    }

    @Override
    public ShardTimer timer() {
      return delegate.timer();
    }

    @Override
    public Executor executor() {
      return delegate.executor();
    }

    @Override
    public MetadataImage image() {
      return delegate.image();
    }

    @Override
    public CompletableFuture<Void> write(List<CoordinatorRecord> records) {
      CompletableFuture<Void> committed = delegate.write(records);
      if (!failCommits) {
        return committed;
      }
      CompletableFuture<Void> failsLater = new CompletableFuture<>();
      held.add(failsLater);
      return failsLater;
    }

    /** The commits of the writes made while failing time out now. */
    void timeOutHeld() {
      List.copyOf(held).forEach(f -> f.completeExceptionally(new TimeoutException("slow")));
      held.clear();
    }
  }

  @Test
  void aPrepareWhoseCommitFailedIsConfirmedThenCompleted() {
    FailingCommits failing = new FailingCommits(context);
    shard = new TransactionCoordinatorShard(failing, CONFIG, markers);
    context.attach(shard);
    shard.onLoaded();
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();

    failing.failCommits = true;
    CompletableFuture<Errors> end = shard.endTxn(ID, 100L, (short) 0, true);
    failing.timeOutHeld();
    assertThat(end.join()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    // Replayed but not known to be committed: no markers, and the producer waits.
    assertThat(markers.sent).isEmpty();
    assertThat(shard.endTxn(ID, 100L, (short) 0, true).join())
        .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);

    failing.failCommits = false;
    context.advance(TxnStore.RECONFIRM_BACKOFF_MS);
    assertThat(markers.sent).hasSize(1);
    markers.ackAll();
    assertThat(state().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
  }

  @Test
  void exhaustedEpochTakesANewProducerId() {
    init(-1, (short) -1, 100L);
    TxnMetadata old = state();
    TxnMetadata nearEnd =
        new TxnMetadata(
            ID,
            100L,
            (short) (Short.MAX_VALUE - 1),
            (short) -1,
            old.timeoutMs(),
            TransactionState.EMPTY,
            Set.of(),
            -1L,
            old.lastUpdateTimestampMs());
    context.write(List.of(TxnRecords.record(nearEnd))).join();
    assertThat(init(-1, (short) -1, 200L)).isEqualTo(InitProducerIdResult.ok(200L, (short) 0));
  }

  @Test
  void loadingResumesMarkersOfPreparedTransactions() {
    init(-1, (short) -1, 100L);
    shard.addPartitions(ID, 100L, (short) 0, Set.of(TP)).join();
    shard.endTxn(ID, 100L, (short) 0, false).join();
    shard.onUnloaded();
    FakeMarkers resumed = new FakeMarkers();
    TransactionCoordinatorShard next = new TransactionCoordinatorShard(context, CONFIG, resumed);
    context.attach(next);
    context.replayInto(next);
    assertThat(resumed.sent).hasSize(1);
    assertThat(resumed.sent.get(0).result()).isEqualTo(TxnResult.ABORT);
    resumed.ackAll();
    assertThat(next.describe(ID).orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
  }

  @Test
  void idleIdsExpire() {
    init(-1, (short) -1, 100L);
    context.advance(3_600_000 + 10_000);
    assertThat(shard.describe(ID)).isEmpty();
    assertThat(context.records().get(context.records().size() - 1).isTombstone()).isTrue();
    TransactionCoordinatorShard reloaded =
        new TransactionCoordinatorShard(context, CONFIG, markers);
    context.replayInto(reloaded);
    assertThat(reloaded.describe(ID)).isEmpty();
  }
}
