package io.brook.coordinator;

/** How a transaction ended: what its COMMIT or ABORT marker says. */
public enum TxnResult {
  COMMIT,
  ABORT;

  /** {@link #COMMIT} when {@code commit}, else {@link #ABORT} (WriteTxnMarkers' boolean). */
  public static TxnResult of(boolean commit) {
    return commit ? COMMIT : ABORT;
  }
}
