package io.brook.coordinator.group.lag;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.log.PartitionEnds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A group's totals summed in one pass ({@link LagCalculator#totals}) are the totals of its figures
 * per partition ({@link GroupLag}), whatever each partition's case.
 */
class LagCalculatorTest {
  private static final long NOW = 1_000_000_000L;

  private static final TopicPartition UNMEASURED = new TopicPartition("t", 0);
  private static final TopicPartition CAUGHT_UP = new TopicPartition("t", 1);
  private static final TopicPartition BEHIND = new TopicPartition("t", 2);
  private static final TopicPartition OLDEST = new TopicPartition("t", 3);
  private static final TopicPartition NO_TIMESTAMP = new TopicPartition("t", 4);
  private static final TopicPartition BELOW_START = new TopicPartition("t", 5);

  /** Each partition's ends; the unmeasured one has none (its leader did not answer). */
  private static final Map<TopicPartition, PartitionEnds.Ends> ENDS =
      Map.of(
          CAUGHT_UP, new PartitionEnds.Ends(0, 50, -1),
          BEHIND, new PartitionEnds.Ends(0, 50, -1),
          OLDEST, new PartitionEnds.Ends(0, 50, -1),
          NO_TIMESTAMP, new PartitionEnds.Ends(0, 50, -1),
          BELOW_START, new PartitionEnds.Ends(30, 50, -1));

  private static final PartitionEnds PARTITIONS =
      new PartitionEnds() {
        @Override
        public Optional<Ends> leaderEnds(TopicPartition partition) {
          return Optional.ofNullable(ENDS.get(partition));
        }

        @Override
        public OptionalLong batchTimestamp(TopicPartition tp, long offset, long maxOffset) {
          if (tp.equals(NO_TIMESTAMP)) {
            return OptionalLong.empty();
          }
          // Below the log start the group's next record is the first one there.
          if (tp.equals(BELOW_START)) {
            assertThat(offset).isEqualTo(30);
          }
          return OptionalLong.of(NOW - (tp.equals(OLDEST) ? 75_000 : 2_000));
        }
      };

  private static GroupPositions.Position at(TopicPartition tp, long offset) {
    return new GroupPositions.Position(
        tp, new CommittedOffset(offset, -1, "", -1), Optional.empty());
  }

  @Test
  void totalsInOnePassAreTheTotalsOfEachPartitionsLag() {
    List<GroupPositions.Position> positions =
        List.of(
            at(UNMEASURED, 3),
            at(CAUGHT_UP, 50),
            at(BEHIND, 40),
            at(OLDEST, 45),
            at(NO_TIMESTAMP, 10),
            at(BELOW_START, 5));
    LagCalculator calculator = new LagCalculator(PARTITIONS);
    List<PartitionLag> each = new ArrayList<>();
    for (GroupPositions.Position p : positions) {
      each.add(calculator.lag(p.topicPartition(), p.committed(), p.previous(), NOW));
    }
    GroupLag lag = new GroupLag("g", each);

    LagTotals totals = calculator.totals(positions, NOW);

    assertThat(totals.partitions()).isEqualTo(6);
    assertThat(totals.lagRecords()).isEqualTo(lag.totalLagRecords()).isEqualTo(10 + 5 + 40 + 20);
    assertThat(totals.maxLagTime()).isEqualTo(lag.maxLagTime()).contains(Duration.ofSeconds(75));
  }

  @Test
  void aGroupCaughtUpLagsZeroAndOneNotMeasuredHasNoLagInTime() {
    LagCalculator calculator = new LagCalculator(PARTITIONS);
    LagTotals caughtUp = calculator.totals(List.of(at(CAUGHT_UP, 50)), NOW);
    assertThat(caughtUp.lagRecords()).isZero();
    assertThat(caughtUp.maxLagTime()).contains(Duration.ZERO);
    LagTotals unmeasured = calculator.totals(List.of(at(UNMEASURED, 3)), NOW);
    assertThat(unmeasured.lagRecords()).isZero();
    assertThat(unmeasured.maxLagTime()).isEmpty();
    assertThat(calculator.totals(List.of(), NOW).partitions()).isZero();
  }
}
