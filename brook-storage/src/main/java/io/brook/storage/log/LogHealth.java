package io.brook.storage.log;

import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a log may still be used: closed logs refuse writes; a log that hit an I/O error is
 * offline, refusing reads and writes until the broker restarts and recovers it. An I/O error of one
 * log also takes its whole log directory offline ({@link LogDirFailureChannel}), which then takes
 * every other log of the directory offline through {@link #markDirOffline()}.
 */
final class LogHealth {
  private static final Logger log = LoggerFactory.getLogger(LogHealth.class);

  private final TopicPartition topicPartition;
  private final Path dir;
  private final LogDirFailureChannel dirFailures;
  private volatile boolean offline;
  private volatile boolean closed;

  LogHealth(TopicPartition topicPartition, Path dir, LogDirFailureChannel dirFailures) {
    this.topicPartition = topicPartition;
    this.dir = dir;
    this.dirFailures = dirFailures;
  }

  boolean isOffline() {
    return offline;
  }

  boolean isClosed() {
    return closed;
  }

  void markClosed() {
    closed = true;
  }

  /** Another log of the same directory failed: this one stops serving too. */
  void markDirOffline() {
    offline = true;
  }

  void ensureWritable() {
    if (closed) {
      throw new StorageException(
          StorageError.LOG_CLOSED, "the log of " + topicPartition + " is closed");
    }
    ensureReadable();
  }

  void ensureReadable() {
    if (offline) {
      throw new StorageException(
          StorageError.KAFKA_STORAGE_ERROR,
          "the log of " + topicPartition + " is offline after an I/O error");
    }
  }

  /**
   * Takes the log and its log directory offline and returns the error to fail the current operation
   * with.
   */
  StorageException markOffline(String what, Throwable cause) {
    offline = true;
    log.error(
        "Partition taken offline after an I/O error topicPartition={} dir={} while={}",
        topicPartition,
        dir,
        what,
        cause);
    dirFailures.markOffline(dir.getParent(), what + " of " + topicPartition, cause);
    return new StorageException(
        StorageError.KAFKA_STORAGE_ERROR,
        "I/O error while " + what + " of " + topicPartition + ": " + cause.getMessage(),
        cause);
  }
}
