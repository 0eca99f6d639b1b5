package io.brook.storage.producer;

import static io.brook.storage.producer.TestBatches.marker;
import static io.brook.storage.producer.TestBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.testing.ManualTime;
import java.nio.file.Path;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KIP-890 verification guards: which client appends may open a transaction. */
class TransactionVerificationTest {
  private static final long PID = 7L;
  private static final short EPOCH = 3;

  @TempDir Path dir;

  private final ManualTime time = new ManualTime();

  private ProducerStateManager state(long expirationMs) throws Exception {
    return new ProducerStateManager(dir, time, expirationMs);
  }

  @Test
  void aFirstTransactionalBatchWithoutTheProducersGuardIsRefused() throws Exception {
    FakeLog log = new FakeLog(state(Long.MAX_VALUE));
    long now = time.milliseconds();

    assertThatThrownBy(
            () ->
                log.appendFromClient(
                    VerificationGuard.SENTINEL, transactional(PID, EPOCH, 0, 1, now)))
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.INVALID_TXN_STATE);
    assertThat(log.logEndOffset).isZero();
  }

  @Test
  void theGuardOpensTheTransactionAndIsDroppedByTheAppend() throws Exception {
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();

    VerificationGuard guard = state.maybeStartVerification(PID, EPOCH);
    assertThat(guard).isNotSameAs(VerificationGuard.SENTINEL);
    assertThat(state.maybeStartVerification(PID, EPOCH)).as("a retry shares it").isSameAs(guard);
    log.appendFromClient(guard, transactional(PID, EPOCH, 0, 1, now));

    assertThat(state.isVerifying(PID)).isFalse();
    assertThat(state.maybeStartVerification(PID, EPOCH))
        .as("the transaction is open here: nothing to verify")
        .isSameAs(VerificationGuard.SENTINEL);
    log.appendFromClient(VerificationGuard.SENTINEL, transactional(PID, EPOCH, 1, 1, now));
    assertThat(log.logEndOffset).isEqualTo(2);
  }

  @Test
  void aMarkerBetweenVerificationAndAppendInvalidatesTheGuard() throws Exception {
    // Given: the leader verified producer 7's transaction, then the transaction's marker (an abort
    // by the coordinator on timeout, say) was written before the verified batch
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    VerificationGuard guard = state.maybeStartVerification(PID, EPOCH);
    log.replicate(marker(PID, EPOCH, ControlRecordType.ABORT, 0, now));

    // Then: the late batch would open a transaction nobody ends
    assertThatThrownBy(() -> log.appendFromClient(guard, transactional(PID, EPOCH, 0, 1, now)))
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.INVALID_TXN_STATE);
    assertThat(log.logEndOffset).as("only the marker").isEqualTo(1);
  }

  @Test
  void aV2MarkerKeepsTheGuardOfTheNextTransactionAtItsEpoch() throws Exception {
    // Given: a V2 transaction at epoch 3 is open; the coordinator ended it (bumping the epoch to 4)
    // and the producer's first batch of its next transaction, at epoch 4, is being verified when
    // the commit marker (epoch 4) is written
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    log.appendFromClient(
        state.maybeStartVerification(PID, EPOCH), transactional(PID, EPOCH, 0, 1, now));
    short next = (short) (EPOCH + 1);
    VerificationGuard guard = state.maybeStartVerification(PID, next);
    log.writeMarkers((short) 2, marker(PID, next, ControlRecordType.COMMIT, 0, now));

    // Then: the verified batch opens the next transaction
    log.appendFromClient(guard, transactional(PID, next, 0, 1, now));
    assertThat(log.logEndOffset).isEqualTo(3);
    assertThat(state.isVerifying(PID)).isFalse();
  }

  @Test
  void aGuardTakenWhileAV2MarkerIsBeingWrittenIsJudgedAtCommit() throws Exception {
    // Given: a V2 transaction at epoch 3 is open; its commit marker (epoch 4) is recorded, and
    // before the append commits, the leader takes a guard for the next transaction's first batch
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    log.appendFromClient(
        state.maybeStartVerification(PID, EPOCH), transactional(PID, EPOCH, 0, 1, now));
    short next = (short) (EPOCH + 1);
    ProducerStateManager.Append append =
        state.beginAppend(true, VerificationGuard.NOT_CHECKED, (short) 2);
    var marker = marker(PID, next, ControlRecordType.COMMIT, 0, now);
    append.checkDuplicateOrValidate(marker);
    TestBatches.at(marker, 1);
    append.record(marker);
    VerificationGuard guard = state.maybeStartVerification(PID, next, 0, true);

    // When
    append.commit();

    // Then: the guard survives, and the next transaction's first batch opens with it
    assertThat(state.isVerifying(PID)).isTrue();
    log.logEndOffset = 2;
    log.appendFromClient(guard, transactional(PID, next, 0, 1, now));
    assertThat(log.logEndOffset).isEqualTo(3);
  }

  @Test
  void aV2MarkerDropsAGuardAtAnotherEpoch() throws Exception {
    // Given: the guard was asked for at epoch 4 and the coordinator aborted that transaction, so
    // its marker carries epoch 5
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    short verifiedAt = (short) (EPOCH + 1);
    VerificationGuard guard = state.maybeStartVerification(PID, verifiedAt);
    log.writeMarkers(
        (short) 2, marker(PID, (short) (verifiedAt + 1), ControlRecordType.ABORT, 0, now));

    assertThat(state.isVerifying(PID)).isFalse();
    assertThat(state.maybeStartVerification(PID, verifiedAt)).isNotSameAs(guard);
  }

  @Test
  void aLaterBatchCannotOvertakeTheFirstBatchWhileItIsVerified() throws Exception {
    // Given: the producer has no state on this partition; its first batch (sequences 0-4) waits for
    // the coordinator, and its next batch (5-9) arrives meanwhile, sharing the guard
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    VerificationGuard guard = state.maybeStartVerification(PID, EPOCH, 0, false);
    assertThat(state.maybeStartVerification(PID, EPOCH, 5, false)).isSameAs(guard);

    // Then: the second cannot be appended first (nothing would let the first in afterwards)
    assertThatThrownBy(() -> log.appendFromClient(guard, transactional(PID, EPOCH, 5, 5, now)))
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    log.appendFromClient(guard, transactional(PID, EPOCH, 0, 5, now));
    log.appendFromClient(VerificationGuard.SENTINEL, transactional(PID, EPOCH, 5, 5, now));
    assertThat(log.logEndOffset).isEqualTo(10);
  }

  @Test
  void aV2ProducersFirstBatchWithoutStateHereStartsAtSequenceZero() throws Exception {
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    VerificationGuard guard = state.maybeStartVerification(PID, EPOCH, 3, true);

    assertThatThrownBy(() -> log.appendFromClient(guard, transactional(PID, EPOCH, 3, 1, now)))
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }

  @Test
  void anAppendWithTheSentinelFailsOnceTheTransactionClosed() throws Exception {
    ProducerStateManager state = state(Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    log.appendFromClient(
        state.maybeStartVerification(PID, EPOCH), transactional(PID, EPOCH, 0, 1, now));
    VerificationGuard sentinel = state.maybeStartVerification(PID, EPOCH);
    log.replicate(marker(PID, EPOCH, ControlRecordType.COMMIT, 0, now));

    assertThatThrownBy(() -> log.appendFromClient(sentinel, transactional(PID, EPOCH, 1, 1, now)))
        .isInstanceOf(StorageException.class);
  }

  @Test
  void appendsThatAreNotCheckedKeepTheOldBehaviour() throws Exception {
    FakeLog log = new FakeLog(state(Long.MAX_VALUE));
    log.appendFromClient(transactional(PID, EPOCH, 0, 1, time.milliseconds()));
    assertThat(log.logEndOffset).isEqualTo(1);
  }

  @Test
  void anUnusedGuardExpiresWithTheProducerIdExpiration() throws Exception {
    ProducerStateManager state = state(1_000);
    VerificationGuard guard = state.maybeStartVerification(PID, EPOCH);

    time.sleep(1_000);
    state.removeExpiredProducers(time.milliseconds());

    assertThat(state.isVerifying(PID)).isFalse();
    assertThat(state.maybeStartVerification(PID, EPOCH)).isNotSameAs(guard);
  }
}
