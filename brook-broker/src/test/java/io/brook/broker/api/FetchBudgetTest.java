package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a fetch's {@code max_bytes} is shared between local reads and remote reads. */
class FetchBudgetTest {
  @Test
  void everyRemotePartitionGetsItsPartitionLimitWhileTheResponseHasRoom() {
    // Given: a consumer's defaults, 50 MiB a fetch and 1 MiB a partition
    FetchBudget budget = new FetchBudget(50 << 20);

    // When: six partitions below their local log start, in turn
    for (int p = 0; p < 6; p++) {
      int limit = budget.limitFor(1 << 20);
      assertThat(limit).isEqualTo(1 << 20);
      assertThat(budget.roomForRemote(limit)).isTrue();
      budget.reserveRemote(limit);
    }

    // Then: each took its whole limit, and nothing was read locally
    assertThat(budget.remaining()).isEqualTo(44 << 20);
    assertThat(budget.localBytes()).isZero();
  }

  @Test
  void aRemoteReadTakesWhatIsLeftAndThenNothingIsLeftForTheNext() {
    FetchBudget budget = new FetchBudget(96 * 1024);
    budget.reserveRemote(budget.limitFor(64 * 1024));

    int second = budget.limitFor(64 * 1024);
    assertThat(second).isEqualTo(32 * 1024);
    assertThat(budget.roomForRemote(second)).isTrue();
    budget.reserveRemote(second);

    int third = budget.limitFor(64 * 1024);
    assertThat(third).isZero();
    assertThat(budget.roomForRemote(third)).as("skipped: answered empty").isFalse();
  }

  @Test
  void onlyTheFirstPartitionMaySendAWholeBatchPastTheLimits() {
    // A max_bytes of 0 still lets the first partition send its first batch (KIP-74)...
    FetchBudget budget = new FetchBudget(0);
    assertThat(budget.minOneBatch()).isTrue();
    assertThat(budget.roomForRemote(budget.limitFor(1 << 20))).isTrue();
    budget.reserveRemote(0);

    // ...but a started remote read ends that for the partitions after it, remote or local
    assertThat(budget.minOneBatch()).isFalse();
    assertThat(budget.roomForRemote(budget.limitFor(1 << 20))).isFalse();
  }

  @Test
  void aLocalReadWithDataEndsTheFirstBatchExceptionAndAnEmptyOneDoesNot() {
    FetchBudget budget = new FetchBudget(1000);
    budget.readLocally(0);
    assertThat(budget.minOneBatch()).isTrue();

    // A first batch larger than what was left leaves nothing, never a negative budget
    budget.readLocally(1500);
    assertThat(budget.minOneBatch()).isFalse();
    assertThat(budget.remaining()).isZero();
    assertThat(budget.localBytes()).isEqualTo(1500);
    assertThat(budget.limitFor(1 << 20)).isZero();
  }

  @Test
  void negativeLimitsReadAsZero() {
    FetchBudget budget = new FetchBudget(-5);
    assertThat(budget.remaining()).isZero();
    assertThat(new FetchBudget(100).limitFor(-1)).isZero();
  }
}
