package io.brook.storage.remote;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chunks of remote segments' log files kept on local disk, shared by every tiered partition of a
 * broker, least recently used evicted past a byte bound ({@code
 * brook.remote.log.chunk.cache.total.size.bytes}).
 *
 * <p>Why: every remote read is a ranged GET, and each costs the broker (the S3 SDK's request
 * pipeline) and the store far more than its bytes. A second consumer replaying the same remote
 * data, or a consumer that seeks back, asks for bytes the broker fetched moments ago; a sequential
 * reader asks next for the bytes right after its last read. Both are served from a chunk already on
 * disk.
 *
 * <p>A segment's log is cut into aligned chunks of {@code chunkBytes}: chunk {@code i} holds bytes
 * {@code [i * chunkBytes, (i + 1) * chunkBytes)}, the last one clipped to the segment's size. A
 * chunk is keyed by the remote segment's id, which is fresh for every upload (a re-copied or
 * compacted segment has a new one), so cached bytes are never stale. A missing chunk is fetched
 * whole with one ranged GET; readers of a chunk that is being fetched wait for that GET instead of
 * making their own. The chunk is written to a temporary file and renamed into place; only renamed
 * files are ever read, and the directory is emptied at start, so a crash leaves nothing that could
 * be served half-written.
 *
 * <p>Bounded: the bytes of the chunk files plus those reserved for files being written never exceed
 * {@code maxBytes}. A chunk being read is not evicted (its readers pin it); if every chunk is
 * pinned the new one is served from memory without being kept. Chunks of a deleted remote segment
 * are dropped at once ({@link #remove}); a chunk dropped while read is deleted by its last reader.
 *
 * <p>Errors are never cached: a failed GET completes the readers waiting for it with its exception
 * and leaves no file. A chunk that cannot be written to local disk is served from memory (the read
 * does not fail for a cache problem), and one that cannot be read back is forgotten and fetched
 * again.
 *
 * <p>Every method may block on the store or the disk: call them from remote reader threads only.
 */
final class RemoteChunkCache {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteChunkCache.class);

  private static final String CHUNK_SUFFIX = ".chunk";
  private static final String TEMP_SUFFIX = ".tmp";

  /** A chunk: the remote segment (one uploaded copy) and the chunk's index in its log. */
  record Key(String segmentId, int index) {}

  /** A chunk on disk. */
  private static final class Chunk {
    final Path file;
    final int length;

    /** Reads under way (guarded by the cache): while positive the file stays. */
    int readers;

    /** Dropped from the cache while read (guarded by the cache): the last reader deletes it. */
    boolean gone;

    Chunk(Path file, int length) {
      this.file = file;
      this.length = length;
    }
  }

  /** A GET under way for a chunk; other readers of the chunk wait for its bytes. */
  private static final class Fetch {
    final CompletableFuture<byte[]> bytes = new CompletableFuture<>();

    /** Its segment was deleted meanwhile (guarded by the cache): the chunk is not kept. */
    boolean dropped;
  }

  private final Path dir;
  private final int chunkBytes;
  private final long maxBytes;

  // Guarded by this. Least recently used first.
  private final LinkedHashMap<Key, Chunk> chunks = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<Key, Fetch> fetching = new HashMap<>();

  /** Bytes of the chunk files plus those reserved for files being written: at most maxBytes. */
  private long bytes;

  private long nextFile;

  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fetchedBytes = new LongAdder();

  /**
   * Empties {@code dir} (created if need be): chunks left by an earlier run may belong to segments
   * deleted since, and a crash may have left temporary files.
   *
   * @param chunkBytes the size of a chunk, positive and at most {@code maxBytes}
   * @param maxBytes the bytes kept on disk at most
   */
  RemoteChunkCache(Path dir, int chunkBytes, long maxBytes) throws IOException {
    if (chunkBytes <= 0 || chunkBytes > maxBytes) {
      throw new IllegalArgumentException(
          "chunk size " + chunkBytes + " must be positive and at most the cache size " + maxBytes);
    }
    this.dir = dir;
    this.chunkBytes = chunkBytes;
    this.maxBytes = maxBytes;
    RemoteIndexCache.emptyDirectory(dir);
  }

  /**
   * Bytes {@code [start, start + length)} of the segment's log file, fewer only at its end (as
   * {@link RemoteSegmentStore#fetchLogRange}), from the cached chunks, the missing ones fetched.
   *
   * @throws java.nio.file.NoSuchFileException if the segment is not in the store (and any other
   *     error of the store), as the store reports it
   */
  byte[] read(
      RemoteSegmentStore store, TopicIdPartition tp, RemoteSegment segment, long start, int length)
      throws IOException {
    if (start < 0 || length < 0) {
      throw new IllegalArgumentException("bad range " + start + "+" + length);
    }
    long end = Math.min(start + length, segment.sizeInBytes());
    if (end <= start) {
      return new byte[0];
    }
    byte[] out = new byte[(int) (end - start)];
    int filled = 0;
    for (int index = (int) (start / chunkBytes); filled < out.length; index++) {
      long chunkStart = (long) index * chunkBytes;
      int chunkLength = (int) Math.min(chunkBytes, segment.sizeInBytes() - chunkStart);
      int from = (int) (start + filled - chunkStart);
      int wanted = Math.min(out.length - filled, chunkLength - from);
      int copied =
          copy(
              store,
              tp,
              segment,
              new Key(segment.id(), index),
              chunkLength,
              from,
              out,
              filled,
              wanted,
              false);
      filled += copied;
      if (copied < wanted) {
        // The object is shorter than the manifest says: the caller reports it.
        return Arrays.copyOf(out, filled);
      }
    }
    return out;
  }

  /**
   * Copies {@code wanted} bytes of a chunk from {@code from} on into {@code out} at {@code at}.
   *
   * @return the bytes copied: fewer only if the chunk in the store is shorter than it should be
   */
  private int copy(
      RemoteSegmentStore store,
      TopicIdPartition tp,
      RemoteSegment segment,
      Key key,
      int chunkLength,
      int from,
      byte[] out,
      int at,
      int wanted,
      boolean diskFailedBefore)
      throws IOException {
    Chunk cached;
    Fetch theirs = null;
    Fetch mine = null;
    synchronized (this) {
      cached = chunks.get(key);
      if (cached != null) {
        cached.readers++;
      } else {
        theirs = fetching.get(key);
        if (theirs == null) {
          mine = new Fetch();
          fetching.put(key, mine);
        }
      }
    }
    if (cached != null) {
      try {
        readFile(cached, from, out, at, wanted);
        hits.increment();
        return wanted;
      } catch (IOException e) {
        synchronized (this) {
          if (chunks.get(key) == cached) {
            chunks.remove(key);
            cached.gone = true;
          }
        }
        if (diskFailedBefore) {
          throw e;
        }
        LOG.warn(
            "Reading a cached remote chunk failed, fetching it again segment={} chunk={}",
            key.segmentId(),
            key.index(),
            e);
      } finally {
        release(cached);
      }
      return copy(store, tp, segment, key, chunkLength, from, out, at, wanted, true);
    }
    byte[] chunk = mine != null ? fetch(store, tp, segment, key, chunkLength, mine) : await(theirs);
    int copied = Math.max(0, Math.min(wanted, chunk.length - from));
    System.arraycopy(chunk, from, out, at, copied);
    return copied;
  }

  private static void readFile(Chunk chunk, int from, byte[] out, int at, int wanted)
      throws IOException {
    try (FileChannel ch = FileChannel.open(chunk.file, StandardOpenOption.READ)) {
      ByteBuffer dst = ByteBuffer.wrap(out, at, wanted);
      long position = from;
      while (dst.hasRemaining()) {
        int n = ch.read(dst, position);
        if (n < 0) {
          throw new EOFException("cached remote chunk " + chunk.file + " ended early");
        }
        position += n;
      }
    }
  }

  /** One GET for the chunk; its bytes are kept on disk if there is room, and handed to waiters. */
  private byte[] fetch(
      RemoteSegmentStore store,
      TopicIdPartition tp,
      RemoteSegment segment,
      Key key,
      int chunkLength,
      Fetch mine)
      throws IOException {
    byte[] chunk;
    try {
      chunk = store.fetchLogRange(tp, segment, (long) key.index() * chunkBytes, chunkLength);
    } catch (IOException | RuntimeException | Error e) {
      synchronized (this) {
        fetching.remove(key, mine);
      }
      mine.bytes.completeExceptionally(e);
      throw e;
    }
    misses.increment();
    fetchedBytes.add(chunk.length);
    // Only this fetch is forgotten: once its chunk is in the cache it may be evicted, and another
    // fetch of it begun, before this one is done.
    try {
      // A chunk shorter than the manifest says is not kept: the read reports it.
      if (chunk.length == chunkLength) {
        keep(key, chunk, mine);
      }
    } finally {
      synchronized (this) {
        fetching.remove(key, mine);
      }
      mine.bytes.complete(chunk);
    }
    return chunk;
  }

  /**
   * Writes a fetched chunk to a temporary file and renames it into place, within the bound; nothing
   * is kept (and no file left) if there is no room, its segment was deleted meanwhile, or the disk
   * fails.
   */
  private void keep(Key key, byte[] chunk, Fetch mine) {
    Path file;
    synchronized (this) {
      if (mine.dropped || !reserve(chunk.length)) {
        return;
      }
      file = dir.resolve(nextFile++ + CHUNK_SUFFIX);
    }
    Path temp = dir.resolve(file.getFileName() + TEMP_SUFFIX);
    boolean kept = false;
    try {
      Files.write(temp, chunk, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
      synchronized (this) {
        if (!mine.dropped) {
          // In the cache before the fetch is forgotten: a reader finds one or the other.
          chunks.put(key, new Chunk(file, chunk.length));
          fetching.remove(key, mine);
          kept = true;
        }
      }
    } catch (IOException e) {
      LOG.warn(
          "Keeping a remote chunk on local disk failed, serving it from memory segment={}"
              + " chunk={}",
          key.segmentId(),
          key.index(),
          e);
    } finally {
      if (!kept) {
        deleteQuietly(temp);
        deleteQuietly(file);
        synchronized (this) {
          bytes -= chunk.length;
        }
      }
    }
  }

  /**
   * Makes room for {@code length} more bytes, evicting the least recently used chunks no read is
   * using, and reserves it. Deletes under the lock, so the files on disk never exceed the bound.
   */
  private boolean reserve(int length) {
    Iterator<Chunk> it = chunks.values().iterator();
    while (bytes + length > maxBytes && it.hasNext()) {
      Chunk c = it.next();
      if (c.readers > 0) {
        continue;
      }
      it.remove();
      delete(c);
    }
    if (bytes + length > maxBytes) {
      return false;
    }
    bytes += length;
    return true;
  }

  private synchronized void release(Chunk chunk) {
    chunk.readers--;
    if (chunk.gone && chunk.readers == 0) {
      delete(chunk);
    }
  }

  /** Deletes a chunk's file and stops counting it (guarded by this). */
  private void delete(Chunk chunk) {
    deleteQuietly(chunk.file);
    bytes -= chunk.length;
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("Deleting a remote chunk file failed file={}", file, e);
    }
  }

  private static byte[] await(Fetch fetch) throws IOException {
    try {
      return fetch.bytes.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for a remote chunk");
    } catch (ExecutionException e) {
      // The reader that made the GET failed with this; every reader waiting for it fails alike.
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }

  /**
   * Drops the chunks of a deleted remote segment (retention, DeleteRecords, a compaction's replaced
   * segments, a deleted topic): at once, or by their last reader; a GET under way for one of them
   * is not kept. Walks every chunk: deletions are rare and off the read path, and the chunks are at
   * most {@code maxBytes / chunkBytes}.
   */
  synchronized void remove(RemoteSegment segment) {
    Iterator<Map.Entry<Key, Chunk>> it = chunks.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Key, Chunk> e = it.next();
      if (e.getKey().segmentId().equals(segment.id())) {
        it.remove();
        Chunk c = e.getValue();
        if (c.readers > 0) {
          c.gone = true;
        } else {
          delete(c);
        }
      }
    }
    for (Map.Entry<Key, Fetch> e : fetching.entrySet()) {
      if (e.getKey().segmentId().equals(segment.id())) {
        e.getValue().dropped = true;
      }
    }
  }

  /** Hits, misses and bytes fetched since start; bytes on disk now. */
  RemoteLogManager.ChunkCacheStats stats() {
    long cached;
    synchronized (this) {
      cached = bytes;
    }
    return new RemoteLogManager.ChunkCacheStats(
        hits.sum(), misses.sum(), fetchedBytes.sum(), cached);
  }

  /** Chunks held on disk now, for tests. */
  synchronized int chunkCount() {
    return chunks.size();
  }
}
