package io.brook.storage.remote;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.txn.AbortedTxn;
import java.io.Closeable;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's tiered storage (KIP-405): every {@code remote.log.manager.task.interval.ms} it
 * copies and expires the remote data of each partition this broker leads whose topic has {@code
 * remote.storage.enable}, one task per partition at a time on a fixed pool of copier threads; and
 * it serves reads below the local log start on a fixed pool of reader threads with a bounded queue.
 * Nothing here runs on an event loop: a fetch hands its remote read over and is answered when the
 * returned future completes.
 */
public final class RemoteLogManager implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(RemoteLogManager.class);

  /** Copy tasks queued at most: one per partition; the next tick retries what did not fit. */
  private static final int MAX_QUEUED_COPIES = 10_000;

  private final RemoteSegmentStore store;
  private final RemoteLogManagerConfig config;
  private final Time time;
  private final RemoteIndexCache indexes;
  private final ConcurrentHashMap<TopicPartition, TieredPartition> tiers =
      new ConcurrentHashMap<>();
  private final Set<TopicPartition> copying = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService ticker;
  private final ThreadPoolExecutor copiers;
  private final ThreadPoolExecutor readers;

  public RemoteLogManager(RemoteSegmentStore store, RemoteLogManagerConfig config, Time time)
      throws IOException {
    this.store = store;
    this.config = config;
    this.time = time;
    this.indexes = new RemoteIndexCache(config.indexCacheDir(), config.indexCacheBytes());
    this.ticker = Executors.newSingleThreadScheduledExecutor(threads("brook-remote-log-tick"));
    this.copiers = pool("brook-remote-log-copier", config.copierThreads(), MAX_QUEUED_COPIES);
    this.readers =
        pool("brook-remote-log-reader", config.readerThreads(), config.readerMaxPendingTasks());
  }

  private static ThreadPoolExecutor pool(String name, int threads, int queue) {
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queue),
        threads(name),
        new ThreadPoolExecutor.AbortPolicy());
  }

  private static java.util.concurrent.ThreadFactory threads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  public RemoteSegmentStore store() {
    return store;
  }

  /** {@code remote.fetch.max.wait.ms}. */
  public long fetchMaxWaitMs() {
    return config.fetchMaxWaitMs();
  }

  /**
   * Starts the periodic copy and expiry of the partitions {@code leaderLogs} lists (the logs this
   * broker leads).
   */
  public void start(Supplier<Collection<PartitionLog>> leaderLogs) {
    ticker.scheduleWithFixedDelay(
        () -> submitAll(leaderLogs.get()),
        config.taskIntervalMs(),
        config.taskIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  private void submitAll(Collection<PartitionLog> logs) {
    for (PartitionLog partitionLog : logs) {
      if (!partitionLog.config().remoteStorageEnable() || partitionLog.isOffline()) {
        continue;
      }
      TopicPartition tp = partitionLog.topicPartition();
      if (!copying.add(tp)) {
        continue; // the previous run of this partition has not finished
      }
      try {
        copiers.execute(
            () -> {
              try {
                copyAndExpire(partitionLog);
              } finally {
                copying.remove(tp);
              }
            });
      } catch (RejectedExecutionException e) {
        copying.remove(tp);
      }
    }
  }

  /** One partition's copy then expiry, now, on the calling thread (tests call it directly). */
  public void copyAndExpire(PartitionLog partitionLog) {
    try {
      TieredPartition tier = tier(partitionLog);
      tier.copyEligible();
      tier.expire();
    } catch (IOException | RuntimeException e) {
      // Retried at the next tick; the manifest states make a half-done copy safe to redo.
      log.warn(
          "Remote copy or expiry failed, retrying later topicPartition={}",
          partitionLog.topicPartition(),
          e);
    }
  }

  /**
   * The partition's remote tier, opened (manifest read, crash leftovers cleaned) on first use. May
   * block on the store: background threads only.
   */
  public TieredPartition tier(PartitionLog partitionLog) throws IOException {
    TopicPartition tp = partitionLog.topicPartition();
    TieredPartition tier = tiers.get(tp);
    if (tier != null && tier.log() == partitionLog) {
      return tier;
    }
    synchronized (this) {
      tier = tiers.get(tp);
      if (tier == null || tier.log() != partitionLog) {
        tier = TieredPartition.open(store, indexes, partitionLog, time);
        tiers.put(tp, tier);
      }
      return tier;
    }
  }

  /** The tier if already open, without blocking. */
  public Optional<TieredPartition> openedTier(PartitionLog partitionLog) {
    TieredPartition tier = tiers.get(partitionLog.topicPartition());
    return tier != null && tier.log() == partitionLog ? Optional.of(tier) : Optional.empty();
  }

  /**
   * Reads below the local log start on a reader thread. The future fails with {@link
   * StorageException} OFFSET_OUT_OF_RANGE if remote storage does not hold the offset either, and at
   * once if the reader queue is full.
   */
  public CompletableFuture<MemoryRecords> read(
      PartitionLog partitionLog,
      long fetchOffset,
      int maxBytes,
      long maxOffset,
      boolean minOneBatch) {
    return read(partitionLog, fetchOffset, maxBytes, maxOffset, minOneBatch, false)
        .thenApply(RemoteRead::records);
  }

  /** What a remote read sends: records, and for read_committed the aborts among them. */
  public record RemoteRead(MemoryRecords records, List<AbortedTxn> abortedTransactions) {}

  /**
   * As {@link #read(PartitionLog, long, int, long, boolean)}; with {@code readCommitted} also the
   * aborted transactions overlapping what was read ({@link TieredPartition#abortedTransactions}),
   * otherwise none.
   */
  public CompletableFuture<RemoteRead> read(
      PartitionLog partitionLog,
      long fetchOffset,
      int maxBytes,
      long maxOffset,
      boolean minOneBatch,
      boolean readCommitted) {
    CompletableFuture<RemoteRead> done = new CompletableFuture<>();
    try {
      readers.execute(
          () -> {
            try {
              TieredPartition tier = tier(partitionLog);
              MemoryRecords records = tier.read(fetchOffset, maxBytes, maxOffset, minOneBatch);
              List<AbortedTxn> aborted = List.of();
              if (readCommitted && records.sizeInBytes() > 0) {
                long upperBound = fetchOffset;
                for (RecordBatch batch : records.batches()) {
                  upperBound = batch.nextOffset();
                }
                aborted = tier.abortedTransactions(fetchOffset, upperBound);
              }
              done.complete(new RemoteRead(records, aborted));
            } catch (IOException e) {
              done.completeExceptionally(
                  new StorageException(
                      StorageError.KAFKA_STORAGE_ERROR,
                      "reading remote storage for " + partitionLog.topicPartition(),
                      e));
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(
          new StorageException(
              StorageError.KAFKA_STORAGE_ERROR, "too many pending remote reads", e));
    }
    return done;
  }

  /** Forgets a partition whose log left this broker; its remote data stays. */
  public void forget(TopicPartition tp) {
    tiers.remove(tp);
  }

  @Override
  public void close() throws IOException {
    ticker.shutdownNow();
    copiers.shutdownNow();
    readers.shutdownNow();
    try {
      copiers.awaitTermination(10, TimeUnit.SECONDS);
      readers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
  }
}
