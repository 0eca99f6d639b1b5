package io.brook.storage.remote;

import java.nio.file.Path;

/**
 * The broker's tiered-storage settings, under Kafka's names.
 *
 * @param taskIntervalMs {@code remote.log.manager.task.interval.ms}: how often each leader
 *     partition's copy and expiry run
 * @param copierThreads {@code remote.log.manager.copier.thread.pool.size}
 * @param readerThreads {@code remote.log.reader.threads}
 * @param readerMaxPendingTasks {@code remote.log.reader.max.pending.tasks}: queued remote reads
 *     beyond which a fetch's remote read fails at once
 * @param indexCacheDir where fetched remote indexes are kept
 * @param indexCacheBytes {@code remote.log.index.file.cache.total.size.bytes}
 * @param fetchMaxWaitMs {@code remote.fetch.max.wait.ms}: how long a fetch waits for its remote
 *     read before it is answered without that partition's data
 * @param chunkCacheDir where chunks of remote segments' log files are kept
 * @param chunkCacheBytes {@code brook.remote.log.chunk.cache.total.size.bytes}: 0 turns the chunk
 *     cache off (reads then fetch from the store, with read-ahead for sequential readers)
 * @param chunkBytes {@code brook.remote.log.chunk.size.bytes}
 */
public record RemoteLogManagerConfig(
    long taskIntervalMs,
    int copierThreads,
    int readerThreads,
    int readerMaxPendingTasks,
    Path indexCacheDir,
    long indexCacheBytes,
    long fetchMaxWaitMs,
    Path chunkCacheDir,
    long chunkCacheBytes,
    int chunkBytes) {

  /** Whether remote reads go through the chunk cache. */
  public boolean chunkCacheEnabled() {
    return chunkCacheBytes > 0;
  }
}
