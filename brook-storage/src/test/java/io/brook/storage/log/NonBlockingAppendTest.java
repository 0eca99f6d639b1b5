package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PartitionLog#appendAsLeaderWithoutBlocking}: writes to the page cache only, and refuses
 * (appending nothing) whatever would wait for the disk.
 */
class NonBlockingAppendTest {
  @TempDir Path root;

  @Test
  void appendsThatOnlyWriteArePerformed() {
    // Given a log whose epoch 0 has started
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(2, 1L), 0);

    // When
    LogAppendInfo info = log.appendAsLeaderWithoutBlocking(Batches.records(3, 1L), 0);

    // Then
    assertThat(info).isNotNull();
    assertThat(info.firstOffset()).isEqualTo(2);
    assertThat(log.logEndOffset()).isEqualTo(5);
  }

  @Test
  void anAppendThatWouldRollIsRefusedAndChangesNothing() {
    // Given a log whose active segment cannot take another batch of this size
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(1024).build()).open();
    log.appendAsLeader(Batches.sized(1, 700, 1L, 1), 0);
    MemoryRecords next = Batches.sized(1, 700, 1L, 2);

    // When
    LogAppendInfo refused = log.appendAsLeaderWithoutBlocking(next, 0);

    // Then nothing changed; the blocking append then rolls
    assertThat(refused).isNull();
    assertThat(log.logEndOffset()).isEqualTo(1);
    assertThat(log.segments()).hasSize(1);
    assertThat(log.appendAsLeader(next, 0).firstOffset()).isEqualTo(1);
    assertThat(log.segments()).hasSize(2);
  }

  @Test
  void anAppendThatWouldFlushForFlushMessagesIsRefused() {
    // Given a log that fsyncs every 5 records, 3 of them appended
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().flushMessages(5).build()).open();
    log.appendAsLeader(Batches.records(3, 1L), 0);

    // When
    LogAppendInfo fits = log.appendAsLeaderWithoutBlocking(Batches.records(1, 1L), 0);
    LogAppendInfo refused = log.appendAsLeaderWithoutBlocking(Batches.records(1, 1L), 0);

    // Then the fourth record needs no flush; the fifth would
    assertThat(fits).isNotNull();
    assertThat(refused).isNull();
    assertThat(log.recoveryPoint()).isZero();
    assertThat(log.logEndOffset()).isEqualTo(4);
  }

  @Test
  void theFirstAppendOfANewLeaderEpochIsRefused() {
    // Given a log written in epoch 0
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(1, 1L), 0);

    // When epoch 1 appends (it must write the leader-epoch checkpoint)
    LogAppendInfo refused = log.appendAsLeaderWithoutBlocking(Batches.records(1, 1L), 1);

    // Then
    assertThat(refused).isNull();
    assertThat(log.leaderEpochCache().latestEpoch()).hasValue(0);
  }

  @Test
  void anAppendFindingARollInProgressHandsOffInsteadOfWaiting() throws Exception {
    // Given a roll stalled on the disk, holding the log's lock
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(1, 1L), 0);
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    DiskStallHook.install(
        (tp, step) -> {
          stalled.countDown();
          awaitQuietly(release);
        });
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<?> roll = threads.submit(log::roll);
      assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();

      // When an append that needs no disk work of its own arrives meanwhile (on another thread,
      // so that a wait for the lock fails the test instead of hanging it)
      LogAppendInfo refused =
          threads
              .submit(() -> log.appendAsLeaderWithoutBlocking(Batches.records(1, 1L), 0))
              .get(30, TimeUnit.SECONDS);

      // Then it is refused at once rather than waiting for the roll's lock
      assertThat(refused).isNull();
      release.countDown();
      roll.get(30, TimeUnit.SECONDS);
      assertThat(log.appendAsLeaderWithoutBlocking(Batches.records(1, 1L), 0)).isNotNull();
    } finally {
      DiskStallHook.install(null);
      release.countDown();
      threads.shutdownNow();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
