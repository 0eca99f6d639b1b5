package io.brook.broker.share;

/** Kafka's acknowledgement types of ShareFetch and ShareAcknowledge, by wire code. */
public enum AckType {
  /** The offset holds no record (a compacted-away record, a control batch). */
  GAP,
  /** Processed: never delivered again. */
  ACCEPT,
  /** Not processed: available to be delivered again (to anyone). */
  RELEASE,
  /** Unprocessable: never delivered again. */
  REJECT,
  /** Still being processed: the acquisition lock starts again (ShareFetch/ShareAcknowledge v2). */
  RENEW;

  private static final AckType[] BY_CODE = values();

  /** The type of wire code {@code code}, or null for an unknown one. */
  public static AckType of(byte code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
