package io.brook.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The group checks find a committed offset going back and a partition with two owners. */
class GroupCheckerTest {
  private final GroupChecker checker = new GroupChecker("t");

  @Test
  void offsetsMovingForwardAndOneOwnerPerGenerationHaveNoViolation() {
    checker.committed(0, 5, "m1");
    long sent = System.nanoTime();
    checker.committed(0, 7, "m2");
    checker.read(0, 5, sent, "watcher");
    checker.owned(1, 0, "m1");
    checker.owned(1, 0, "m1");
    checker.owned(2, 0, "m2");
    assertThat(checker.violations()).isEmpty();
    assertThat(checker.highestCommitted()).containsEntry(0, 7L);
  }

  @Test
  void findsACommitBelowAnEarlierCommit() {
    checker.committed(0, 7, "m1");
    checker.committed(0, 5, "m2");
    assertThat(checker.violations())
        .containsExactly("committed offset of t-0 went back to 5 after 7 (m2)");
  }

  @Test
  void findsAReadBelowACommitAcknowledgedBeforeIt() {
    checker.committed(0, 7, "m1");
    checker.read(0, 5, System.nanoTime(), "watcher");
    assertThat(checker.violations())
        .containsExactly(
            "committed offset of t-0 went back to 5 after 7"
                + " (watcher, below a commit acknowledged before the read)");
  }

  @Test
  void findsAReadBelowAnEarlierRead() {
    checker.read(0, 7, System.nanoTime(), "watcher");
    checker.read(0, 5, System.nanoTime(), "watcher");
    assertThat(checker.violations())
        .containsExactly(
            "committed offset of t-0 went back to 5 after 7 (watcher, after an earlier read)");
  }

  @Test
  void findsAPartitionOwnedByTwoMembersOfOneGeneration() {
    checker.owned(3, 1, "m1");
    checker.owned(3, 1, "m2");
    assertThat(checker.violations())
        .containsExactly("partition 1 owned by m1 and m2 in generation 3");
  }
}
