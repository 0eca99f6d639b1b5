package io.brook.cli.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checks of what a {@code read_committed} consumer saw of transactional writes (the fault
 * campaign's transaction workload, {@code brook verify produce --transactional}): no record of a
 * transaction its producer aborted is visible, and every visible transaction is visible whole (as
 * many records as its producer sent in it, so no partial transaction).
 */
public final class TransactionChecker {
  /** One record the consumer read: the transaction that wrote it, and where. */
  public record Visible(String transaction, String record, int partition, long offset) {}

  private TransactionChecker() {}

  /**
   * Every violation, given the records read ({@code read_committed}), the transactions aborted on
   * purpose, and how many records each transaction sent.
   */
  public static List<String> violations(
      List<Visible> read, Set<String> aborted, Map<String, Integer> sentPerTransaction) {
    List<String> violations = new ArrayList<>();
    Map<String, Integer> visiblePerTransaction = new TreeMap<>();
    for (Visible r : read) {
      visiblePerTransaction.merge(r.transaction(), 1, Integer::sum);
      if (aborted.contains(r.transaction())) {
        violations.add(
            "aborted read: "
                + r.record()
                + " of aborted transaction "
                + r.transaction()
                + " at "
                + r.partition()
                + "/"
                + r.offset());
      }
    }
    visiblePerTransaction.forEach(
        (transaction, visible) -> {
          Integer sent = sentPerTransaction.get(transaction);
          if (sent == null || sent.intValue() != visible) {
            violations.add(
                "partial transaction: "
                    + transaction
                    + " sent "
                    + sent
                    + " records, "
                    + visible
                    + " visible");
          }
        });
    return violations;
  }
}
