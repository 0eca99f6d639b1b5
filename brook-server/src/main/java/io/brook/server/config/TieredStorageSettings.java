package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static io.brook.server.config.ConfigTable.nonEmptyIfSet;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import io.brook.storage.log.LogConfig;

/** Copying closed segments to remote storage and reading them back (KIP-405). */
final class TieredStorageSettings {

  static final String SYSTEM_ENABLE = "remote.log.storage.system.enable";
  static final String MANAGER_CLASS_NAME = "remote.log.storage.manager.class.name";
  static final String MANAGER_IMPL_PREFIX = "remote.log.storage.manager.impl.prefix";
  static final String METADATA_MANAGER_IMPL_PREFIX = "remote.log.metadata.manager.impl.prefix";
  static final String INDEX_CACHE_BYTES = "remote.log.index.file.cache.total.size.bytes";
  static final String CHUNK_CACHE_BYTES = "brook.remote.log.chunk.cache.total.size.bytes";
  static final String CHUNK_BYTES = "brook.remote.log.chunk.size.bytes";
  static final String COPIER_THREADS = "remote.log.manager.copier.thread.pool.size";
  static final String TASK_INTERVAL_MS = "remote.log.manager.task.interval.ms";
  static final String READER_THREADS = "remote.log.reader.threads";
  static final String READER_MAX_PENDING = "remote.log.reader.max.pending.tasks";
  static final String FETCH_MAX_WAIT_MS = "remote.fetch.max.wait.ms";

  private TieredStorageSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.TIERED_STORAGE)
        .uses(
            SYSTEM_ENABLE,
            BOOLEAN,
            false,
            ANY,
            MEDIUM,
            "Turn tiered storage on for this broker; topics opt in with remote.storage.enable, which is refused (INVALID_CONFIG) on a cluster without this setting: every node needs it, controllers included.")
        .uses(
            MANAGER_CLASS_NAME,
            STRING,
            null,
            nonEmptyIfSet(),
            MEDIUM,
            "Implementation of the remote storage plugin: io.brook.storage.remote.LocalFsSegmentStore (the default when unset: rsm.config.dir, by default <first log dir>-remote-storage) or io.brook.storage.s3.S3SegmentStore.")
        .accepts(
            "remote.log.storage.manager.class.path",
            STRING,
            null,
            ANY,
            MEDIUM,
            "Class path searched first for the remote storage plugin.")
        .uses(
            MANAGER_IMPL_PREFIX,
            STRING,
            "rsm.config.",
            nonEmptyIfSet(),
            MEDIUM,
            "Prefix of the configs passed to the remote storage plugin (prefix removed); keys under it are not reported as unknown.")
        .accepts(
            "remote.log.metadata.manager.class.name",
            STRING,
            "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager",
            nonEmptyIfSet(),
            MEDIUM,
            "Implementation of the store of remote segment metadata.")
        .accepts(
            "remote.log.metadata.manager.class.path",
            STRING,
            null,
            ANY,
            MEDIUM,
            "Class path searched first for the remote metadata plugin.")
        .uses(
            METADATA_MANAGER_IMPL_PREFIX,
            STRING,
            "rlmm.config.",
            nonEmptyIfSet(),
            MEDIUM,
            "Prefix of the configs passed to the remote metadata plugin; Brook keeps remote metadata in a manifest, and keys under it are accepted, not reported as unknown.")
        .accepts(
            "remote.log.metadata.manager.listener.name",
            STRING,
            null,
            nonEmptyIfSet(),
            MEDIUM,
            "Local listener the remote metadata plugin connects to, if it needs one.")
        .accepts(
            "remote.log.metadata.custom.metadata.max.bytes",
            INT,
            128,
            atLeast(0),
            LOW,
            "Largest custom metadata a remote storage plugin may attach to a segment.")
        .uses(
            INDEX_CACHE_BYTES,
            LONG,
            1024L * 1024 * 1024,
            atLeast(1),
            LOW,
            "Local disk space for index files fetched from remote storage (a folder next to the first log dir).")
        .uses(
            CHUNK_CACHE_BYTES,
            LONG,
            1024L * 1024 * 1024,
            atLeast(0),
            LOW,
            "Brook only: local disk space for chunks of remote segments' log files (a folder next to"
                + " the first log dir, <first log dir>-remote-chunk-cache, emptied at start). Remote"
                + " reads are served from these chunks and fetch only the missing ones, one ranged"
                + " GET per chunk; the least recently used go past this bound. 0 turns the cache"
                + " off: every read then fetches its own byte range, with read-ahead for sequential"
                + " readers.")
        .uses(
            CHUNK_BYTES,
            INT,
            4 * 1024 * 1024,
            atLeast(1),
            LOW,
            "Brook only: the size of a chunk of the remote chunk cache (chunks are aligned to it in"
                + " each remote segment's log file); at most"
                + " brook.remote.log.chunk.cache.total.size.bytes when the cache is on.")
        .accepts(
            "remote.log.manager.thread.pool.size",
            INT,
            2,
            atLeast(1),
            MEDIUM,
            "Threads that track remote copy progress for follower partitions.")
        .uses(
            COPIER_THREADS,
            INT,
            10,
            atLeast(1),
            MEDIUM,
            "Threads that copy segments to remote storage.")
        .accepts(
            "remote.log.manager.expiration.thread.pool.size",
            INT,
            10,
            atLeast(1),
            MEDIUM,
            "Threads that delete expired remote segments.")
        .uses(
            TASK_INTERVAL_MS,
            LONG,
            30_000L,
            atLeast(1),
            LOW,
            "How often copy and expiry tasks run.")
        .uses(
            READER_THREADS,
            INT,
            10,
            atLeast(1),
            MEDIUM,
            "Threads serving reads from remote storage.")
        .uses(
            READER_MAX_PENDING,
            INT,
            100,
            atLeast(1),
            MEDIUM,
            "Queued remote reads beyond which fetches get an error.")
        .uses(
            "log.local.retention.ms",
            LONG,
            LogConfig.LOCAL_RETENTION_FROM_RETENTION,
            atLeast(LogConfig.LOCAL_RETENTION_FROM_RETENTION),
            MEDIUM,
            "Default of local.retention.ms; -2 means log.retention.ms.")
        .uses(
            "log.local.retention.bytes",
            LONG,
            LogConfig.LOCAL_RETENTION_FROM_RETENTION,
            atLeast(LogConfig.LOCAL_RETENTION_FROM_RETENTION),
            MEDIUM,
            "Default of local.retention.bytes; -2 means log.retention.bytes.")
        .accepts(
            "remote.log.manager.copy.max.bytes.per.second",
            LONG,
            Long.MAX_VALUE,
            atLeast(1),
            MEDIUM,
            "Broker-wide cap on bytes copied to remote storage per second.")
        .accepts(
            "remote.log.manager.copy.quota.window.num",
            INT,
            11,
            atLeast(1),
            MEDIUM,
            "Samples kept for the copy rate cap.")
        .accepts(
            "remote.log.manager.copy.quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            MEDIUM,
            "Length of one copy rate sample.")
        .accepts(
            "remote.log.manager.fetch.max.bytes.per.second",
            LONG,
            Long.MAX_VALUE,
            atLeast(1),
            MEDIUM,
            "Broker-wide cap on bytes read from remote storage per second.")
        .accepts(
            "remote.log.manager.fetch.quota.window.num",
            INT,
            11,
            atLeast(1),
            MEDIUM,
            "Samples kept for the remote read rate cap.")
        .accepts(
            "remote.log.manager.fetch.quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            MEDIUM,
            "Length of one remote read rate sample.")
        .uses(
            FETCH_MAX_WAIT_MS,
            INT,
            500,
            atLeast(1),
            MEDIUM,
            "Longest a fetch waits for data from remote storage.")
        .accepts(
            "remote.list.offsets.request.timeout.ms",
            LONG,
            30_000L,
            atLeast(1),
            MEDIUM,
            "Longest a ListOffsets lookup in remote storage may take.");
  }
}
