package io.brook.storage.producer;

/**
 * The proof that a producer's transaction was verified with its coordinator before its first batch
 * is appended to a partition (KIP-890). The leader asks the partition for a guard ({@link
 * ProducerStateManager#maybeStartVerification}), asks the coordinator whether the partition is in
 * the producer's ongoing transaction and, if it is, appends with the guard. The append is refused
 * ({@link io.brook.storage.StorageError#INVALID_TXN_STATE}) unless the guard is still the one the
 * partition holds for the producer: any transactional batch or marker written for the producer in
 * between (a marker of a transaction the coordinator aborted meanwhile, say) drops the partition's
 * guard, so a late first batch cannot open a transaction nobody will end.
 *
 * <p>Compared by identity only: a guard is never equal to another one.
 */
public final class VerificationGuard {
  /**
   * Carried by an append whose producer had a transaction open on the partition when the leader
   * looked: nothing was asked of the coordinator, so it matches no guard, and the append is
   * accepted only if the transaction is still open when it is written.
   */
  public static final VerificationGuard SENTINEL = new VerificationGuard("sentinel");

  /**
   * Carried by appends the leader does not verify: verification is disabled ({@code
   * transaction.partition.verification.enable=false}) or the writer is not a client.
   */
  public static final VerificationGuard NOT_CHECKED = new VerificationGuard("not-checked");

  private final String name;

  VerificationGuard() {
    this("guard");
  }

  private VerificationGuard(String name) {
    this.name = name;
  }

  /** Whether an append carrying {@code carried} may open a transaction held by this guard. */
  boolean admits(VerificationGuard carried) {
    return carried == this && this != SENTINEL && this != NOT_CHECKED;
  }

  @Override
  public String toString() {
    return "VerificationGuard("
        + name
        + "@"
        + Integer.toHexString(System.identityHashCode(this))
        + ")";
  }
}
