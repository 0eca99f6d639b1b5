package io.brook.storage.remote;

import io.brook.storage.txn.AbortedTxn;
import io.brook.storage.txn.TransactionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;

/**
 * Index files of remote segments, fetched once and kept on local disk, least recently used evicted
 * past {@code remote.log.index.file.cache.total.size.bytes}. Lookups read single entries with
 * positional reads, so an index is never loaded onto the heap. The directory is emptied at start
 * (its entries are cheap to fetch again and may belong to segments deleted since).
 */
final class RemoteIndexCache {
  private final Path dir;
  private final long maxBytes;
  private final Map<String, Path> entries = new LinkedHashMap<>(16, 0.75f, true);
  private long totalBytes;

  RemoteIndexCache(Path dir, long maxBytes) throws IOException {
    this.dir = dir;
    this.maxBytes = maxBytes;
    emptyDirectory(dir);
  }

  /** Creates {@code dir} if need be and deletes the files in it. */
  static void emptyDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> stale = Files.list(dir)) {
      for (Path p : (Iterable<Path>) stale::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Offset index: the position of the last entry at or below {@code offset}, 0 if none. */
  int positionFor(RemoteSegmentStore store, TopicIdPartition tp, RemoteSegment segment, long offset)
      throws IOException {
    Optional<Path> file = file(store, tp, segment, RemoteFileType.OFFSET_INDEX);
    if (file.isEmpty()) {
      return 0;
    }
    try (FileChannel ch = FileChannel.open(file.get(), StandardOpenOption.READ)) {
      int n = (int) (ch.size() / 8);
      long target = offset - segment.baseOffset();
      int found = -1;
      int lo = 0;
      int hi = n - 1;
      ByteBuffer entry = ByteBuffer.allocate(8);
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        readEntry(ch, entry, (long) mid * 8);
        if (entry.getInt(0) <= target) {
          found = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      if (found < 0) {
        return 0;
      }
      readEntry(ch, entry, (long) found * 8);
      return entry.getInt(4);
    }
  }

  /** Time index: the offset of the last entry whose timestamp is below {@code timestamp}. */
  long offsetBefore(
      RemoteSegmentStore store, TopicIdPartition tp, RemoteSegment segment, long timestamp)
      throws IOException {
    Optional<Path> file = file(store, tp, segment, RemoteFileType.TIME_INDEX);
    if (file.isEmpty()) {
      return segment.baseOffset();
    }
    try (FileChannel ch = FileChannel.open(file.get(), StandardOpenOption.READ)) {
      int n = (int) (ch.size() / 12);
      long found = segment.baseOffset();
      int lo = 0;
      int hi = n - 1;
      ByteBuffer entry = ByteBuffer.allocate(12);
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        readEntry(ch, entry, (long) mid * 12);
        if (entry.getLong(0) < timestamp) {
          found = segment.baseOffset() + entry.getInt(8);
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      return found;
    }
  }

  private static void readEntry(FileChannel ch, ByteBuffer entry, long at) throws IOException {
    entry.clear();
    while (entry.hasRemaining()) {
      if (ch.read(entry, at + entry.position()) < 0) {
        throw new IOException("remote index cache file ended early");
      }
    }
  }

  /** The aborted transactions of a remote segment's transaction index (none without one). */
  List<AbortedTxn> abortedTxns(RemoteSegmentStore store, TopicIdPartition tp, RemoteSegment segment)
      throws IOException {
    Optional<Path> file = file(store, tp, segment, RemoteFileType.TRANSACTION_INDEX);
    if (file.isEmpty()) {
      return List.of();
    }
    // The cached file's real length bounds the allocation (index files are small).
    return TransactionIndex.parse(ByteBuffer.wrap(Files.readAllBytes(file.get())), file.get());
  }

  private Optional<Path> file(
      RemoteSegmentStore store, TopicIdPartition tp, RemoteSegment segment, RemoteFileType type)
      throws IOException {
    String key = segment.id() + type.suffix();
    synchronized (this) {
      Path cached = entries.get(key);
      if (cached != null) {
        return Optional.of(cached);
      }
    }
    // Fetched outside the lock: other lookups are not held behind a slow store.
    Optional<byte[]> bytes = store.fetchFile(tp, segment, type);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    Path file = dir.resolve(key + "-" + UUID.randomUUID());
    Files.write(file, bytes.get());
    synchronized (this) {
      Path raced = entries.get(key);
      if (raced != null) {
        Files.deleteIfExists(file);
        return Optional.of(raced);
      }
      entries.put(key, file);
      totalBytes += bytes.get().length;
      evict(key);
    }
    return Optional.of(file);
  }

  /** Drops least recently used files past the limit, never the one just added. */
  private void evict(String keep) throws IOException {
    Iterator<Map.Entry<String, Path>> it = entries.entrySet().iterator();
    while (totalBytes > maxBytes && it.hasNext()) {
      Map.Entry<String, Path> e = it.next();
      if (e.getKey().equals(keep)) {
        continue;
      }
      totalBytes -= Files.size(e.getValue());
      // A lookup that already opened it keeps reading it: POSIX unlinks only the name.
      Files.deleteIfExists(e.getValue());
      it.remove();
    }
  }

  /** Forgets a deleted segment's files. */
  synchronized void remove(RemoteSegment segment) throws IOException {
    for (RemoteFileType type : RemoteFileType.values()) {
      Path p = entries.remove(segment.id() + type.suffix());
      if (p != null) {
        totalBytes -= Files.size(p);
        Files.deleteIfExists(p);
      }
    }
  }

  synchronized long totalBytes() {
    return totalBytes;
  }
}
