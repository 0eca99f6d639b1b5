package io.brook.broker.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clean-shutdown signal of KIP-966: the broker epoch a process had when it stopped with every
 * log flushed and closed, which the next process sends as {@code PreviousBrokerEpoch} when it
 * registers. A controller that sees another value (-1 included) knows the broker stopped uncleanly
 * (its log may lack records it acknowledged) and takes it out of every eligible leader replica set.
 *
 * <p>The epoch is kept in {@value #FILE} in each log directory, written only where the log manager
 * wrote its clean-shutdown marker (so only after the logs were closed cleanly), and read and
 * deleted once when the next process registers: a later crash then finds no file.
 */
public final class CleanShutdownEpoch {
  private static final Logger log = LoggerFactory.getLogger(CleanShutdownEpoch.class);

  /** The file holding the epoch, next to the log manager's clean-shutdown marker. */
  public static final String FILE = ".brook_broker_epoch";

  /** No clean shutdown known: Kafka's default of {@code PreviousBrokerEpoch}. */
  public static final long UNKNOWN = -1;

  private CleanShutdownEpoch() {}

  /**
   * Writes {@code epoch} into every directory of {@code logDirs} that holds {@code cleanMarker}
   * (the log manager's clean-shutdown marker). Nothing when the broker never registered.
   */
  public static void writeWhereClean(List<Path> logDirs, String cleanMarker, long epoch) {
    if (epoch < 0) {
      return;
    }
    for (Path dir : logDirs) {
      if (!Files.exists(dir.resolve(cleanMarker))) {
        continue;
      }
      try {
        Files.writeString(dir.resolve(FILE), Long.toString(epoch), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        // The next registration then counts as after an unclean shutdown: safe, only less
        // available.
        log.warn("Could not record the clean-shutdown broker epoch dir={}", dir, e);
      }
    }
  }

  /**
   * The epoch of the last clean shutdown when every directory of {@code logDirs} records the same
   * one, else {@link #UNKNOWN}; deletes the files either way.
   */
  public static long readAndDelete(List<Path> logDirs) {
    long epoch = UNKNOWN;
    boolean everywhere = !logDirs.isEmpty();
    for (Path dir : logDirs) {
      Path file = dir.resolve(FILE);
      long here = UNKNOWN;
      try {
        if (Files.exists(file)) {
          // Bounded: an epoch is at most 20 digits; anything longer is not ours.
          if (Files.size(file) <= 20) {
            here = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
          }
          Files.delete(file);
        }
      } catch (IOException | NumberFormatException e) {
        log.warn("Ignoring the clean-shutdown broker epoch dir={}", dir, e);
        here = UNKNOWN;
      }
      if (here == UNKNOWN || (epoch != UNKNOWN && here != epoch)) {
        everywhere = false;
      }
      epoch = here;
    }
    return everywhere ? epoch : UNKNOWN;
  }
}
