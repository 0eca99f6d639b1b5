package io.brook.storage.producer;

import static io.brook.storage.producer.TestBatches.at;
import static io.brook.storage.producer.TestBatches.idempotent;
import static io.brook.storage.producer.TestBatches.marker;
import static io.brook.storage.producer.TestBatches.plain;
import static io.brook.storage.producer.TestBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateManagerTest {
  private static final long EXPIRATION_MS = 60_000;
  private static final long PID = 1000L;
  private static final short EPOCH = 3;

  @TempDir Path dir;

  private final ManualTime time = new ManualTime();
  private ProducerStateManager state;
  private FakeLog log;

  @BeforeEach
  void setUp() throws IOException {
    state = new ProducerStateManager(dir, time, EXPIRATION_MS);
    log = new FakeLog(state);
  }

  private MutableRecordBatch batch(int baseSequence, int count) {
    return idempotent(PID, EPOCH, baseSequence, count, time.milliseconds());
  }

  /** Appends batches with sequences 0-1, 2-3, ... : {@code n} batches of two records each. */
  private void appendInSequence(int n) {
    for (int i = 0; i < n; i++) {
      assertThat(log.appendFromClient(batch(2 * i, 2))).isEmpty();
    }
  }

  private static void assertFails(ThrowingCallable call, StorageError error) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.error()).isEqualTo(error));
  }

  private ProducerStateEntry entry() {
    return state.lastEntry(PID).orElseThrow();
  }

  @Test
  void tracksInSequenceAppends() {
    // Given
    log.replicate(plain(4, time.milliseconds()));

    // When
    appendInSequence(3);

    // Then
    ProducerStateEntry entry = entry();
    assertThat(entry.producerId()).isEqualTo(PID);
    assertThat(entry.producerEpoch()).isEqualTo(EPOCH);
    assertThat(entry.lastSequence()).isEqualTo(5);
    assertThat(entry.lastTimestamp()).isEqualTo(time.milliseconds());
    assertThat(entry.currentTxnFirstOffset()).isEmpty();
    assertThat(entry.coordinatorEpoch()).isEqualTo(ProducerStateEntry.NO_COORDINATOR_EPOCH);
    long ts = time.milliseconds();
    assertThat(entry.batches())
        .containsExactly(
            new BatchMetadata(0, 1, 4, 5, ts),
            new BatchMetadata(2, 3, 6, 7, ts),
            new BatchMetadata(4, 5, 8, 9, ts));
    assertThat(state.mapEndOffset()).isEqualTo(10);
    assertThat(state.activeProducers()).containsOnlyKeys(PID);
  }

  @Test
  void aRetryOfEachOfTheLastFiveBatchesReturnsItsOriginalOffsets() {
    // Given
    appendInSequence(7);
    List<BatchMetadata> cached = entry().batches();
    assertThat(cached).hasSize(ProducerStateManager.MAX_BATCHES_PER_PRODUCER);

    for (BatchMetadata original : cached) {
      // When
      int count = original.lastSeq() - original.firstSeq() + 1;
      Optional<BatchMetadata> duplicate = log.appendFromClient(batch(original.firstSeq(), count));

      // Then
      assertThat(duplicate).contains(original);
    }
    assertThat(log.logEndOffset).isEqualTo(14);
    assertThat(entry().batches()).isEqualTo(cached);
  }

  @Test
  void aRetryOfTheSixthNewestBatchIsOutOfOrder() {
    // Given: batches 0-1 .. 10-11; 0-1 fell out of the cache when 10-11 arrived.
    appendInSequence(6);
    assertThat(entry().batches().get(0).firstSeq()).isEqualTo(2);

    // When / Then
    assertFails(() -> log.appendFromClient(batch(0, 2)), StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.logEndOffset).isEqualTo(12);
  }

  @Test
  void aGapIsOutOfOrder() {
    // Given
    appendInSequence(2);

    // When / Then
    assertThatThrownBy(() -> log.appendFromClient(batch(5, 1)))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> {
              assertThat(e.error()).isEqualTo(StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
              assertThat(e.getMessage()).contains("producerId=1000", "expected sequence 4");
            });
    assertThat(entry().lastSequence()).isEqualTo(3);
  }

  @Test
  void anOverlappingBatchThatIsNotARetryIsOutOfOrder() {
    // Given
    appendInSequence(2);

    // When / Then
    assertFails(() -> log.appendFromClient(batch(2, 1)), StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }

  @Test
  void anOlderEpochIsFenced() {
    // Given
    appendInSequence(1);

    // When / Then
    assertFails(
        () -> log.appendFromClient(idempotent(PID, (short) (EPOCH - 1), 2, 1, 0)),
        StorageError.INVALID_PRODUCER_EPOCH);
    assertFails(
        () -> log.appendFromClient(idempotent(PID, (short) (EPOCH - 1), 0, 2, 0)),
        StorageError.INVALID_PRODUCER_EPOCH);
  }

  @Test
  void aBumpedEpochStartingAtSequenceZeroIsAcceptedAndReplacesTheBatches() {
    // Given
    appendInSequence(3);

    // When
    Optional<BatchMetadata> result =
        log.appendFromClient(idempotent(PID, (short) (EPOCH + 1), 0, 1, time.milliseconds()));

    // Then
    assertThat(result).isEmpty();
    assertThat(entry().producerEpoch()).isEqualTo((short) (EPOCH + 1));
    assertThat(entry().batches())
        .containsExactly(new BatchMetadata(0, 0, 6, 6, time.milliseconds()));
  }

  @Test
  void aBumpedEpochStartingAtSequenceFiveIsOutOfOrder() {
    // Given
    appendInSequence(2);

    // When / Then
    assertFails(
        () -> log.appendFromClient(idempotent(PID, (short) (EPOCH + 1), 5, 1, 0)),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(entry().producerEpoch()).isEqualTo(EPOCH);
  }

  @Test
  void anUnknownProducerAcceptsAnySequence() {
    // Given: no state, e.g. removed by retention or expiration.

    // When
    Optional<BatchMetadata> result = log.appendFromClient(batch(4242, 3));

    // Then
    assertThat(result).isEmpty();
    assertThat(entry().lastSequence()).isEqualTo(4244);
    assertThat(log.appendFromClient(batch(4245, 1))).isEmpty();
  }

  @Test
  void sequencesWrapFromIntegerMaxValueToZero() {
    // Given: a batch that ends exactly at Integer.MAX_VALUE.
    assertThat(log.appendFromClient(batch(Integer.MAX_VALUE - 1, 2))).isEmpty();
    assertThat(entry().lastSequence()).isEqualTo(Integer.MAX_VALUE);

    // When: the next batch starts at 0 and another spans nothing special.
    assertThat(log.appendFromClient(batch(0, 2))).isEmpty();

    // Then
    assertThat(entry().lastSequence()).isEqualTo(1);
    assertFails(
        () -> log.appendFromClient(batch(Integer.MAX_VALUE, 1)),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.appendFromClient(batch(Integer.MAX_VALUE - 1, 2)))
        .contains(entry().batches().get(0));
  }

  @Test
  void aBatchMaySpanTheWrapAndItsRetryIsStillRecognized() {
    // Given: sequences MAX-1, MAX, 0 in one batch.
    assertThat(log.appendFromClient(batch(Integer.MAX_VALUE - 1, 3))).isEmpty();
    BatchMetadata wrapped = entry().batches().get(0);
    assertThat(wrapped.firstSeq()).isEqualTo(Integer.MAX_VALUE - 1);
    assertThat(wrapped.lastSeq()).isEqualTo(0);

    // When / Then
    assertThat(log.appendFromClient(batch(1, 1))).isEmpty();
    assertThat(log.appendFromClient(batch(Integer.MAX_VALUE - 1, 3))).contains(wrapped);
  }

  @Test
  void twoBatchesInOneAppendAreValidatedAgainstEachOther() {
    // Given
    appendInSequence(1);

    // When: both are validated before either is recorded.
    ProducerStateManager.Append append = state.beginAppend(true);
    MutableRecordBatch first = batch(2, 2);
    MutableRecordBatch second = batch(4, 3);
    assertThat(append.checkDuplicateOrValidate(first)).isEmpty();
    assertThat(append.checkDuplicateOrValidate(second)).isEmpty();
    assertFails(
        () -> append.checkDuplicateOrValidate(batch(4, 1)),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    append.record(at(first, 2));
    append.record(at(second, 4));
    append.commit();

    // Then
    assertThat(entry().lastSequence()).isEqualTo(6);
    assertThat(entry().batches()).hasSize(3);
    assertThat(state.mapEndOffset()).isEqualTo(7);
  }

  @Test
  void aGapBetweenTwoBatchesOfOneAppendIsOutOfOrder() {
    // Given
    appendInSequence(1);
    ProducerStateManager.Append append = state.beginAppend(true);
    assertThat(append.checkDuplicateOrValidate(batch(2, 2))).isEmpty();

    // When / Then
    assertFails(
        () -> append.checkDuplicateOrValidate(batch(5, 1)),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }

  @Test
  void anEpochBumpEarlierInTheSameAppendCounts() {
    // Given
    appendInSequence(2);
    ProducerStateManager.Append append = state.beginAppend(true);
    assertThat(append.checkDuplicateOrValidate(idempotent(PID, (short) (EPOCH + 1), 0, 2, 0)))
        .isEmpty();

    // When / Then
    assertFails(
        () -> append.checkDuplicateOrValidate(batch(4, 1)), StorageError.INVALID_PRODUCER_EPOCH);
    assertThat(append.checkDuplicateOrValidate(idempotent(PID, (short) (EPOCH + 1), 2, 1, 0)))
        .isEmpty();
  }

  @Test
  void changesAreInvisibleUntilCommit() {
    // Given
    appendInSequence(1);
    ProducerStateManager.Append append = state.beginAppend(true);
    MutableRecordBatch next = batch(2, 2);
    append.checkDuplicateOrValidate(next);
    append.record(at(next, 2));
    MutableRecordBatch other = idempotent(7L, (short) 0, 0, 1, time.milliseconds());
    append.checkDuplicateOrValidate(other);
    append.record(at(other, 4));

    // When / Then
    assertThat(entry().lastSequence()).isEqualTo(1);
    assertThat(state.lastEntry(7L)).isEmpty();
    assertThat(state.activeProducers()).containsOnlyKeys(PID);
    assertThat(state.mapEndOffset()).isEqualTo(2);
    append.commit();
    assertThat(entry().lastSequence()).isEqualTo(3);
    assertThat(state.lastEntry(7L)).isPresent();
    assertThat(state.mapEndOffset()).isEqualTo(5);
    assertThatThrownBy(append::commit).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void batchesWithoutProducerIdAreIgnored() {
    // Given
    ProducerStateManager.Append append = state.beginAppend(true);
    MutableRecordBatch batch = plain(3, 0);

    // When
    Optional<BatchMetadata> result = append.checkDuplicateOrValidate(batch);
    append.record(at(batch, 0));
    append.commit();

    // Then
    assertThat(result).isEmpty();
    assertThat(state.activeProducers()).isEmpty();
    assertThat(state.mapEndOffset()).isEqualTo(3);
  }

  @Test
  void replicationTracksWithoutChecking() {
    // Given
    appendInSequence(2);

    // When: a gap and an older epoch, as the leader decided.
    log.replicate(batch(10, 1));
    log.replicate(idempotent(PID, (short) (EPOCH - 1), 0, 1, 0));

    // Then
    assertThat(entry().producerEpoch()).isEqualTo((short) (EPOCH - 1));
    assertThat(entry().lastSequence()).isEqualTo(0);
  }

  @Test
  void aTransactionIsOpenedByItsFirstBatchAndClosedByItsMarker() {
    // Given
    long ts = time.milliseconds();
    log.replicate(plain(2, ts));

    // When
    log.appendFromClient(transactional(PID, EPOCH, 0, 2, ts));
    log.appendFromClient(transactional(PID, EPOCH, 2, 1, ts));

    // Then
    assertThat(entry().currentTxnFirstOffset()).hasValue(2);

    // When
    log.replicate(marker(PID, EPOCH, ControlRecordType.COMMIT, 17, ts));

    // Then
    assertThat(entry().currentTxnFirstOffset()).isEmpty();
    assertThat(entry().coordinatorEpoch()).isEqualTo(17);
    assertThat(entry().batches()).extracting(BatchMetadata::firstSeq).containsExactly(0, 2);
    assertThat(log.appendFromClient(transactional(PID, EPOCH, 3, 1, ts))).isEmpty();
    assertThat(entry().currentTxnFirstOffset()).hasValue(6);
  }

  @Test
  void anAbortMarkerWithABumpedEpochClosesTheTransactionAndResetsSequences() {
    // Given
    long ts = time.milliseconds();
    log.appendFromClient(transactional(PID, EPOCH, 0, 2, ts));

    // When
    log.replicate(marker(PID, (short) (EPOCH + 1), ControlRecordType.ABORT, 4, ts));

    // Then
    assertThat(entry().currentTxnFirstOffset()).isEmpty();
    assertThat(entry().producerEpoch()).isEqualTo((short) (EPOCH + 1));
    assertThat(entry().batches()).isEmpty();
    assertThat(entry().lastSequence()).isEqualTo(-1);
    assertFails(
        () -> log.appendFromClient(transactional(PID, (short) (EPOCH + 1), 2, 1, ts)),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.appendFromClient(transactional(PID, (short) (EPOCH + 1), 0, 1, ts))).isEmpty();
  }

  @Test
  void aMarkerFromAnOlderEpochIsFencedOnClientAppends() {
    // Given
    appendInSequence(1);

    // When / Then
    assertFails(
        () -> log.appendFromClient(marker(PID, (short) (EPOCH - 1), ControlRecordType.ABORT, 1, 0)),
        StorageError.INVALID_PRODUCER_EPOCH);
  }

  @Test
  void removesExpiredProducersButNotOnesWithAnOpenTransaction() {
    // Given
    log.appendFromClient(idempotent(1L, (short) 0, 0, 1, time.milliseconds()));
    log.appendFromClient(transactional(2L, (short) 0, 0, 1, time.milliseconds()));
    time.advance(10_000);
    log.appendFromClient(idempotent(3L, (short) 0, 0, 1, time.milliseconds()));

    // When
    time.advance(EXPIRATION_MS - 10_000 - 1);
    state.removeExpiredProducers(time.milliseconds());

    // Then
    assertThat(state.activeProducers()).containsOnlyKeys(1L, 2L, 3L);

    // When
    time.advance(1);
    state.removeExpiredProducers(time.milliseconds());

    // Then
    assertThat(state.activeProducers()).containsOnlyKeys(2L, 3L);
    assertThat(log.appendFromClient(idempotent(1L, (short) 0, 77, 1, time.milliseconds())))
        .isEmpty();
  }

  @Test
  void snapshotRoundTripPreservesEverything() throws IOException {
    // Given
    long ts = time.milliseconds();
    appendInSequence(7);
    log.appendFromClient(transactional(2L, (short) 9, 100, 2, ts));
    log.replicate(marker(3L, (short) 1, ControlRecordType.COMMIT, 12, ts));
    var before = state.activeProducers();

    // When
    state.takeSnapshot();
    ProducerStateManager reopened = new ProducerStateManager(dir, time, EXPIRATION_MS);
    reopened.truncateAndReload(0, log.logEndOffset);

    // Then
    assertThat(reopened.snapshotOffsets()).containsExactly(log.logEndOffset);
    assertThat(dir.resolve("00000000000000000017.snapshot")).exists();
    assertThat(reopened.mapEndOffset()).isEqualTo(17);
    assertThat(reopened.activeProducers()).isEqualTo(before);
    assertThat(reopened.lastEntry(PID).orElseThrow().batches()).hasSize(5);
    assertThat(reopened.lastEntry(2L).orElseThrow().currentTxnFirstOffset()).hasValue(14);
    assertThat(reopened.lastEntry(3L).orElseThrow().coordinatorEpoch()).isEqualTo(12);
  }

  @Test
  void takeSnapshotIsANoOpWhenTheFileExists() throws IOException {
    // Given
    appendInSequence(1);
    state.takeSnapshot();
    Path file = dir.resolve("00000000000000000002.snapshot");
    byte[] written = Files.readAllBytes(file);

    // When
    state.removeExpiredProducers(Long.MAX_VALUE);
    state.takeSnapshot();

    // Then
    assertThat(Files.readAllBytes(file)).isEqualTo(written);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void truncateAndReloadDeletesSnapshotsAboveTheLogEndAndLoadsTheNewestRemaining()
      throws IOException {
    // Given: snapshots at 4, 8 and 12.
    for (int i = 0; i < 3; i++) {
      log.appendFromClient(batch(4 * i, 2));
      log.appendFromClient(batch(4 * i + 2, 2));
      state.takeSnapshot();
    }
    assertThat(state.snapshotOffsets()).containsExactly(4L, 8L, 12L);

    // When: the log is truncated to 10 (batch 5 starts there).
    log.truncateToBatch(5);

    // Then
    assertThat(state.snapshotOffsets()).containsExactly(4L, 8L);
    assertThat(dir.resolve("00000000000000000012.snapshot")).doesNotExist();
    assertThat(state.latestSnapshotOffset()).hasValue(8);
    assertThat(state.oldestSnapshotOffset()).hasValue(4);
    assertThat(state.mapEndOffset()).isEqualTo(10);
    assertThat(entry().lastSequence()).isEqualTo(9);
    assertThat(entry().batches())
        .extracting(BatchMetadata::firstOffset)
        .containsExactly(0L, 2L, 4L, 6L, 8L);
  }

  @Test
  void truncateAndReloadDeletesSnapshotsBelowTheLogStart() throws IOException {
    // Given
    appendInSequence(2);
    state.takeSnapshot();
    log.appendFromClient(batch(4, 2));
    state.takeSnapshot();

    // When
    state.truncateAndReload(5, 6);

    // Then
    assertThat(state.snapshotOffsets()).containsExactly(6L);
    assertThat(state.mapEndOffset()).isEqualTo(6);
  }

  @Test
  void truncateAndReloadWithoutSnapshotsStartsEmptyAtTheLogStart() throws IOException {
    // Given
    appendInSequence(3);

    // When
    state.truncateAndReload(2, 6);

    // Then
    assertThat(state.activeProducers()).isEmpty();
    assertThat(state.mapEndOffset()).isEqualTo(2);
  }

  @Test
  void reloadReplaysTheLogTailAfterTheSnapshot() throws IOException {
    // Given
    appendInSequence(2);
    state.takeSnapshot();
    log.appendFromClient(batch(4, 2));
    log.appendFromClient(batch(6, 2));
    var before = state.activeProducers();

    // When
    log.reload();

    // Then
    assertThat(state.activeProducers()).isEqualTo(before);
    assertThat(state.mapEndOffset()).isEqualTo(8);
  }

  @Test
  void expiredProducersAreDroppedOnLoad() throws IOException {
    // Given
    log.appendFromClient(idempotent(1L, (short) 0, 0, 1, time.milliseconds()));
    time.advance(EXPIRATION_MS / 2);
    log.appendFromClient(idempotent(2L, (short) 0, 0, 1, time.milliseconds()));
    state.takeSnapshot();

    // When
    time.advance(EXPIRATION_MS / 2);
    state.truncateAndReload(0, log.logEndOffset);

    // Then
    assertThat(state.activeProducers()).containsOnlyKeys(2L);
  }

  @Test
  void truncateFullyDeletesEverything() throws IOException {
    // Given
    appendInSequence(2);
    state.takeSnapshot();

    // When
    state.truncateFullyAndStartAt(100);

    // Then
    assertThat(state.activeProducers()).isEmpty();
    assertThat(state.snapshotOffsets()).isEmpty();
    assertThat(state.mapEndOffset()).isEqualTo(100);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void deleteSnapshotsBeforeKeepsTheOffsetItself() throws IOException {
    // Given
    for (int i = 0; i < 3; i++) {
      log.appendFromClient(batch(2 * i, 2));
      state.takeSnapshot();
    }

    // When
    state.deleteSnapshotsBefore(4);

    // Then
    assertThat(state.snapshotOffsets()).containsExactly(4L, 6L);
    assertThat(dir.resolve("00000000000000000002.snapshot")).doesNotExist();
  }

  @Test
  void constructorListsSnapshotsAndDeletesUnfinishedOnes() throws IOException {
    // Given
    appendInSequence(1);
    state.takeSnapshot();
    Files.writeString(dir.resolve("00000000000000000009.snapshot.tmp"), "partial");
    Files.writeString(dir.resolve("00000000000000000000.log"), "");
    Files.writeString(dir.resolve("notes.tmp"), "");

    // When
    ProducerStateManager reopened = new ProducerStateManager(dir, time, EXPIRATION_MS);

    // Then
    assertThat(reopened.snapshotOffsets()).containsExactly(2L);
    assertThat(reopened.activeProducers()).isEmpty();
    assertThat(dir.resolve("00000000000000000009.snapshot.tmp")).doesNotExist();
    assertThat(dir.resolve("notes.tmp")).exists();
  }
}
