package io.brook.storage.segment;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * File names inside a partition directory. Every file of a segment starts with the segment's base
 * offset as 20 zero-padded digits (the width of {@link Long#MAX_VALUE}), so that a plain directory
 * listing sorts segments in offset order.
 */
public final class SegmentFiles {
  public static final String LOG_SUFFIX = ".log";
  public static final String INDEX_SUFFIX = ".index";
  public static final String TIME_INDEX_SUFFIX = ".timeindex";
  public static final String TXN_INDEX_SUFFIX = ".txnindex";
  public static final String SNAPSHOT_SUFFIX = ".snapshot";

  /** Suffix of a file half-written by an atomic replace; always deleted at load. */
  public static final String TMP_SUFFIX = ".tmp";

  /** Suffix of a segment file scheduled for deletion; always deleted at load. */
  public static final String DELETED_SUFFIX = ".deleted";

  /** Suffix of a segment the log cleaner is still writing; always deleted at load. */
  public static final String CLEANED_SUFFIX = ".cleaned";

  /**
   * Suffix of a complete cleaned segment waiting to replace the segments it was cleaned from; a
   * {@code .log.swap} found at load finishes that replacement.
   */
  public static final String SWAP_SUFFIX = ".swap";

  private static final int OFFSET_DIGITS = 20;

  private SegmentFiles() {}

  /** {@code 00000000000000000042} for 42. */
  public static String offsetPrefix(long offset) {
    String digits = Long.toString(offset);
    return "0".repeat(OFFSET_DIGITS - digits.length()) + digits;
  }

  public static Path logFile(Path dir, long baseOffset) {
    return dir.resolve(offsetPrefix(baseOffset) + LOG_SUFFIX);
  }

  public static Path offsetIndexFile(Path dir, long baseOffset) {
    return dir.resolve(offsetPrefix(baseOffset) + INDEX_SUFFIX);
  }

  public static Path timeIndexFile(Path dir, long baseOffset) {
    return dir.resolve(offsetPrefix(baseOffset) + TIME_INDEX_SUFFIX);
  }

  public static Path txnIndexFile(Path dir, long baseOffset) {
    return dir.resolve(offsetPrefix(baseOffset) + TXN_INDEX_SUFFIX);
  }

  /**
   * The transaction index beside a log file of any suffix: {@code <base>.log.cleaned} has {@code
   * <base>.txnindex.cleaned}.
   */
  public static Path txnIndexFileFor(Path logFile) {
    String name = logFile.getFileName().toString();
    int at = name.indexOf(LOG_SUFFIX, OFFSET_DIGITS);
    if (at != OFFSET_DIGITS) {
      throw new IllegalArgumentException("not a segment log file: " + logFile);
    }
    return logFile.resolveSibling(
        name.substring(0, at) + TXN_INDEX_SUFFIX + name.substring(at + LOG_SUFFIX.length()));
  }

  /**
   * The base offset a segment file is named after, or empty if the name is not {@code <20 digits>}
   * followed by {@code suffix}.
   */
  public static OptionalLong baseOffsetOf(Path file, String suffix) {
    String name = file.getFileName().toString();
    if (!name.endsWith(suffix) || name.length() != OFFSET_DIGITS + suffix.length()) {
      return OptionalLong.empty();
    }
    String digits = name.substring(0, OFFSET_DIGITS);
    for (int i = 0; i < digits.length(); i++) {
      if (!Character.isDigit(digits.charAt(i))) {
        return OptionalLong.empty();
      }
    }
    try {
      return OptionalLong.of(Long.parseLong(digits));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
