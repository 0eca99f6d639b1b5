package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flush that follows a roll covers only the rolled segment: the records appended after the roll
 * keep counting towards {@code flush.messages} and keep their age for {@code flush.ms}.
 */
class LogFlushAccountingTest {
  @TempDir Path root;

  private final ManualTime time = new ManualTime();

  /** Post-roll flushes queue here instead of running, so a test decides when they happen. */
  private final Queue<Runnable> background = new ArrayDeque<>();

  private PartitionLog open(LogConfig config) throws IOException {
    return PartitionLog.open(
        root.resolve("orders-0"),
        config,
        LogOpenOptions.defaults(LogFixture.TP, time).withBackground(background::add));
  }

  private void runBackground() {
    Runnable task;
    while ((task = background.poll()) != null) {
      task.run();
    }
  }

  @Test
  void reportsTheTimeOfEachFlushThatWroteSomething() throws IOException {
    // Given a log whose flush times are listened to
    List<Long> flushNanos = new ArrayList<>();
    LogOpenOptions options = LogOpenOptions.defaults(LogFixture.TP, time);
    options.flushStats().listen(flushNanos::add);
    PartitionLog log =
        PartitionLog.open(root.resolve("orders-0"), LogConfig.builder().build(), options);

    // When it flushes with nothing to write, then with three records appended
    log.flush();
    List<Long> beforeAppend = List.copyOf(flushNanos);
    log.appendAsLeader(Batches.records(3, time.milliseconds()), 0);
    log.flush();

    // Then only the second flush was reported
    assertThat(beforeAppend).isEmpty();
    assertThat(flushNanos).hasSize(1).allMatch(nanos -> nanos >= 0);
    log.close();
  }

  @Test
  void flushAfterRollKeepsCountingRecordsAppendedAfterTheRoll() throws IOException {
    // Given a log that flushes every 10 records, with 4 records appended after a roll whose
    // flush has not run yet
    PartitionLog log = open(LogConfig.builder().flushMessages(10).build());
    log.appendAsLeader(Batches.records(3, time.milliseconds()), 0);
    log.roll();
    log.appendAsLeader(Batches.records(4, time.milliseconds()), 0);

    // When the roll's flush runs, then 6 more records arrive
    runBackground();
    long unflushedAfterRollFlush = log.unflushedMessages();
    log.appendAsLeader(Batches.records(6, time.milliseconds()), 0);

    // Then the flush covered only the rolled segment, and the tenth record after the roll
    // triggered flush.messages
    assertThat(unflushedAfterRollFlush).isEqualTo(4);
    assertThat(log.recoveryPoint()).isEqualTo(13);
    assertThat(log.unflushedMessages()).isZero();
    log.close();
  }

  @Test
  void flushAfterRollKeepsTheAgeOfRecordsAppendedAfterTheRoll() throws IOException {
    // Given a log with flush.ms=1000, and records appended right after a roll
    PartitionLog log = open(LogConfig.builder().flushMs(1_000).build());
    log.appendAsLeader(Batches.records(3, time.milliseconds()), 0);
    log.roll();
    log.appendAsLeader(Batches.records(4, time.milliseconds()), 0);

    // When the roll's flush runs 600 ms later, and the periodic check runs 400 ms after that
    time.advance(600);
    runBackground();
    long recoveryPointAfterRollFlush = log.recoveryPoint();
    time.advance(400);
    log.flushIfDue();

    // Then the records after the roll, now 1000 ms old, were flushed by the periodic check
    assertThat(recoveryPointAfterRollFlush).isEqualTo(3);
    assertThat(log.recoveryPoint()).isEqualTo(7);
    log.close();
  }

  @Test
  void unflushedDataYoungerThanFlushMsWaits() throws IOException {
    // Given records appended 999 ms ago into a log with flush.ms=1000
    PartitionLog log = open(LogConfig.builder().flushMs(1_000).build());
    log.appendAsLeader(Batches.records(3, time.milliseconds()), 0);
    time.advance(999);

    // When the periodic check runs
    log.flushIfDue();

    // Then nothing is flushed yet
    assertThat(log.recoveryPoint()).isZero();
    assertThat(log.unflushedMessages()).isEqualTo(3);
    log.close();
  }
}
