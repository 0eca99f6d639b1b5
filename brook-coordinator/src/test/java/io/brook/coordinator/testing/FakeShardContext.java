package io.brook.coordinator.testing;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorShard;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.coordinator.runtime.ShardTimer;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A single-threaded {@link ShardContext} for unit tests: a manual clock, timers that fire when the
 * test advances the clock, and writes that replay into the shard and commit at once (or stay
 * pending, or fail, when the test says so). Every written record is kept for inspection and for
 * replaying into a fresh shard, which is how tests check that loading rebuilds the same state.
 */
public final class FakeShardContext implements ShardContext, ShardTimer {
  private final int partition;
  private final Map<String, Scheduled> timers = new HashMap<>();
  private final List<LogEntry> log = new ArrayList<>();
  private final Map<Long, Short> producerEpochs = new HashMap<>();
  private final List<CompletableFuture<Void>> pendingCommits = new ArrayList<>();
  private CoordinatorShard shard;
  private MetadataImage image = MetadataImage.EMPTY;
  private long nowMs;
  private long sequence;
  private boolean holdCommits;
  private RuntimeException failWrites;

  private record Scheduled(long deadlineMs, long sequence, Runnable task) {}

  /** A record (of a producer's transaction, or not) or a transaction marker. */
  private record LogEntry(
      CoordinatorRecord record, long producerId, short producerEpoch, TxnResult marker) {}

  public FakeShardContext(int partition, long startMs) {
    this.partition = partition;
    this.nowMs = startMs;
  }

  /** The shard that {@link #write} replays into. */
  public void attach(CoordinatorShard shard) {
    this.shard = shard;
  }

  public void setImage(MetadataImage image) {
    this.image = image;
  }

  /** While held, writes replay but their futures stay pending until {@link #releaseCommits}. */
  public void holdCommits(boolean hold) {
    this.holdCommits = hold;
  }

  public void releaseCommits() {
    List<CompletableFuture<Void>> pending = List.copyOf(pendingCommits);
    pendingCommits.clear();
    pending.forEach(f -> f.complete(null));
  }

  /** Fails the writes held so far with {@code error}, as a write not replicated in time fails. */
  public void failPendingCommits(RuntimeException error) {
    List<CompletableFuture<Void>> pending = List.copyOf(pendingCommits);
    pendingCommits.clear();
    pending.forEach(f -> f.completeExceptionally(error));
  }

  /** Makes every following write fail with {@code error} (null to stop). */
  public void failWrites(RuntimeException error) {
    this.failWrites = error;
  }

  /** Every record written so far, in order, transactional ones included; markers left out. */
  public List<CoordinatorRecord> records() {
    List<CoordinatorRecord> records = new ArrayList<>();
    for (LogEntry entry : log) {
      if (entry.record() != null) {
        records.add(entry.record());
      }
    }
    return records;
  }

  /** Replays everything written so far into {@code fresh}, as loading would. */
  public void replayInto(CoordinatorShard fresh) {
    long offset = 0;
    for (LogEntry entry : log) {
      replay(fresh, entry, offset++);
    }
    fresh.onLoaded();
  }

  private static void replay(CoordinatorShard target, LogEntry entry, long offset) {
    if (entry.marker() != null) {
      target.replayEndTransactionMarker(entry.producerId(), entry.producerEpoch(), entry.marker());
    } else if (entry.producerId() == RecordBatch.NO_PRODUCER_ID) {
      target.replay(duplicate(entry.record()), offset);
    } else {
      target.replay(duplicate(entry.record()), offset, entry.producerId(), entry.producerEpoch());
    }
  }

  private static CoordinatorRecord duplicate(CoordinatorRecord record) {
    return new CoordinatorRecord(
        record.type(),
        record.key().duplicate(),
        record.value() == null ? null : record.value().duplicate());
  }

  /** Moves the clock and runs every timer that falls due, in deadline order. */
  public void advance(long ms) {
    long target = nowMs + ms;
    while (true) {
      Optional<Map.Entry<String, Scheduled>> next =
          timers.entrySet().stream()
              .filter(e -> e.getValue().deadlineMs() <= target)
              .min(
                  Comparator.comparingLong(
                          (Map.Entry<String, Scheduled> e) -> e.getValue().deadlineMs())
                      .thenComparingLong(e -> e.getValue().sequence()));
      if (next.isEmpty()) {
        break;
      }
      timers.remove(next.get().getKey());
      nowMs = Math.max(nowMs, next.get().getValue().deadlineMs());
      next.get().getValue().task().run();
    }
    nowMs = target;
  }

  @Override
  public int partition() {
    return partition;
  }

  @Override
  public long nowMs() {
    return nowMs;
  }

  @Override
  public ShardTimer timer() {
    return this;
  }

  @Override
  public Executor executor() {
    return Runnable::run;
  }

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public CompletableFuture<Void> write(List<CoordinatorRecord> records) {
    if (failWrites != null) {
      return CompletableFuture.failedFuture(failWrites);
    }
    List<LogEntry> entries = new ArrayList<>();
    for (CoordinatorRecord record : records) {
      entries.add(
          new LogEntry(
              duplicate(record), RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, null));
    }
    return append(entries);
  }

  /** Like the log's producer state: an epoch older than the producer's last one is fenced. */
  @Override
  public CompletableFuture<Void> writeTransactional(
      List<CoordinatorRecord> records, long producerId, short producerEpoch) {
    if (records.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (failWrites == null && fenced(producerId, producerEpoch)) {
      return CompletableFuture.failedFuture(
          new InvalidProducerEpochException("producer " + producerId + " was fenced"));
    }
    List<LogEntry> entries = new ArrayList<>();
    for (CoordinatorRecord record : records) {
      entries.add(new LogEntry(duplicate(record), producerId, producerEpoch, null));
    }
    return append(entries);
  }

  @Override
  public CompletableFuture<Void> writeMarker(
      long producerId, short producerEpoch, int coordinatorEpoch, TxnResult result) {
    if (failWrites == null && fenced(producerId, producerEpoch)) {
      return CompletableFuture.failedFuture(
          new InvalidProducerEpochException("producer " + producerId + " was fenced"));
    }
    return append(List.of(new LogEntry(null, producerId, producerEpoch, result)));
  }

  private boolean fenced(long producerId, short producerEpoch) {
    Short known = producerEpochs.get(producerId);
    if (known != null && producerEpoch < known) {
      return true;
    }
    producerEpochs.put(producerId, producerEpoch);
    return false;
  }

  private CompletableFuture<Void> append(List<LogEntry> entries) {
    if (failWrites != null) {
      return CompletableFuture.failedFuture(failWrites);
    }
    for (LogEntry entry : entries) {
      log.add(entry);
      replay(shard, entry, log.size() - 1L);
    }
    CompletableFuture<Void> committed = new CompletableFuture<>();
    if (holdCommits && !entries.isEmpty()) {
      pendingCommits.add(committed);
    } else {
      committed.complete(null);
    }
    return committed;
  }

  @Override
  public void schedule(String key, long delayMs, Runnable task) {
    timers.put(key, new Scheduled(nowMs + Math.max(0, delayMs), sequence++, task));
  }

  @Override
  public void cancel(String key) {
    timers.remove(key);
  }

  @Override
  public boolean isScheduled(String key) {
    return timers.containsKey(key);
  }
}
