package io.brook.storage.remote;

/**
 * The files copied for one segment (KIP-405's {@code IndexType} plus the log itself), each an
 * object next to the others under the segment's key.
 */
public enum RemoteFileType {
  LOG(".log"),
  OFFSET_INDEX(".index"),
  TIME_INDEX(".timeindex"),
  TRANSACTION_INDEX(".txnindex"),
  PRODUCER_SNAPSHOT(".snapshot"),
  LEADER_EPOCH(".leader-epoch-checkpoint");

  private final String suffix;

  RemoteFileType(String suffix) {
    this.suffix = suffix;
  }

  public String suffix() {
    return suffix;
  }
}
