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
 */
public record RemoteLogManagerConfig(
    long taskIntervalMs,
    int copierThreads,
    int readerThreads,
    int readerMaxPendingTasks,
    Path indexCacheDir,
    long indexCacheBytes,
    long fetchMaxWaitMs) {}
