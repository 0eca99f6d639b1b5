package io.brook.storage.cleaner;

/**
 * The log cleaner's broker settings, under Kafka's names.
 *
 * @param enabled {@code log.cleaner.enable}
 * @param threads {@code log.cleaner.threads}: logs cleaned in parallel
 * @param dedupeBufferSize {@code log.cleaner.dedupe.buffer.size}: bytes of key map shared by all
 *     threads; each thread gets an equal share (at most 2 GiB, the largest buffer Java maps)
 * @param ioBufferSize {@code log.cleaner.io.buffer.size}: read plus write buffer bytes shared by
 *     all threads; buffers grow up to {@code max.message.bytes} when one batch does not fit
 * @param dedupeBufferLoadFactor {@code log.cleaner.io.buffer.load.factor}: how full the key map may
 *     get before a pass stops adding keys (open addressing slows down near full)
 * @param ioMaxBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}: read plus write rate cap
 * @param backoffMs {@code log.cleaner.backoff.ms}: pause of a thread that found nothing to clean
 */
public record CleanerConfig(
    boolean enabled,
    int threads,
    long dedupeBufferSize,
    int ioBufferSize,
    double dedupeBufferLoadFactor,
    double ioMaxBytesPerSecond,
    long backoffMs) {

  /** Kafka's defaults: one thread, 128 MiB of key map, 512 KiB of I/O buffers, no rate cap. */
  public static final CleanerConfig DEFAULTS =
      new CleanerConfig(true, 1, 128L * 1024 * 1024, 512 * 1024, 0.9, Double.MAX_VALUE, 15_000);

  public CleanerConfig {
    if (threads < 0) {
      throw new IllegalArgumentException("log.cleaner.threads must be >= 0, got " + threads);
    }
    if (enabled && threads > 0 && dedupeBufferSize / threads < OffsetMap.SLOT_BYTES * 2L) {
      throw new IllegalArgumentException("log.cleaner.dedupe.buffer.size is too small");
    }
    if (dedupeBufferLoadFactor <= 0 || dedupeBufferLoadFactor > 1) {
      throw new IllegalArgumentException(
          "log.cleaner.io.buffer.load.factor must be in (0, 1], got " + dedupeBufferLoadFactor);
    }
    if (ioMaxBytesPerSecond <= 0) {
      throw new IllegalArgumentException("log.cleaner.io.max.bytes.per.second must be > 0");
    }
  }

  /** The key map bytes of one thread, bounded by the largest Java buffer. */
  public int dedupeBufferPerThread() {
    return (int) Math.min(Integer.MAX_VALUE, dedupeBufferSize / Math.max(1, threads));
  }

  /** The I/O buffer bytes of one thread, split evenly between reading and writing. */
  public int ioBufferPerThread() {
    return Math.max(1024, ioBufferSize / Math.max(1, threads) / 2);
  }

  public CleanerConfig withThreads(int value) {
    return new CleanerConfig(
        enabled,
        value,
        dedupeBufferSize,
        ioBufferSize,
        dedupeBufferLoadFactor,
        ioMaxBytesPerSecond,
        backoffMs);
  }
}
