package io.brook.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cli.verify.TransactionChecker.Visible;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The transaction checks find an aborted or partial transaction, and nothing in a correct read. */
class TransactionCheckerTest {
  /** t0 (2 records) committed, t1 (2 records) aborted. */
  private static final Map<String, Integer> SENT = Map.of("t0", 2, "t1", 2);

  private static final Set<String> ABORTED = Set.of("t1");

  @Test
  void committedTransactionsReadWholeHaveNoViolation() {
    List<Visible> read = List.of(new Visible("t0", "a", 0, 0), new Visible("t0", "b", 0, 1));
    assertThat(TransactionChecker.violations(read, ABORTED, SENT)).isEmpty();
  }

  @Test
  void findsAnAbortedRecordVisible() {
    List<Visible> read =
        List.of(
            new Visible("t0", "a", 0, 0),
            new Visible("t0", "b", 0, 1),
            new Visible("t1", "c", 0, 2),
            new Visible("t1", "d", 1, 0));
    assertThat(TransactionChecker.violations(read, ABORTED, SENT))
        .containsExactly(
            "aborted read: c of aborted transaction t1 at 0/2",
            "aborted read: d of aborted transaction t1 at 1/0");
  }

  @Test
  void findsAPartOfATransaction() {
    List<Visible> read = List.of(new Visible("t0", "a", 0, 0));
    assertThat(TransactionChecker.violations(read, ABORTED, SENT))
        .containsExactly("partial transaction: t0 sent 2 records, 1 visible");
  }
}
