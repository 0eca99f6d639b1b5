package io.brook.storage.producer;

import io.brook.storage.checkpoint.AtomicFiles;
import io.brook.storage.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's producer snapshot files: {@code <20-digit offset>.snapshot} in the partition
 * directory (layout in {@link ProducerSnapshotFile}: versioned, CRC32C-checked, written
 * atomically), each the producer state as of its offset. Which files exist, writing one, loading
 * the newest usable one (a corrupt one is deleted and the next older tried) and deleting them.
 *
 * <p>Thread-safety: file operations are serialized by this object's monitor; the offsets known are
 * in a concurrent map, so the queries are safe from any thread.
 */
final class ProducerSnapshots {
  private static final Logger log = LoggerFactory.getLogger(ProducerSnapshots.class);

  private final Path partitionDir;
  private final ConcurrentSkipListMap<Long, Path> files = new ConcurrentSkipListMap<>();

  /** A snapshot read back: its offset and entries. */
  record Loaded(long offset, Path file, List<ProducerStateEntry> entries) {}

  /**
   * Lists the snapshot files of {@code partitionDir} and deletes leftover temporary ones; a
   * directory known to be new ({@code listExisting} false) is not listed.
   */
  ProducerSnapshots(Path partitionDir, boolean listExisting) throws IOException {
    this.partitionDir = partitionDir;
    if (!listExisting) {
      return;
    }
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(partitionDir)) {
      for (Path file : listing) {
        String name = file.getFileName().toString();
        if (name.endsWith(AtomicFiles.TMP_SUFFIX)) {
          String target = name.substring(0, name.length() - AtomicFiles.TMP_SUFFIX.length());
          if (ProducerSnapshotFile.offsetOf(target).isPresent()) {
            log.info("Deleting unfinished producer snapshot file={}", file);
            Files.deleteIfExists(file);
          }
          continue;
        }
        OptionalLong offset = ProducerSnapshotFile.offsetOf(name);
        if (offset.isPresent()) {
          files.put(offset.getAsLong(), file);
        }
      }
    }
  }

  /**
   * Writes {@code entries} as the state at {@code offset}, sorted by producer id, atomically; a
   * no-op if that file exists already.
   */
  synchronized void write(long offset, Collection<ProducerStateEntry> entries) throws IOException {
    Path file = ProducerSnapshotFile.pathFor(partitionDir, offset);
    if (Files.exists(file)) {
      files.putIfAbsent(offset, file);
      return;
    }
    List<ProducerStateEntry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparingLong(ProducerStateEntry::producerId));
    ProducerSnapshotFile.write(file, sorted);
    files.put(offset, file);
    log.debug(
        "Wrote producer snapshot file={} offset={} producers={}", file, offset, sorted.size());
  }

  /**
   * Takes {@code content}, a snapshot file written elsewhere (a leader's, from remote storage), as
   * the state at {@code offset}, replacing a file of that offset. It is checked when loaded.
   */
  synchronized void adopt(long offset, byte[] content) throws IOException {
    Path file = ProducerSnapshotFile.pathFor(partitionDir, offset);
    AtomicFiles.write(file, content);
    files.put(offset, file);
  }

  /**
   * The newest snapshot that reads cleanly, or null if none does. Corrupt snapshots met on the way
   * are logged at WARN and deleted.
   */
  synchronized Loaded loadLatest() throws IOException {
    while (true) {
      Map.Entry<Long, Path> newest = files.lastEntry();
      if (newest == null) {
        return null;
      }
      try {
        return new Loaded(
            newest.getKey(), newest.getValue(), ProducerSnapshotFile.read(newest.getValue()));
      } catch (CorruptCheckpointException e) {
        log.warn(
            "Deleting corrupt producer snapshot file={} reason={}",
            newest.getValue(),
            e.getMessage());
        Files.deleteIfExists(newest.getValue());
        files.remove(newest.getKey());
      } catch (NoSuchFileException e) {
        log.warn("Producer snapshot disappeared file={}", newest.getValue());
        files.remove(newest.getKey());
      }
    }
  }

  OptionalLong latestOffset() {
    Map.Entry<Long, Path> entry = files.lastEntry();
    return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.getKey());
  }

  OptionalLong oldestOffset() {
    Map.Entry<Long, Path> entry = files.firstEntry();
    return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.getKey());
  }

  /** The offsets of the snapshot files, ascending. */
  List<Long> offsets() {
    return List.copyOf(files.keySet());
  }

  /** Deletes the snapshots below {@code logStartOffset} or above {@code logEndOffset}. */
  synchronized void deleteOutside(long logStartOffset, long logEndOffset) throws IOException {
    List<Long> outOfRange = new ArrayList<>(files.headMap(logStartOffset, false).keySet());
    outOfRange.addAll(files.tailMap(logEndOffset, false).keySet());
    delete(outOfRange, "outside the log [" + logStartOffset + ", " + logEndOffset + "]");
  }

  /** Deletes the snapshots with an offset below {@code offset}. */
  synchronized void deleteBefore(long offset) throws IOException {
    delete(List.copyOf(files.headMap(offset, false).keySet()), "below " + offset);
  }

  /** Deletes every snapshot. */
  synchronized void deleteAll(String reason) throws IOException {
    delete(List.copyOf(files.keySet()), reason);
  }

  private void delete(List<Long> offsets, String reason) throws IOException {
    if (offsets.isEmpty()) {
      return;
    }
    for (long offset : offsets) {
      Path file = files.get(offset);
      if (file != null) {
        Files.deleteIfExists(file);
        files.remove(offset);
      }
    }
    AtomicFiles.fsyncDirectory(partitionDir);
    log.info(
        "Deleted producer snapshots dir={} offsets={} reason={}", partitionDir, offsets, reason);
  }

  @Override
  public String toString() {
    return files.keySet().toString();
  }
}
