package io.brook.storage.remote;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.txn.AbortedTxn;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's tiered storage (KIP-405): every {@code remote.log.manager.task.interval.ms} it
 * copies and expires the remote data of each partition this broker leads whose topic has {@code
 * remote.storage.enable}, one task per partition at a time on a fixed pool of copier threads (for
 * compacted topics the same task keeps the remote copy compacted, {@link RemoteCompactor}); and it
 * serves reads below the local log start on a fixed pool of reader threads with a bounded queue.
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

  /**
   * Chunks of remote logs kept on local disk for every read ({@link RemoteChunkCache}); null when
   * {@code brook.remote.log.chunk.cache.total.size.bytes} is 0.
   */
  private final RemoteChunkCache chunks;

  /**
   * Without the chunk cache: remote bytes fetched ahead of consumers that read a partition in
   * sequence, 4 MiB past each read's limit, 64 MiB held at most over all partitions (see {@link
   * RemoteReadAhead}).
   */
  private final RemoteReadAhead readAhead =
      new RemoteReadAhead(READ_AHEAD_BYTES, READ_AHEAD_CAPACITY_BYTES, READ_AHEAD_PARTITIONS);

  static final int READ_AHEAD_BYTES = 4 << 20;
  static final long READ_AHEAD_CAPACITY_BYTES = 64L << 20;
  static final int READ_AHEAD_PARTITIONS = 4096;
  private final ConcurrentHashMap<TopicPartition, TieredPartition> tiers =
      new ConcurrentHashMap<>();
  private final Set<TopicPartition> copying = ConcurrentHashMap.newKeySet();

  /** Logs whose remote data was deleted when their remote storage was turned off. */
  private final ConcurrentHashMap<TopicPartition, PartitionLog> remoteDataDeleted =
      new ConcurrentHashMap<>();

  /** How long {@link #close} waits for a pool's running work before it interrupts it. */
  static final long CLOSE_WAIT_SECONDS = 30;

  private final ScheduledExecutorService ticker;
  private final ThreadPoolExecutor copiers;
  private final ThreadPoolExecutor readers;

  /** The local cleaner's first dirty offset per partition: compacted topics copy below it. */
  private volatile ToLongFunction<TopicPartition> cleanedUpTo = tp -> 0L;

  /** Null until {@link #attachCleaner}: compacted topics then copy nothing. */
  private volatile RemoteCompactor compactor;

  private volatile RemoteLogMetrics metrics = RemoteLogMetrics.NONE;

  /** Failing remote reads, told to the operator in the log (a fetch only answers an error). */
  private final RemoteReadFailures readFailures;

  /** Set by {@link #close}: periodic work still queued is dropped, work running stops early. */
  private volatile boolean closing;

  /** The id of a partition's topic now: remote data is kept by topic id. */
  private volatile Function<TopicPartition, Optional<Uuid>> topicIds = tp -> Optional.empty();

  public RemoteLogManager(RemoteSegmentStore store, RemoteLogManagerConfig config, Time time)
      throws IOException {
    this.store = store;
    this.config = config;
    this.time = time;
    this.readFailures = new RemoteReadFailures(time);
    this.indexes = new RemoteIndexCache(config.indexCacheDir(), config.indexCacheBytes());
    if (config.chunkCacheEnabled()) {
      this.chunks =
          new RemoteChunkCache(
              config.chunkCacheDir(), config.chunkBytes(), config.chunkCacheBytes());
    } else {
      this.chunks = null;
      if (Files.isDirectory(config.chunkCacheDir())) {
        // Left by a run with the cache on: its chunks may belong to segments deleted since.
        RemoteIndexCache.emptyDirectory(config.chunkCacheDir());
      }
    }
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

  /**
   * Lets compacted topics be tiered: {@code cleanedUpTo} tells how far the local cleaner has
   * cleaned each log (only that is copied), and remote compaction gets the memory of one cleaner
   * thread ({@code log.cleaner.dedupe.buffer.size} / {@code log.cleaner.threads}) and builds its
   * segments in {@code <index cache dir>-compaction}. Call before {@link #start}.
   */
  public void attachCleaner(ToLongFunction<TopicPartition> cleanedUpTo, CleanerConfig cleaner)
      throws IOException {
    Path cacheDir = config.indexCacheDir();
    this.compactor =
        new RemoteCompactor(
            cleaner.dedupeBufferPerThread(),
            cleaner.dedupeBufferLoadFactor(),
            cleaner.ioBufferPerThread(),
            cacheDir.resolveSibling(cacheDir.getFileName() + "-compaction"),
            time);
    this.cleanedUpTo = cleanedUpTo;
  }

  /** {@code remote.fetch.max.wait.ms}. */
  public long fetchMaxWaitMs() {
    return config.fetchMaxWaitMs();
  }

  /**
   * A log of a tiered topic on this broker: as leader in {@code leaderEpoch} ({@code leading} says
   * whether it still is, checked before every manifest write), or as a follower.
   */
  public record TieredLog(
      PartitionLog log, boolean leader, int leaderEpoch, BooleanSupplier leading) {}

  /**
   * Tells the manager how to find the topic id of a partition hosted here (its remote data is kept
   * under it). Set before {@link #start}.
   */
  public void topicIds(Function<TopicPartition, Optional<Uuid>> resolver) {
    this.topicIds = resolver;
  }

  /** Reports copies and remote reads to {@code metrics} from now on. */
  public void metrics(RemoteLogMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * Bytes in remote storage of the partitions of {@code topic} (all topics if null) this broker
   * leads (RemoteLogSizeBytes).
   */
  public long remoteLogSizeBytes(String topic) {
    return sumOverLed(topic, false, TieredPartition::remoteSizeBytes);
  }

  /**
   * Bytes in remote storage of {@code partition} when this broker leads it and tiers it, else -1.
   */
  public long remoteSizeBytes(TopicPartition partition) {
    TieredPartition tier = tiers.get(partition);
    return tier == null || tier.leaderEpoch() < 0 ? -1 : tier.remoteSizeBytes();
  }

  /**
   * Bytes of rolled segments of {@code topic} (all if null) not copied yet (RemoteCopyLagBytes).
   */
  public long copyLagBytes(String topic) {
    return sumOverLed(topic, true, TieredPartition::copyLagBytes);
  }

  /** Rolled segments of {@code topic} (all if null) not copied yet (RemoteCopyLagSegments). */
  public long copyLagSegments(String topic) {
    return sumOverLed(topic, true, TieredPartition::copyLagSegments);
  }

  /** Sums {@code value} over the partitions of {@code topic} (null: all) this broker leads. */
  private long sumOverLed(String topic, boolean skipFenced, ToLongFunction<TieredPartition> value) {
    long sum = 0;
    for (TieredPartition tier : tiers.values()) {
      if (tier.leaderEpoch() >= 0
          && !(skipFenced && tier.fenced())
          && (topic == null || topic.equals(tier.topicPartition().topic()))) {
        sum += value.applyAsLong(tier);
      }
    }
    return sum;
  }

  private TopicIdPartition idOf(PartitionLog partitionLog) throws IOException {
    TopicPartition tp = partitionLog.topicPartition();
    Uuid id =
        topicIds
            .apply(tp)
            .orElseThrow(() -> new IOException("the topic id of " + tp + " is not known here"));
    return new TopicIdPartition(id, tp);
  }

  /**
   * Starts the periodic work on the logs {@code logs} lists: copy and expiry where this broker
   * leads, local retention of what the leader copied where it follows.
   */
  public void start(Supplier<Collection<TieredLog>> logs) {
    ticker.scheduleWithFixedDelay(
        () -> submitAll(logs.get()),
        config.taskIntervalMs(),
        config.taskIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  private void submitAll(Collection<TieredLog> logs) {
    for (TieredLog tiered : logs) {
      PartitionLog partitionLog = tiered.log();
      TopicPartition tp = partitionLog.topicPartition();
      boolean enabled = partitionLog.config().remoteStorageEnable();
      boolean deleting =
          !enabled
              && partitionLog.config().remoteLogDeleteOnDisable()
              && tiered.leader()
              && remoteDataDeleted.get(tp) != partitionLog;
      if (enabled) {
        remoteDataDeleted.remove(tp);
      }
      if (!(enabled || deleting) || partitionLog.isOffline()) {
        continue;
      }
      if (!copying.add(tp)) {
        continue; // the previous run of this partition has not finished
      }
      try {
        copiers.execute(
            () -> {
              try {
                if (closing) {
                  return;
                }
                if (deleting) {
                  deleteOnDisable(partitionLog, tiered.leaderEpoch(), tiered.leading());
                } else if (tiered.leader()) {
                  copyAndExpire(partitionLog, tiered.leaderEpoch(), tiered.leading());
                } else {
                  followerRetention(partitionLog);
                }
              } finally {
                copying.remove(tp);
              }
            });
      } catch (RejectedExecutionException e) {
        copying.remove(tp);
      }
    }
  }

  /**
   * {@code remote.storage.enable} turned off with {@code remote.log.delete.on.disable=true} (Kafka
   * 3.9+): the leader deletes the partition's remote data, every segment through the manifest's
   * DELETE states, then the manifest. Done once per log; retried at the next tick if it fails.
   */
  private void deleteOnDisable(
      PartitionLog partitionLog, int leaderEpoch, BooleanSupplier leading) {
    TopicPartition tp = partitionLog.topicPartition();
    try {
      if (store.readManifestVersion(idOf(partitionLog)).isPresent()) {
        TieredPartition tier = leaderTier(partitionLog, leaderEpoch, leading);
        int segments = tier.manifest().segments().size();
        tier.deleteAll();
        log.info(
            "Deleted the remote data of a partition whose remote storage was turned off"
                + " topicPartition={} segments={}",
            tp,
            segments);
      }
      tiers.remove(tp);
      remoteDataDeleted.put(tp, partitionLog);
    } catch (IOException | RuntimeException e) {
      log.warn(
          "Deleting the remote data of a partition whose remote storage was turned off failed,"
              + " retrying later topicPartition={}",
          tp,
          e);
    }
  }

  /** One partition's copy then expiry, now, on the calling thread (tests call it directly). */
  public void copyAndExpire(PartitionLog partitionLog) {
    copyAndExpire(partitionLog, 0, () -> true);
  }

  private void copyAndExpire(PartitionLog partitionLog, int leaderEpoch, BooleanSupplier leading) {
    try {
      TieredPartition tier = leaderTier(partitionLog, leaderEpoch, leading);
      tier.copyEligible(() -> closing);
      if (closing) {
        return;
      }
      tier.expire();
      tier.deleteReplaced();
      RemoteCompactor remoteCompactor = compactor;
      if (remoteCompactor != null) {
        tier.compactIfDirty(remoteCompactor);
      }
    } catch (IOException | RuntimeException e) {
      // Retried at the next tick; the manifest states make a half-done copy safe to redo.
      log.warn(
          "Remote copy, expiry or compaction failed, retrying later topicPartition={}",
          partitionLog.topicPartition(),
          e);
    }
  }

  /**
   * DeleteRecords on a tiered partition this broker leads in {@code leaderEpoch}: moves the remote
   * log start offset to {@code offset} in the manifest on a copier thread (the future completes
   * with the partition's log start after the move, once the manifest is written), then deletes the
   * remote segments wholly below it unless the partition's periodic task is running (it will).
   */
  public CompletableFuture<Long> moveLogStart(
      PartitionLog partitionLog, int leaderEpoch, BooleanSupplier leading, long offset) {
    CompletableFuture<Long> done = new CompletableFuture<>();
    TopicPartition tp = partitionLog.topicPartition();
    try {
      copiers.execute(
          () -> {
            TieredPartition tier;
            try {
              tier = leaderTier(partitionLog, leaderEpoch, leading);
              done.complete(tier.moveLogStart(offset));
            } catch (ManifestConflictException e) {
              // A later leader owns the manifest: as if this broker no longer led (it does not).
              done.completeExceptionally(
                  new StorageException(
                      StorageError.LOG_CLOSED, "another leader writes the manifest of " + tp, e));
              return;
            } catch (IOException e) {
              done.completeExceptionally(
                  new StorageException(
                      StorageError.KAFKA_STORAGE_ERROR,
                      "moving the remote log start offset of " + tp,
                      e));
              return;
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
              return;
            }
            if (copying.add(tp)) {
              try {
                tier.expire();
              } catch (IOException | RuntimeException e) {
                log.warn("Remote expiry failed, retrying later topicPartition={}", tp, e);
              } finally {
                copying.remove(tp);
              }
            }
          });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(
          new StorageException(StorageError.KAFKA_STORAGE_ERROR, "too much queued remote work", e));
    }
    return done;
  }

  /**
   * A follower's local retention: the manifest says how far the leader has copied, so local
   * segments below that may go by {@code local.retention.*}, as on the leader. Only reads the
   * store.
   */
  public void followerRetention(PartitionLog partitionLog) {
    try {
      long copiedEnd = TieredPartition.readManifest(store, idOf(partitionLog)).copiedEnd();
      partitionLog.remoteCopiedUpTo(copiedEnd);
      partitionLog.deleteOldSegments();
    } catch (IOException | RuntimeException e) {
      log.warn(
          "Reading the remote manifest failed, retrying later topicPartition={}",
          partitionLog.topicPartition(),
          e);
    }
  }

  /**
   * A follower whose fetch offset is below the leader's local log start (OFFSET_MOVED_TO_TIERED_
   * STORAGE): restarts {@code partitionLog} empty at {@code leaderLocalStart} with the state the
   * records below it would have built, taken from the remote segment that ends just below it: its
   * leader-epoch checkpoint and its producer snapshot (Kafka's tier state machine). Without such a
   * segment (the leader's local start is not a copied boundary) the log starts there without them.
   * Blocks on the store: call it from the replica fetcher, never an event loop.
   */
  public void startFollowerAt(PartitionLog partitionLog, long leaderLocalStart) throws IOException {
    TopicIdPartition tp = idOf(partitionLog);
    RemoteLogManifest manifest = TieredPartition.readManifest(store, tp);
    Optional<RemoteSegment> below = Optional.empty();
    for (RemoteSegment s : manifest.readable()) {
      if (s.nextOffset() == leaderLocalStart) {
        below = Optional.of(s);
      }
    }
    if (below.isEmpty()) {
      log.info(
          "No remote segment ends below the leader's local log start, starting the follower"
              + " without remote state topicPartition={} offset={}",
          tp,
          leaderLocalStart);
      partitionLog.truncateFullyAndStartAt(leaderLocalStart);
      return;
    }
    List<EpochEntry> epochs =
        RemoteEpochs.parse(
            store.fetchFile(tp, below.get(), RemoteFileType.LEADER_EPOCH).orElse(new byte[0]));
    Optional<byte[]> snapshot = store.fetchFile(tp, below.get(), RemoteFileType.PRODUCER_SNAPSHOT);
    partitionLog.restartFromRemote(leaderLocalStart, epochs, snapshot);
    log.info(
        "Follower rebuilt its log start from remote storage topicPartition={} offset={}"
            + " epochs={} producerSnapshot={}",
        tp,
        leaderLocalStart,
        epochs.size(),
        snapshot.isPresent());
  }

  /**
   * The tier of the leader in {@code leaderEpoch}, opened anew (manifest re-read, leftovers of a
   * crashed or replaced leader cleaned up) the first time this broker leads in that epoch.
   */
  private TieredPartition leaderTier(
      PartitionLog partitionLog, int leaderEpoch, BooleanSupplier leading) throws IOException {
    TopicPartition tp = partitionLog.topicPartition();
    synchronized (this) {
      TieredPartition tier = tiers.get(tp);
      if (tier == null || tier.log() != partitionLog || tier.leaderEpoch() != leaderEpoch) {
        ToLongFunction<TopicPartition> cleaned = cleanedUpTo;
        tier =
            TieredPartition.open(
                store,
                indexes,
                partitionLog,
                idOf(partitionLog).topicId(),
                time,
                leaderEpoch,
                leading,
                () -> cleaned.applyAsLong(tp));
        tier.reportTo(metrics);
        serveReads(tier);
        tiers.put(tp, tier);
      }
      return tier;
    }
  }

  /**
   * The partition's remote tier for reads, opened (manifest read) on first use. May block on the
   * store: background threads only.
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
        tier =
            TieredPartition.openForReads(
                store, indexes, partitionLog, idOf(partitionLog).topicId(), time);
        serveReads(tier);
        tiers.put(tp, tier);
      }
      return tier;
    }
  }

  /** Reads of {@code tier} go through the chunk cache, or without it read ahead. */
  private void serveReads(TieredPartition tier) {
    if (chunks != null) {
      tier.chunkCache(chunks);
    } else {
      tier.readAhead(readAhead);
    }
  }

  /**
   * The chunk cache's counts since start: chunk reads served from local disk ({@code hits}), chunks
   * fetched from the store ({@code misses}) and their bytes ({@code fetchedBytes}); and the bytes
   * it holds now ({@code cachedBytes}).
   */
  public record ChunkCacheStats(long hits, long misses, long fetchedBytes, long cachedBytes) {}

  /** What the chunk cache has done; empty when it is off. */
  public Optional<ChunkCacheStats> chunkCacheStats() {
    return chunks == null ? Optional.empty() : Optional.of(chunks.stats());
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
   * otherwise none. A read whose future is already complete when its turn on a reader thread comes
   * (its fetch stopped waiting for it) is not done at all.
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
            if (done.isDone()) {
              return;
            }
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
              metrics.succeeded(
                  partitionLog.topicPartition().topic(),
                  RemoteLogMetrics.Operation.FETCH,
                  records.sizeInBytes());
              readFailures.succeeded(partitionLog.topicPartition());
              done.complete(new RemoteRead(records, aborted));
            } catch (IOException e) {
              metrics.failed(
                  partitionLog.topicPartition().topic(), RemoteLogMetrics.Operation.FETCH);
              readFailures.failed(partitionLog.topicPartition(), fetchOffset, e);
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

  /**
   * Deletes every remote object of a partition whose topic was deleted, in the background: the
   * segments the manifest names, then the manifest. Every replica does it when its log goes; the
   * deletes are idempotent and nothing is written, so replicas racing cannot bring a manifest back.
   */
  public void deleteRemoteData(TopicIdPartition tp) {
    tiers.remove(tp.topicPartition());
    readFailures.forget(tp.topicPartition());
    metrics.topicDeleted(tp.topic());
    try {
      copiers.execute(
          () -> {
            try {
              RemoteLogManifest manifest = TieredPartition.readManifest(store, tp);
              for (RemoteSegment s : manifest.segments()) {
                store.deleteSegment(tp, s);
                indexes.remove(s);
                if (chunks != null) {
                  chunks.remove(s);
                }
              }
              store.deleteManifest(tp);
              log.info(
                  "Deleted the remote data of a deleted topic's partition topicPartition={}"
                      + " segments={}",
                  tp,
                  manifest.segments().size());
            } catch (IOException | RuntimeException e) {
              log.warn(
                  "Deleting the remote data of a deleted topic's partition failed"
                      + " topicPartition={}",
                  tp,
                  e);
            }
          });
    } catch (RejectedExecutionException e) {
      log.warn("Too much queued remote work, remote data left topicPartition={}", tp);
    }
  }

  /** Forgets a partition whose log left this broker; its remote data stays. */
  public void forget(TopicPartition tp) {
    tiers.remove(tp);
    readFailures.forget(tp);
  }

  /**
   * Stops the background work without interrupting it, waiting up to {@link #CLOSE_WAIT_SECONDS}
   * per pool. An interrupt closes whatever FileChannel the thread is using (a segment being read
   * for upload, a checkpoint being replaced), which fails that write, takes the log directory
   * offline and leaves it without a clean-shutdown marker: the next start would recover it. So a
   * copy in progress finishes its segment and the rest of its run is skipped; only work still
   * running after the wait is interrupted.
   */
  @Override
  public void close() throws IOException {
    closing = true;
    ticker.shutdownNow();
    copiers.shutdown();
    readers.shutdown();
    try {
      stop(copiers, "copies");
      stop(readers, "reads");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
  }

  private static void stop(ThreadPoolExecutor pool, String work) throws InterruptedException {
    if (!pool.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
      log.warn(
          "Remote {} still running after {} s, interrupting them; the log directory may need"
              + " recovery at the next start",
          work,
          CLOSE_WAIT_SECONDS);
      pool.shutdownNow();
      pool.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }
}
