package io.brook.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.share.SharePartition.RecordState;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The share-partition state machine, with an injected clock. */
class SharePartitionTest {
  private static final byte GAP = 0;
  private static final byte ACCEPT = 1;
  private static final byte RELEASE = 2;
  private static final byte REJECT = 3;
  private static final byte RENEW = 4;

  private final AtomicLong clock = new AtomicLong(1_000);

  private SharePartition partition(long start, int maxLocks, int deliveryLimit) {
    return new SharePartition(
        start, new ShareLimits(30_000, deliveryLimit, maxLocks, 10, 45_000, false), clock::get);
  }

  @Test
  void acquiresAvailableRecordsAsOneRangeAndLocksThemToTheMember() {
    SharePartition p = partition(10, 100, 5);

    assertThat(p.nextFetchOffset()).isEqualTo(10);
    assertThat(p.acquire("a", 10, 19, 500)).containsExactly(new AcquiredRange(10, 19, (short) 1));
    assertThat(p.state(15)).isEqualTo(RecordState.ACQUIRED);
    assertThat(p.endOffset()).isEqualTo(20);
    assertThat(p.nextFetchOffset()).isEqualTo(20);
    // Another member gets none of them.
    assertThat(p.acquire("b", 10, 19, 500)).isEmpty();
    assertThat(p.acknowledge("b", 10, 10, List.of(ACCEPT))).isEqualTo(Errors.INVALID_RECORD_STATE);
  }

  @Test
  void acquisitionStopsAtMaxRecordsAndAtTheWindowLimit() {
    SharePartition p = partition(0, 8, 5);

    assertThat(p.acquire("a", 0, 99, 3)).containsExactly(new AcquiredRange(0, 2, (short) 1));
    assertThat(p.acquire("b", 0, 99, 500)).containsExactly(new AcquiredRange(3, 7, (short) 1));
    // The window is full: nothing more until the start offset moves.
    assertThat(p.nextFetchOffset()).isEqualTo(-1);
    assertThat(p.hasAvailable(1_000)).isFalse();
    assertThat(p.acknowledge("a", 0, 2, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(p.startOffset()).isEqualTo(3);
    assertThat(p.nextFetchOffset()).isEqualTo(8);
    assertThat(p.acquire("a", 8, 99, 500)).containsExactly(new AcquiredRange(8, 10, (short) 1));
  }

  @Test
  void acceptAndRejectAreFinalAndTheStartOffsetPassesTheDonePrefix() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 9, 500);

    assertThat(p.acknowledge("a", 2, 4, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(p.startOffset()).isEqualTo(0); // 0 and 1 are still acquired
    assertThat(p.acknowledge("a", 0, 1, List.of(REJECT, GAP))).isEqualTo(Errors.NONE);
    assertThat(p.startOffset()).isEqualTo(5);
    assertThat(p.state(1)).isEqualTo(RecordState.ARCHIVED);
    // Acknowledging again is refused and changes nothing.
    assertThat(p.acknowledge("a", 4, 5, List.of(ACCEPT))).isEqualTo(Errors.INVALID_RECORD_STATE);
    assertThat(p.state(5)).isEqualTo(RecordState.ACQUIRED);
  }

  @Test
  void perOffsetTypesMustMatchTheRange() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 9, 500);

    assertThat(p.acknowledge("a", 0, 2, List.of(ACCEPT, ACCEPT))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(p.acknowledge("a", 0, 0, List.of((byte) 9))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(p.acknowledge("a", 5, 4, List.of(ACCEPT))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(p.acquiredCount()).isEqualTo(10);
  }

  @Test
  void releasedRecordsAreDeliveredAgainWithAHigherCountAndArchivedAtTheLimit() {
    SharePartition p = partition(0, 100, 3);
    p.acquire("a", 0, 4, 500);

    assertThat(p.acknowledge("a", 0, 0, List.of(RELEASE))).isEqualTo(Errors.NONE);
    assertThat(p.state(0)).isEqualTo(RecordState.AVAILABLE);
    assertThat(p.nextFetchOffset()).isEqualTo(0);
    assertThat(p.acquire("b", 0, 0, 500)).containsExactly(new AcquiredRange(0, 0, (short) 2));
    assertThat(p.acknowledge("b", 0, 0, List.of(RELEASE))).isEqualTo(Errors.NONE);
    assertThat(p.acquire("c", 0, 0, 500)).containsExactly(new AcquiredRange(0, 0, (short) 3));
    // The third delivery was the last: released again, it is archived.
    assertThat(p.acknowledge("c", 0, 0, List.of(RELEASE))).isEqualTo(Errors.NONE);
    assertThat(p.state(0)).isEqualTo(RecordState.ARCHIVED);
    // Records behind it keep flowing.
    assertThat(p.acknowledge("a", 1, 4, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(p.startOffset()).isEqualTo(5);
    assertThat(p.nextFetchOffset()).isEqualTo(5);
  }

  @Test
  void anExpiredLockMakesRecordsAvailableAgainAndRenewKeepsThem() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 3, 500);

    clock.addAndGet(29_999);
    assertThat(p.acknowledge("a", 0, 1, List.of(RENEW))).isEqualTo(Errors.NONE);
    assertThat(p.expireLocks()).isZero();
    clock.addAndGet(1);
    assertThat(p.expireLocks()).isEqualTo(2); // 2 and 3; 0 and 1 were renewed
    assertThat(p.state(2)).isEqualTo(RecordState.AVAILABLE);
    assertThat(p.state(0)).isEqualTo(RecordState.ACQUIRED);
    assertThat(p.acquire("b", 0, 3, 500)).containsExactly(new AcquiredRange(2, 3, (short) 2));
    // The expired member's late acknowledgement is refused.
    assertThat(p.acknowledge("a", 2, 2, List.of(ACCEPT))).isEqualTo(Errors.INVALID_RECORD_STATE);
    clock.addAndGet(30_000);
    assertThat(p.expireLocks()).isEqualTo(4);
  }

  @Test
  void anExpiredLockAtTheDeliveryLimitArchives() {
    SharePartition p = partition(0, 100, 1);
    p.acquire("a", 0, 0, 500);
    clock.addAndGet(30_000);

    assertThat(p.expireLocks()).isEqualTo(1);
    assertThat(p.state(0)).isEqualTo(RecordState.ARCHIVED);
    assertThat(p.startOffset()).isEqualTo(1);
  }

  @Test
  void releaseAllGivesBackOnlyThatMembersRecords() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 4, 500);
    p.acquire("b", 0, 9, 500);

    assertThat(p.releaseAll("a")).isEqualTo(5);
    assertThat(p.acquiredCount()).isEqualTo(5);
    assertThat(p.acquire("c", 0, 9, 500)).containsExactly(new AcquiredRange(0, 4, (short) 2));
  }

  @Test
  void rangesSplitWhereDeliveryCountsOrOwnershipDiffer() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 5, 500);
    p.acknowledge("a", 1, 1, List.of(RELEASE));
    p.acknowledge("a", 3, 4, List.of(RELEASE));

    assertThat(p.acquire("b", 0, 7, 500))
        .containsExactly(
            new AcquiredRange(1, 1, (short) 2),
            new AcquiredRange(3, 4, (short) 2),
            new AcquiredRange(6, 7, (short) 1));
  }

  @Test
  void theLogStartPassingTheWindowMovesTheStartOffset() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 9, 500);

    p.moveStartTo(5);
    assertThat(p.startOffset()).isEqualTo(5);
    assertThat(p.acknowledge("a", 3, 3, List.of(ACCEPT))).isEqualTo(Errors.INVALID_RECORD_STATE);
    assertThat(p.acknowledge("a", 5, 9, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    p.moveStartTo(50);
    assertThat(p.nextFetchOffset()).isEqualTo(50);
  }

  @Test
  void theWindowGrowsAndWrapsWithoutLosingState() {
    SharePartition p = partition(0, 1_000, 5);
    long next = 0;
    // Many rounds: acquire 300, accept all but the first, which is accepted one round later.
    long pending = -1;
    for (int round = 0; round < 20; round++) {
      List<AcquiredRange> ranges = p.acquire("a", next, next + 299, 300);
      assertThat(ranges).containsExactly(new AcquiredRange(next, next + 299, (short) 1));
      assertThat(p.acknowledge("a", next + 1, next + 299, List.of(ACCEPT))).isEqualTo(Errors.NONE);
      if (pending >= 0) {
        assertThat(p.acknowledge("a", pending, pending, List.of(ACCEPT))).isEqualTo(Errors.NONE);
      }
      pending = next;
      next += 300;
      assertThat(p.startOffset()).isEqualTo(pending);
    }
    assertThat(p.acquiredCount()).isEqualTo(1);
  }

  @Test
  void aSnapshotRestoredAtAnotherLeaderKeepsDoneRecordsDoneAndDeliveryCounts() {
    SharePartition p = partition(0, 100, 5);
    p.acquire("a", 0, 9, 500);
    assertThat(p.acknowledge("a", 2, 3, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(p.acknowledge("a", 4, 4, List.of(REJECT))).isEqualTo(Errors.NONE);
    assertThat(p.acknowledge("a", 5, 5, List.of(RELEASE))).isEqualTo(Errors.NONE);
    p.acquire("b", 5, 5, 500);

    SharePartition.Snapshot snapshot = p.snapshot();
    assertThat(snapshot.startOffset()).isZero();
    // Acquisitions are not durable: acquired records are written as available (0) with their
    // count; acknowledged is 2, archived 4, as Kafka's state codes.
    assertThat(snapshot.batches())
        .extracting(
            b -> List.of(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()))
        .containsExactly(
            List.of(0L, 1L, (byte) 0, (short) 1),
            List.of(2L, 3L, (byte) 2, (short) 1),
            List.of(4L, 4L, (byte) 4, (short) 1),
            List.of(5L, 5L, (byte) 0, (short) 2),
            List.of(6L, 9L, (byte) 0, (short) 1));

    SharePartition restored = partition(snapshot.startOffset(), 100, 5);
    List<org.apache.kafka.common.message.ReadShareGroupStateResponseData.StateBatch> read =
        snapshot.batches().stream()
            .map(
                b ->
                    new org.apache.kafka.common.message.ReadShareGroupStateResponseData.StateBatch()
                        .setFirstOffset(b.firstOffset())
                        .setLastOffset(b.lastOffset())
                        .setDeliveryState(b.deliveryState())
                        .setDeliveryCount(b.deliveryCount()))
            .toList();
    restored.restore(read);
    assertThat(restored.state(2)).isEqualTo(RecordState.ACKNOWLEDGED);
    assertThat(restored.state(4)).isEqualTo(RecordState.ARCHIVED);
    assertThat(restored.state(5)).isEqualTo(RecordState.AVAILABLE);
    // Every record not done comes again, its count going on.
    assertThat(restored.acquire("c", 0, 9, 500))
        .containsExactly(
            new AcquiredRange(0, 1, (short) 2),
            new AcquiredRange(5, 5, (short) 3),
            new AcquiredRange(6, 9, (short) 2));
    assertThat(restored.acknowledge("c", 0, 1, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(restored.startOffset()).isEqualTo(5);
  }

  private SharePartition withGroup(long start, int deliveryLimit, ShareGroupConfig group) {
    return new SharePartition(
        start,
        new ShareLimits(30_000, deliveryLimit, 100, 10, 45_000, false),
        clock::get,
        () -> group,
        new ShareGroupStats());
  }

  private static List<ReadShareGroupStateResponseData.StateBatch> asRead(
      SharePartition.Snapshot snapshot) {
    return snapshot.batches().stream()
        .map(
            b ->
                new ReadShareGroupStateResponseData.StateBatch()
                    .setFirstOffset(b.firstOffset())
                    .setLastOffset(b.lastOffset())
                    .setDeliveryState(b.deliveryState())
                    .setDeliveryCount(b.deliveryCount()))
        .toList();
  }

  @Test
  void theRedeliveryBackoffDoublesPerDeliveryUpToItsCap() {
    ShareGroupConfig group = new ShareGroupConfig(null, 1_000, 3_000);

    assertThat(group.backoffMs(1)).isEqualTo(1_000);
    assertThat(group.backoffMs(2)).isEqualTo(2_000);
    assertThat(group.backoffMs(3)).isEqualTo(3_000);
    assertThat(group.backoffMs(30)).isEqualTo(3_000);
    assertThat(ShareGroupConfig.DEFAULTS.backoffMs(3)).isZero();
  }

  @Test
  void aReleasedRecordWaitsOutItsBackoffWhileTheRecordsBehindItAreDelivered() {
    SharePartition p = withGroup(0, 5, new ShareGroupConfig(null, 1_000, 3_000));
    p.acquire("a", 0, 2, 500);

    assertThat(p.acknowledge("a", 0, 0, List.of(RELEASE))).isEqualTo(Errors.NONE);
    assertThat(p.state(0)).isEqualTo(RecordState.AVAILABLE);
    assertThat(p.availableAtMs(0)).isEqualTo(clock.get() + 1_000);
    // Not before its time: a fetch reads on past it.
    assertThat(p.nextFetchOffset()).isEqualTo(3);
    assertThat(p.acquire("b", 0, 5, 500)).containsExactly(new AcquiredRange(3, 5, (short) 1));
    assertThat(p.backoffsEnded()).isFalse();

    clock.addAndGet(1_000);
    assertThat(p.backoffsEnded()).isTrue();
    assertThat(p.nextFetchOffset()).isZero();
    assertThat(p.acquire("b", 0, 5, 500)).containsExactly(new AcquiredRange(0, 0, (short) 2));
    // An expired lock backs off too, twice as long after the second delivery.
    clock.addAndGet(30_000);
    assertThat(p.expireLocks()).isEqualTo(6);
    assertThat(p.availableAtMs(0)).isEqualTo(clock.get() + 2_000);
    assertThat(p.availableAtMs(3)).isEqualTo(clock.get() + 1_000);
    assertThat(p.hasAvailable(100)).isTrue(); // 6 onwards, never delivered, have no backoff
    assertThat(p.acquire("c", 0, 5, 500)).isEmpty();
  }

  @Test
  void aRejectedRecordIsOwedToTheDeadLetterTopicOnlyOnceThatIsDurableAndArchivedOnceWritten() {
    SharePartition p = withGroup(0, 5, new ShareGroupConfig("dlq", 0, 0));
    p.acquire("a", 0, 2, 500);

    assertThat(p.acknowledge("a", 0, 0, List.of(REJECT))).isEqualTo(Errors.NONE);
    assertThat(p.acknowledge("a", 1, 2, List.of(ACCEPT))).isEqualTo(Errors.NONE);
    assertThat(p.state(0)).isEqualTo(RecordState.DEAD_LETTER);
    // Done for consumers, but the start offset waits for it.
    assertThat(p.startOffset()).isZero();
    assertThat(p.nextFetchOffset()).isEqualTo(3);
    // Not to be written before the state saying it is owed is durable.
    assertThat(p.takeDeadLetters()).isEmpty();
    SharePartition.Snapshot snapshot = p.snapshot();
    assertThat(snapshot.deadLetters()).containsExactly(0L);
    assertThat(snapshot.batches().get(0).deliveryState())
        .isEqualTo(SharePartition.DURABLE_DEAD_LETTER_REJECTED);

    p.deadLettersDurable(snapshot.deadLetters());
    assertThat(p.takeDeadLetters())
        .containsExactly(
            new SharePartition.DeadLetter(0, SharePartition.DeadLetterReason.REJECTED, 1, false));
    assertThat(p.takeDeadLetters()).isEmpty(); // being written
    p.deadLetterFailed(0);
    // Tried again, looking for it in the topic first.
    assertThat(p.takeDeadLetters())
        .containsExactly(
            new SharePartition.DeadLetter(0, SharePartition.DeadLetterReason.REJECTED, 1, true));
    assertThat(p.deadLettered(0)).isTrue();
    assertThat(p.state(0)).isEqualTo(RecordState.ARCHIVED);
    assertThat(p.startOffset()).isEqualTo(3);
    assertThat(p.deadLettered(0)).isFalse();
  }

  @Test
  void aRecordOwedToTheDeadLetterTopicIsStillOwedAfterARestoreAndCheckedForFirst() {
    SharePartition p = withGroup(0, 2, new ShareGroupConfig("dlq", 0, 0));
    p.acquire("a", 0, 1, 500);
    p.acknowledge("a", 0, 1, List.of(RELEASE));
    p.acquire("b", 0, 1, 500);
    // The second delivery was the last: both are owed to the dead-letter topic.
    clock.addAndGet(30_000);
    assertThat(p.expireLocks()).isEqualTo(2);
    assertThat(p.state(1)).isEqualTo(RecordState.DEAD_LETTER);
    SharePartition.Snapshot snapshot = p.snapshot();
    assertThat(snapshot.batches())
        .extracting(b -> List.of(b.firstOffset(), b.lastOffset(), b.deliveryState()))
        .containsExactly(List.of(0L, 1L, SharePartition.DURABLE_DEAD_LETTER_LIMIT));

    SharePartition restored =
        withGroup(snapshot.startOffset(), 2, new ShareGroupConfig("dlq", 0, 0));
    restored.restore(asRead(snapshot));
    assertThat(restored.state(0)).isEqualTo(RecordState.DEAD_LETTER);
    assertThat(restored.acquire("c", 0, 1, 500)).isEmpty();
    assertThat(restored.takeDeadLetters())
        .containsExactly(
            new SharePartition.DeadLetter(
                0, SharePartition.DeadLetterReason.DELIVERY_LIMIT, 2, true),
            new SharePartition.DeadLetter(
                1, SharePartition.DeadLetterReason.DELIVERY_LIMIT, 2, true));
    restored.deadLettered(1);
    assertThat(restored.startOffset()).isZero();
    restored.deadLettered(0);
    assertThat(restored.startOffset()).isEqualTo(2);
  }

  @Test
  void withoutADeadLetterTopicRejectedRecordsAreArchivedAtOnce() {
    ShareGroupStats stats = new ShareGroupStats();
    SharePartition p =
        new SharePartition(
            0,
            new ShareLimits(30_000, 5, 100, 10, 45_000, false),
            clock::get,
            () -> ShareGroupConfig.DEFAULTS,
            stats);
    p.acquire("a", 0, 1, 500);

    p.acknowledge("a", 0, 1, List.of(REJECT, RELEASE));
    assertThat(p.state(0)).isEqualTo(RecordState.ARCHIVED);
    assertThat(p.snapshot().deadLetters()).isEmpty();
    assertThat(stats.archivedTotal()).isEqualTo(1);
    assertThat(stats.redeliveredTotal()).isEqualTo(1);
  }
}
