package io.brook.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cli.verify.ReplicationChecker.Stored;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker finds each kind of violation it claims to, and nothing in a correct log. */
class ReplicationCheckerTest {
  /** Producer 1 sent seq 0-3 to partition 0, all acknowledged at offsets 0-3. */
  private static AckedLog fourAcked() {
    AckedLog log = new AckedLog();
    for (int seq = 0; seq < 4; seq++) {
      log.sent(AckedLog.id(1, seq), 0);
      log.acked(1, seq, 0, seq);
    }
    return log;
  }

  private static Map<Integer, List<Stored>> partitionZero(String... ids) {
    List<Stored> records = new ArrayList<>();
    for (int offset = 0; offset < ids.length; offset++) {
      records.add(new Stored(0, offset, ids[offset]));
    }
    return Map.of(0, records);
  }

  private static List<String> check(AckedLog log, Map<Integer, List<Stored>> read) {
    return ReplicationChecker.violations(read, log, Map.of("0/1", "p1-1"), List.of());
  }

  @Test
  void aCorrectLogHasNoViolation() {
    assertThat(check(fourAcked(), partitionZero("p1-0", "p1-1", "p1-2", "p1-3"))).isEmpty();
  }

  @Test
  void findsALostRecord() {
    assertThat(check(fourAcked(), partitionZero("p1-0", "p1-1", "p1-2")))
        .containsExactly("lost: p1-3 acknowledged at 0/3, now there: null");
  }

  @Test
  void findsADuplicateAndTheRecordsItMoved() {
    assertThat(check(fourAcked(), partitionZero("p1-0", "p1-1", "p1-1", "p1-2", "p1-3")))
        .contains(
            "duplicate: p1-1 at 0/1 and at 0/2", "moved: p1-2 acknowledged at 0/2, found at 0/3");
  }

  @Test
  void findsARecordAtAnotherOffsetThanAcknowledged() {
    AckedLog log = fourAcked();
    log.sent("p2-0", 0);
    assertThat(check(log, partitionZero("p1-0", "p1-1", "p2-0", "p1-2", "p1-3")))
        .containsExactlyInAnyOrder(
            "moved: p1-2 acknowledged at 0/2, found at 0/3",
            "moved: p1-3 acknowledged at 0/3, found at 0/4");
  }

  @Test
  void findsRecordsOutOfSendOrder() {
    assertThat(check(fourAcked(), partitionZero("p1-0", "p1-1", "p1-3", "p1-2")))
        .contains("out of send order in partition 0: p1-2 at 0/3 after p1-3");
  }

  @Test
  void findsAnOffsetReplacedAfterAConsumerReadIt() {
    AckedLog log = fourAcked();
    log.sent("p2-0", 0);
    assertThat(check(log, partitionZero("p1-0", "p2-0", "p1-1", "p1-2", "p1-3")))
        .contains("replaced: offset 0/1 was read as p1-1 during the faults, now holds p2-0");
  }

  @Test
  void findsARecordNobodySentAndAFailedSend() {
    AckedLog log = fourAcked();
    log.sent("p1-4", 0);
    log.failed("p1-4", 0, new IllegalStateException("gave up"));
    assertThat(check(log, partitionZero("p1-0", "p1-1", "p1-2", "p1-3", "x")))
        .containsExactlyInAnyOrder(
            "send of p1-4 to partition 0 failed: java.lang.IllegalStateException: gave up",
            "unknown record at 0/4: x");
  }

  @Test
  void theUnwritableWindowIsTheLongestGapAroundTheFault() {
    AckedLog log = new AckedLog();
    log.sent("p1-0", 0);
    log.acked(1, 0, 0, 0);
    long fault = System.nanoTime();
    assertThat(log.longestGap(1, fault, fault + 1_000_000_000L).millis())
        .as("no write since the fault: unwritable until its end")
        .isBetween(999L, 1_001L);
  }
}
