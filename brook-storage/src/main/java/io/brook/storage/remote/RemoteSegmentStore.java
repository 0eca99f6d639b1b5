package io.brook.storage.remote;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;

/**
 * Where tiered segments live (KIP-405's {@code RemoteStorageManager}), plus the per-partition
 * manifest that records them (see docs/adr/0007-remote-log-metadata.md). Implementations are loaded
 * by class name from {@code remote.log.storage.manager.class.name} through a public constructor
 * taking a {@code Map<String, String>} of the {@code rsm.config.} settings (prefix removed).
 *
 * <p>Every method may block on the network or disk: call them from the remote log manager's threads
 * only, never from an event loop. Deletes are idempotent: deleting what is absent is not an error,
 * so a crashed deletion can simply be repeated.
 */
public interface RemoteSegmentStore extends Closeable {

  /** Uploads every file of a rolled segment under {@code segment}'s id. */
  void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
      throws IOException;

  /**
   * Bytes {@code [start, start + length)} of the segment's log file, fewer only at its end.
   *
   * @throws java.nio.file.NoSuchFileException if the segment is not in the store
   */
  byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
      throws IOException;

  /**
   * One of the segment's other files, whole (indexes are small: at most {@code
   * segment.index.bytes}).
   *
   * @return empty if the segment has no such file (a segment without aborted transactions has no
   *     transaction index)
   */
  Optional<byte[]> fetchFile(TopicIdPartition tp, RemoteSegment segment, RemoteFileType type)
      throws IOException;

  /** Deletes every file of the segment; nothing if it is absent. */
  void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException;

  /** The partition's manifest, empty if it has none. */
  Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException;

  /** Replaces the partition's manifest atomically: a reader sees the old one or the new one. */
  void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException;

  /** A manifest as stored, with the version a conditional replacement names. */
  record StoredManifest(byte[] bytes, String version) {}

  /** The partition's manifest with its version (an S3 ETag, a hash of the file), empty if none. */
  Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException;

  /**
   * Replaces the partition's manifest atomically, only if the stored one is still {@code
   * expectedVersion} (or, when empty, only if there is none): the compare and the replacement are
   * one step, so of two writers that read the same version one fails.
   *
   * @return the new manifest's version
   * @throws ManifestConflictException if the stored manifest is another version
   */
  String replaceManifest(TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion)
      throws IOException;

  /** Deletes the partition's manifest (after its segments, when its topic is deleted). */
  void deleteManifest(TopicIdPartition tp) throws IOException;

  /** The names of every object stored for the partition, for checks and tools. */
  List<String> listObjects(TopicIdPartition tp) throws IOException;
}
