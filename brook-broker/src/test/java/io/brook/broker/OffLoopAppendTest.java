package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.Partition;
import io.brook.storage.log.LogAppendInfo;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Partition#appendAsLeader(MemoryRecords, short, DiskWork)}: appends that would roll go to
 * the disk pool, and a partition's later appends queue behind them instead of overtaking them.
 */
class OffLoopAppendTest {
  private static final TopicPartition TP = new TopicPartition("rolling", 0);

  /** segment.ms of the topic; a batch whose timestamp is this far past the first one rolls. */
  private static final long SEGMENT_MS = 60_000;

  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path root;

  private BrokerFixture broker;
  private Partition partition;
  private final CountDownLatch poolBusy = new CountDownLatch(1);
  private final CountDownLatch freePool = new CountDownLatch(1);

  @BeforeEach
  void setUp() throws Exception {
    broker = new BrokerFixture(root);
    broker.quorum.createTopic(
        TP.topic(), 1, BrokerFixture.BROKER_ID, Map.of("segment.ms", "" + SEGMENT_MS));
    partition = broker.replicaManager.partitionOrThrow(TP);
    // The first append starts the leader epoch; from here on, only rolls need the disk.
    partition.appendAsLeader(batch(T0), (short) 1);
  }

  @AfterEach
  void tearDown() throws Exception {
    freePool.countDown();
    broker.close();
  }

  @Test
  void aLaterAppendQueuesBehindAHandedOffRollInsteadOfOvertakingIt() throws Exception {
    // Given a disk pool whose one thread is busy, and an append that rolls handed to it
    try (DiskWork disk = DiskWork.start(1, 8)) {
      occupy(disk);
      CompletableFuture<LogAppendInfo> rolling =
          partition.appendAsLeader(batch(T0 + 2 * SEGMENT_MS), (short) 1, disk);

      // When an append that needs no disk work of its own comes next
      CompletableFuture<LogAppendInfo> next = partition.appendAsLeader(batch(T0), (short) 1, disk);

      // Then it waits for the roll, and both land in arrival order
      assertThat(rolling).isNotDone();
      assertThat(next).isNotDone();
      freePool.countDown();
      assertThat(rolling.get(30, TimeUnit.SECONDS).firstOffset()).isEqualTo(1);
      assertThat(next.get(30, TimeUnit.SECONDS).firstOffset()).isEqualTo(2);
      assertThat(broker.logManager.getLog(TP).orElseThrow().segments()).hasSize(2);
    }
  }

  @Test
  void appendsThatOnlyWriteStayInline() throws Exception {
    // Given a disk pool whose one thread is busy
    try (DiskWork disk = DiskWork.start(1, 8)) {
      occupy(disk);

      // When an append that needs no disk work arrives
      CompletableFuture<LogAppendInfo> appended =
          partition.appendAsLeader(batch(T0), (short) 1, disk);

      // Then it is done at once, on the caller
      assertThat(appended).isCompleted();
      assertThat(appended.join().firstOffset()).isEqualTo(1);
      freePool.countDown();
    }
  }

  @Test
  void aFullPoolRefusesWithARetriableError() throws Exception {
    // Given a pool admitting two tasks, one running and one queued
    try (DiskWork disk = DiskWork.start(1, 2)) {
      occupy(disk);
      CompletableFuture<LogAppendInfo> queued =
          partition.appendAsLeader(batch(T0 + 2 * SEGMENT_MS), (short) 1, disk);

      // When one more append must wait for the disk
      CompletableFuture<LogAppendInfo> refused =
          partition.appendAsLeader(batch(T0 + 2 * SEGMENT_MS), (short) 1, disk);

      // Then it fails at once with REQUEST_TIMED_OUT's exception, which producers retry
      assertThat(refused)
          .failsWithin(0, TimeUnit.SECONDS)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(TimeoutException.class);
      freePool.countDown();
      assertThat(queued.get(30, TimeUnit.SECONDS).firstOffset()).isEqualTo(1);
    }
  }

  @Test
  void aStoppedPoolFailsHandedOffAppendsInsteadOfStrandingThem() {
    // Given a pool that was shut down (the broker is stopping)
    DiskWork disk = DiskWork.start(1, 8);
    disk.close();

    // When two appends that roll arrive
    CompletableFuture<LogAppendInfo> first =
        partition.appendAsLeader(batch(T0 + 2 * SEGMENT_MS), (short) 1, disk);
    CompletableFuture<LogAppendInfo> second =
        partition.appendAsLeader(batch(T0 + 2 * SEGMENT_MS), (short) 1, disk);

    // Then both fail at once, and an append that needs no disk still runs inline
    assertThat(first).isCompletedExceptionally();
    assertThat(second).isCompletedExceptionally();
    assertThat(partition.appendAsLeader(batch(T0), (short) 1, disk).join().firstOffset())
        .isEqualTo(1);
  }

  /** Keeps the pool's only thread busy until {@link #freePool} opens. */
  private void occupy(DiskWork disk) throws InterruptedException {
    disk.submit(
        () -> {
          poolBusy.countDown();
          try {
            freePool.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return null;
        });
    assertThat(poolBusy.await(30, TimeUnit.SECONDS)).isTrue();
  }

  private static MemoryRecords batch(long timestamp) {
    return MemoryRecords.withRecords(
        Compression.NONE, new SimpleRecord(timestamp, "k".getBytes(), "v".getBytes()));
  }
}
