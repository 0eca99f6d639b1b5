package io.brook.storage.record;

/**
 * How far the records of one batch may inflate when read: a decompression bomb (a small compressed
 * batch whose records decompress to hundreds of MiB) is refused once it passes these bounds, before
 * anything of its inflated size is allocated, and the CPU spent on one batch is bounded by {@code
 * maxBatchInflatedBytes} of decompression.
 *
 * @param maxRecordBytes the largest record (its body, as the length varint counts it) a reader
 *     accepts; a reader that keeps a record's key or value holds at most this much
 * @param maxBatchInflatedBytes the most record bytes one batch may hold after decompression
 */
public record RecordLimits(int maxRecordBytes, long maxBatchInflatedBytes) {

  /**
   * Default of {@code brook.max.inflated.bytes.factor}: a batch's records may inflate to 32 times
   * {@code max.message.bytes} (32 MiB with the 1 MiB default). Producers compress typical payloads
   * (JSON, logs, Avro) 2 to 10 times; 32 leaves room for very repetitive data while a bomb, which
   * compresses 1000 times or more, is stopped after 32 MiB of decompression (some tens of
   * milliseconds of CPU).
   */
  public static final int DEFAULT_INFLATION_FACTOR = 32;

  /** The largest array a JVM allocates reliably (the limit {@code ArrayList} also uses). */
  private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /**
   * Limits for control records (transaction markers): a few bytes each; 64 KiB leaves room for any
   * future marker version without letting a corrupt one allocate more.
   */
  public static final RecordLimits CONTROL_RECORDS = new RecordLimits(64 * 1024, 64 * 1024);

  public RecordLimits {
    if (maxRecordBytes < 1 || maxBatchInflatedBytes < 1) {
      throw new IllegalArgumentException(
          "record limits must be positive: " + maxRecordBytes + ", " + maxBatchInflatedBytes);
    }
  }

  /**
   * {@code maxMessageBytes × factor} for both the batch and any one record of it (a record cannot
   * be larger than its batch); records are capped below 2 GiB, the largest array Java allocates.
   */
  public static RecordLimits of(int maxMessageBytes, int factor) {
    if (factor < 1) {
      throw new IllegalArgumentException("inflation factor must be at least 1, got " + factor);
    }
    long inflated = Math.max(1L, (long) maxMessageBytes * factor);
    return new RecordLimits((int) Math.min(inflated, MAX_ARRAY_BYTES), inflated);
  }
}
