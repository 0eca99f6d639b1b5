package io.brook.storage.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;

/**
 * A {@link RemoteSegmentStore} over a flat object namespace (a directory tree, an S3 bucket): the
 * key layout lives here, the object operations in the subclass.
 *
 * <pre>
 * &lt;prefix&gt;&lt;topic&gt;-&lt;topic id&gt;-&lt;partition&gt;/manifest
 * &lt;prefix&gt;&lt;topic&gt;-&lt;topic id&gt;-&lt;partition&gt;/&lt;baseOffset, 20 digits&gt;-&lt;id&gt;.log|...
 * </pre>
 */
public abstract class ObjectSegmentStore implements RemoteSegmentStore {
  static final String MANIFEST = "manifest";

  private final String prefix;

  protected ObjectSegmentStore(String prefix) {
    this.prefix = prefix;
  }

  /** Uploads a local file as one object. */
  protected abstract void putFile(String key, Path file) throws IOException;

  /** Stores bytes as one object, replacing any previous one atomically. */
  protected abstract void putBytes(String key, byte[] bytes) throws IOException;

  /**
   * Bytes {@code [start, start + length)} of an object (fewer at its end).
   *
   * @throws java.nio.file.NoSuchFileException if absent
   */
  protected abstract byte[] getRange(String key, long start, int length) throws IOException;

  /** A whole object, empty if absent; refuses one larger than {@code maxBytes}. */
  protected abstract Optional<byte[]> getAll(String key, int maxBytes) throws IOException;

  /** A whole object with its version, empty if absent; refuses one larger than {@code maxBytes}. */
  protected abstract Optional<StoredManifest> getVersioned(String key, int maxBytes)
      throws IOException;

  /**
   * Stores bytes as one object if the stored one is {@code expectedVersion} (absent when empty),
   * atomically.
   *
   * @return the new object's version
   * @throws ManifestConflictException otherwise
   */
  protected abstract String putBytesIf(String key, byte[] bytes, Optional<String> expectedVersion)
      throws IOException;

  /** Deletes an object; nothing if absent. */
  protected abstract void delete(String key) throws IOException;

  /** Keys starting with {@code keyPrefix}. */
  protected abstract List<String> list(String keyPrefix) throws IOException;

  /** A version that is a hash of the content, as an S3 ETag of a single-part upload is. */
  protected static String contentVersion(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  protected final String partitionPrefix(TopicIdPartition tp) {
    // The topic id keeps a topic created again under the same name apart from its predecessor.
    return prefix + tp.topic() + "-" + tp.topicId() + "-" + tp.partition() + "/";
  }

  protected final String key(TopicIdPartition tp, RemoteSegment segment, RemoteFileType type) {
    return partitionPrefix(tp)
        + String.format("%020d", segment.baseOffset())
        + "-"
        + segment.id()
        + type.suffix();
  }

  @Override
  public void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
      throws IOException {
    // The log goes last: a segment whose log object exists has all its other files.
    putBytes(key(tp, segment, RemoteFileType.OFFSET_INDEX), files.offsetIndex());
    putBytes(key(tp, segment, RemoteFileType.TIME_INDEX), files.timeIndex());
    if (files.transactionIndex().isPresent() && Files.exists(files.transactionIndex().get())) {
      putFile(key(tp, segment, RemoteFileType.TRANSACTION_INDEX), files.transactionIndex().get());
    }
    if (files.producerSnapshot().isPresent() && Files.exists(files.producerSnapshot().get())) {
      putFile(key(tp, segment, RemoteFileType.PRODUCER_SNAPSHOT), files.producerSnapshot().get());
    }
    putBytes(key(tp, segment, RemoteFileType.LEADER_EPOCH), files.leaderEpochCheckpoint());
    putFile(key(tp, segment, RemoteFileType.LOG), files.log());
  }

  @Override
  public byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
      throws IOException {
    return getRange(key(tp, segment, RemoteFileType.LOG), start, length);
  }

  @Override
  public Optional<byte[]> fetchFile(TopicIdPartition tp, RemoteSegment segment, RemoteFileType type)
      throws IOException {
    if (type == RemoteFileType.LOG) {
      throw new IllegalArgumentException("read a remote log file by range");
    }
    // Indexes are bounded by segment.index.bytes (at most Integer.MAX_VALUE); the rest are small.
    return getAll(key(tp, segment, type), Integer.MAX_VALUE - 8);
  }

  @Override
  public void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException {
    // The log first: once it is gone the segment is unreadable, whatever else a crash leaves.
    delete(key(tp, segment, RemoteFileType.LOG));
    for (RemoteFileType type : RemoteFileType.values()) {
      if (type != RemoteFileType.LOG) {
        delete(key(tp, segment, type));
      }
    }
  }

  @Override
  public Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException {
    return getAll(partitionPrefix(tp) + MANIFEST, RemoteLogManifest.MAX_BYTES);
  }

  @Override
  public void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException {
    putBytes(partitionPrefix(tp) + MANIFEST, manifest);
  }

  @Override
  public Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException {
    return getVersioned(partitionPrefix(tp) + MANIFEST, RemoteLogManifest.MAX_BYTES);
  }

  @Override
  public String replaceManifest(
      TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
    return putBytesIf(partitionPrefix(tp) + MANIFEST, manifest, expectedVersion);
  }

  @Override
  public void deleteManifest(TopicIdPartition tp) throws IOException {
    delete(partitionPrefix(tp) + MANIFEST);
  }

  @Override
  public List<String> listObjects(TopicIdPartition tp) throws IOException {
    return list(partitionPrefix(tp));
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(prefix=" + prefix + ")";
  }
}
