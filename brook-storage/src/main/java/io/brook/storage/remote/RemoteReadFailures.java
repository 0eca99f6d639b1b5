package io.brook.storage.remote;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator when a partition's remote reads fail, and when they work again. A fetch of
 * remote data that fails is answered KAFKA_STORAGE_ERROR, which consumers retry without end and
 * without telling anyone: a segment object deleted from the bucket by hand, or a store that is
 * down, would otherwise show only as consumers stuck at one offset. So the first failure of a
 * partition's remote reads is logged at WARN, then at most one line per partition every {@link
 * #WARN_INTERVAL_MS} with the number of failures since (a consumer retries every few hundred
 * milliseconds), and the first read that succeeds after them at INFO.
 *
 * <p>Bounded: one entry per partition whose reads are failing now, removed when one succeeds or the
 * partition leaves the broker.
 */
final class RemoteReadFailures {
  private static final Logger log = LoggerFactory.getLogger(RemoteReadFailures.class);

  /** At most one warning per partition in this many milliseconds. */
  static final long WARN_INTERVAL_MS = 60_000;

  private final Time time;
  private final ConcurrentHashMap<TopicPartition, Failing> failing = new ConcurrentHashMap<>();

  /**
   * A partition whose remote reads fail: when it was last logged, failures since (this one
   * included), and failures in all.
   */
  private static final class Failing {
    long loggedAtMs;
    long since;
    long total;

    Failing(long loggedAtMs) {
      this.loggedAtMs = loggedAtMs;
    }
  }

  RemoteReadFailures(Time time) {
    this.time = time;
  }

  /** A read of {@code tp}'s remote data from {@code fetchOffset} failed with {@code e}. */
  void failed(TopicPartition tp, long fetchOffset, IOException e) {
    long now = time.milliseconds();
    Failing fresh = new Failing(now);
    Failing f = failing.putIfAbsent(tp, fresh);
    boolean first = f == null;
    long since;
    long total;
    if (first) {
      f = fresh;
    }
    synchronized (f) {
      f.total++;
      f.since++;
      if (!first && now - f.loggedAtMs < WARN_INTERVAL_MS) {
        return;
      }
      since = f.since;
      total = f.total;
      f.since = 0;
      f.loggedAtMs = now;
    }
    String cause =
        e instanceof NoSuchFileException
            ? "an object of the remote log is missing from the store (was it deleted outside"
                + " Brook?)"
            : "the remote store failed";
    if (first) {
      log.warn(
          "Reading remote data failed: {}; fetches of this data answer KAFKA_STORAGE_ERROR until"
              + " a read succeeds topicPartition={} fetchOffset={}",
          cause,
          tp,
          fetchOffset,
          e);
    } else {
      log.warn(
          "Reading remote data still fails: {} topicPartition={} fetchOffset={}"
              + " failuresSinceLastWarning={} failures={} error={}",
          cause,
          tp,
          fetchOffset,
          since,
          total,
          e.toString());
    }
  }

  /** A read of {@code tp}'s remote data succeeded. */
  void succeeded(TopicPartition tp) {
    if (failing.isEmpty()) {
      return; // the common case: nothing to look up
    }
    Failing f = failing.remove(tp);
    if (f != null) {
      long total;
      synchronized (f) {
        total = f.total;
      }
      log.info("Reading remote data works again topicPartition={} failures={}", tp, total);
    }
  }

  /** {@code tp} left this broker: nothing more is said of it. */
  void forget(TopicPartition tp) {
    failing.remove(tp);
  }

  /** Partitions whose remote reads are failing now. */
  int failingPartitions() {
    return failing.size();
  }
}
