package io.brook.storage.epoch;

import io.brook.storage.checkpoint.CheckpointFile;
import io.brook.storage.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps each leader epoch of a partition to the first offset written under it, so that a returning
 * replica can find where its log diverges from the leader's (OffsetForLeaderEpoch, KIP-101/279).
 *
 * <p>Invariant: entries are strictly increasing in both epoch and start offset. An entry's range
 * runs from its start offset to the next entry's start offset (exclusive), the last one to the log
 * end offset.
 *
 * <p>On disk: {@value #CHECKPOINT_FILE_NAME} in the partition directory, a {@link CheckpointFile}
 * of version {@value #VERSION} whose entry lines are {@code epoch startOffset}, oldest first. The
 * file is rewritten atomically after every change, so a process crash leaves the previous or the
 * new list; it is not checksummed. {@link #assign} does not fsync (a leadership change for
 * thousands of partitions would otherwise wait on two fsyncs each): its entry starts at the log
 * end, where recovery re-derives epochs from the batches, and the log calls {@link #flush} before
 * its recovery point passes it. Truncations fsync before they take effect, except the one a log
 * makes when it loads ({@link #truncateFromEndOnLoad}), which the next flush writes. On load, a
 * file that breaks the invariant, has a negative value or a malformed line is a {@link
 * CorruptCheckpointException}. After an unclean shutdown the file may mention epochs beyond the
 * recovered log end; the log calls {@link #truncateFromEnd} once it knows its end offset.
 *
 * <p>Thread-safety: mutations hold the write lock (including the checkpoint write, so the file is
 * always the latest state), queries the read lock. If writing the checkpoint fails, the in-memory
 * state is left unchanged.
 */
public final class LeaderEpochCache {
  public static final String CHECKPOINT_FILE_NAME = "leader-epoch-checkpoint";

  /** The only version of the checkpoint format. */
  public static final int VERSION = 0;

  private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);

  private final Path partitionDir;
  private final CheckpointFile<EpochEntry> checkpoint;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  /**
   * Oldest first; replaced as a whole on every change, never mutated in place, so {@link
   * #latestEpoch} may read it without the lock.
   */
  private volatile List<EpochEntry> entries;

  /** Guarded by {@link #lock}; see {@link #needsRebuild()}. */
  private boolean needsRebuild;

  /**
   * Loads {@value #CHECKPOINT_FILE_NAME} from {@code partitionDir} if it exists.
   *
   * @throws CorruptCheckpointException if the file is malformed or not strictly increasing
   */
  public LeaderEpochCache(Path partitionDir) throws IOException {
    this(partitionDir, false);
  }

  private LeaderEpochCache(Path partitionDir, boolean tolerant) throws IOException {
    this.partitionDir = partitionDir;
    this.checkpoint =
        new CheckpointFile<>(partitionDir.resolve(CHECKPOINT_FILE_NAME), VERSION, new Format());
    if (!tolerant) {
      this.entries = readValidated();
      return;
    }
    List<EpochEntry> loaded;
    boolean rebuild = Files.notExists(checkpoint.file());
    try {
      loaded = readValidated();
    } catch (CorruptCheckpointException e) {
      // An unsynced replace (see assign) can leave an empty or stale file after a power loss.
      log.warn(
          "Unreadable leader epoch checkpoint, epochs will be rebuilt from the log dir={}"
              + " reason={}",
          partitionDir,
          e.getMessage());
      loaded = List.of();
      rebuild = true;
    }
    this.entries = loaded;
    this.needsRebuild = rebuild;
  }

  /**
   * Loads the checkpoint like the constructor, except that a missing, empty or corrupt file yields
   * an empty cache with {@link #needsRebuild()} set instead of an exception: the owner then
   * re-derives the entries from the log's batches and calls {@link #persistRebuilt()}.
   */
  public static LeaderEpochCache loadOrRebuild(Path partitionDir) throws IOException {
    return new LeaderEpochCache(partitionDir, true);
  }

  /**
   * The empty cache of a log whose directory was just created: there is no checkpoint to read and
   * nothing to rebuild, so the disk is not touched (a broker creating tens of thousands of logs
   * would otherwise look for a file it knows is missing in each).
   */
  public static LeaderEpochCache forNewLog(Path partitionDir) {
    return new LeaderEpochCache(partitionDir, List.of());
  }

  /** A cache of {@code entries} whose checkpoint file is known not to exist. */
  private LeaderEpochCache(Path partitionDir, List<EpochEntry> entries) {
    this.partitionDir = partitionDir;
    this.checkpoint =
        new CheckpointFile<>(partitionDir.resolve(CHECKPOINT_FILE_NAME), VERSION, new Format());
    checkpoint.knownAbsent();
    this.entries = List.copyOf(entries);
  }

  /** True if the checkpoint was missing or unreadable at load and has not been rebuilt since. */
  public boolean needsRebuild() {
    lock.readLock().lock();
    try {
      return needsRebuild;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Keeps the entries re-derived after {@link #needsRebuild()}, even if there are none, for the
   * next {@link #flush} to write (at the latest when the log closes or moves its recovery point),
   * so that the next load need not derive them again. Lost in a crash, they are derived again from
   * the same batches. Not written at once: a follower that never led has no checkpoint, and writing
   * and syncing one for each of tens of thousands of them made up most of a restart.
   */
  public void persistRebuilt() {
    lock.writeLock().lock();
    try {
      checkpoint.writeLater(entries);
      needsRebuild = false;
    } finally {
      lock.writeLock().unlock();
    }
  }

  private List<EpochEntry> readValidated() throws IOException {
    List<EpochEntry> loaded = checkpoint.read();
    for (int i = 1; i < loaded.size(); i++) {
      EpochEntry previous = loaded.get(i - 1);
      EpochEntry current = loaded.get(i);
      if (current.epoch() <= previous.epoch() || current.startOffset() <= previous.startOffset()) {
        throw new CorruptCheckpointException(
            "Corrupt checkpoint file "
                + checkpoint.file()
                + ": entries are not strictly increasing at line "
                + (i + 3)
                + ": "
                + previous
                + " then "
                + current);
      }
    }
    return List.copyOf(loaded);
  }

  /**
   * Records that {@code epoch} starts at {@code startOffset}, if {@code epoch} is newer than the
   * latest known epoch. A no-op if {@code epoch} is negative (undefined), equal to the latest
   * epoch, or older than it (a replay of batches already covered).
   *
   * <p>Before adding, removes every entry whose epoch is {@code >= epoch} or whose start offset is
   * {@code >= startOffset}, so that the entries stay strictly increasing, and logs a WARN naming
   * them. When anything changed the checkpoint is replaced without fsync (see {@link #flush}).
   *
   * @throws IllegalArgumentException if {@code startOffset} is negative
   */
  public void assign(int epoch, long startOffset) throws IOException {
    if (epoch < 0) {
      return;
    }
    if (startOffset < 0) {
      throw new IllegalArgumentException("startOffset must be >= 0, got " + startOffset);
    }
    lock.readLock().lock();
    try {
      if (!isNewer(epoch)) {
        return;
      }
    } finally {
      lock.readLock().unlock();
    }
    lock.writeLock().lock();
    try {
      if (!isNewer(epoch)) {
        return;
      }
      EpochEntry added = new EpochEntry(epoch, startOffset);
      List<EpochEntry> kept = new ArrayList<>(entries.size() + 1);
      List<EpochEntry> removed = new ArrayList<>();
      for (EpochEntry entry : entries) {
        if (entry.epoch() >= epoch || entry.startOffset() >= startOffset) {
          removed.add(entry);
        } else {
          kept.add(entry);
        }
      }
      kept.add(added);
      replaceUnsynced(kept);
      if (!removed.isEmpty()) {
        log.warn(
            "Removed leader epoch entries that conflict with a new epoch dir={} added={} removed={}",
            partitionDir,
            added,
            removed);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private boolean isNewer(int epoch) {
    return entries.isEmpty() || epoch > last().epoch();
  }

  /**
   * The epoch of the newest entry. Read without the lock (one volatile read of the immutable
   * entries): a follower asks for it for every partition it fetches in every round, and taking
   * 24,000 read locks a round was a tenth of a fetcher's time.
   */
  public OptionalInt latestEpoch() {
    List<EpochEntry> current = entries;
    return current.isEmpty()
        ? OptionalInt.empty()
        : OptionalInt.of(current.get(current.size() - 1).epoch());
  }

  public Optional<EpochEntry> latestEntry() {
    lock.readLock().lock();
    try {
      return entries.isEmpty() ? Optional.empty() : Optional.of(last());
    } finally {
      lock.readLock().unlock();
    }
  }

  public Optional<EpochEntry> earliestEntry() {
    lock.readLock().lock();
    try {
      return entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(0));
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The epoch whose range contains {@code offset}: the greatest entry with start offset {@code <=
   * offset}. Empty if {@code offset} is below the first entry or the cache is empty.
   */
  public OptionalInt epochForOffset(long offset) {
    lock.readLock().lock();
    try {
      int index = floorIndexByOffset(offset);
      return index < 0 ? OptionalInt.empty() : OptionalInt.of(entries.get(index).epoch());
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The OffsetForLeaderEpoch answer for {@code requestedEpoch}.
   *
   * <ul>
   *   <li>undefined ({@code -1}) requested epoch, empty cache, or a requested epoch above the
   *       latest: {@link EpochEndOffset#UNDEFINED};
   *   <li>the latest epoch: {@code (latest, logEndOffset)};
   *   <li>otherwise, with {@code higher} the first entry with an epoch above the requested one:
   *       {@code (floor epoch, higher.startOffset)} where the floor is the greatest known epoch
   *       {@code <=} the requested one, or {@code (requestedEpoch, higher.startOffset)} when the
   *       requested epoch is below the first known epoch.
   * </ul>
   */
  public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
    lock.readLock().lock();
    try {
      if (requestedEpoch < 0 || entries.isEmpty()) {
        return EpochEndOffset.UNDEFINED;
      }
      EpochEntry latest = last();
      if (requestedEpoch == latest.epoch()) {
        return new EpochEndOffset(latest.epoch(), logEndOffset);
      }
      if (requestedEpoch > latest.epoch()) {
        return EpochEndOffset.UNDEFINED;
      }
      // requestedEpoch < latest, so some entry has a higher epoch.
      int higher = firstIndexWithEpochAbove(requestedEpoch);
      long endOffset = entries.get(higher).startOffset();
      int floorEpoch = higher == 0 ? requestedEpoch : entries.get(higher - 1).epoch();
      return new EpochEndOffset(floorEpoch, endOffset);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Drops entries with start offset {@code >= endOffset}, for a log truncated to {@code endOffset}.
   */
  public void truncateFromEnd(long endOffset) throws IOException {
    truncateFromEnd(endOffset, false);
  }

  /**
   * {@link #truncateFromEnd} for a log being loaded, whose end offset is {@code endOffset}: the
   * change is written with the next {@link #flush} (at the latest when the log closes or moves its
   * recovery point), not now. Lost in a crash, it is made again by the next load, which finds the
   * same entries at or past the log end; a partition that led an epoch without writing in it (every
   * empty partition) has one such entry, and writing and syncing a checkpoint for each of tens of
   * thousands of them made up most of a restart.
   */
  public void truncateFromEndOnLoad(long endOffset) throws IOException {
    truncateFromEnd(endOffset, true);
  }

  private void truncateFromEnd(long endOffset, boolean onLoad) throws IOException {
    lock.writeLock().lock();
    try {
      int keep = 0;
      while (keep < entries.size() && entries.get(keep).startOffset() < endOffset) {
        keep++;
      }
      if (keep == entries.size()) {
        return;
      }
      List<EpochEntry> removed = entries.subList(keep, entries.size());
      String removedText = removed.toString();
      if (onLoad) {
        replaceLater(entries.subList(0, keep));
        log.debug(
            "Truncated leader epoch cache from the loaded log's end dir={} endOffset={} removed={}",
            partitionDir,
            endOffset,
            removedText);
        return;
      }
      replace(entries.subList(0, keep));
      log.info(
          "Truncated leader epoch cache from end dir={} endOffset={} removed={}",
          partitionDir,
          endOffset,
          removedText);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Drops entries entirely below {@code startOffset}, for a log whose start offset moved there. The
   * last entry starting at or below {@code startOffset} survives, re-based to start at {@code
   * startOffset}, because the records from there on were written in its epoch.
   */
  public void truncateFromStart(long startOffset) throws IOException {
    lock.writeLock().lock();
    try {
      int floor = floorIndexByOffset(startOffset);
      if (floor < 0) {
        return;
      }
      EpochEntry survivor = entries.get(floor);
      if (floor == 0 && survivor.startOffset() == startOffset) {
        return;
      }
      List<EpochEntry> kept = new ArrayList<>(entries.size() - floor);
      kept.add(new EpochEntry(survivor.epoch(), startOffset));
      kept.addAll(entries.subList(floor + 1, entries.size()));
      String removedText = entries.subList(0, floor + 1).toString();
      replace(kept);
      log.info(
          "Truncated leader epoch cache from start dir={} startOffset={} replaced={} first={}",
          partitionDir,
          startOffset,
          removedText,
          kept.get(0));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Drops every entry and flushes the empty checkpoint. */
  public void clear() throws IOException {
    lock.writeLock().lock();
    try {
      replace(List.of());
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** All entries, oldest first. */
  public List<EpochEntry> entries() {
    lock.readLock().lock();
    try {
      return entries;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The checkpoint file this cache persists to. */
  public Path checkpointFile() {
    return checkpoint.file();
  }

  /**
   * Forces a checkpoint written by {@link #assign} to disk, or writes the one a load's truncation
   * left; a no-op if nothing unsynced was written. The log calls this before it advances its
   * recovery point, because recovery re-derives epochs only from the batches above the recovery
   * point.
   */
  public void flush() throws IOException {
    // Not under the cache's lock: appends read the latest epoch under it and must not wait for an
    // fsync. The checkpoint's own lock orders this sync with the writes, so it forces the latest.
    checkpoint.sync();
  }

  /**
   * As {@link #flush}, but only if an entry that starts below {@code offset} would differ on disk:
   * for a log whose recovery point is {@code offset}, entries starting at or past it need not be
   * durable, since recovery re-derives epochs from the batches above the recovery point and the
   * loader cuts the entries that start at or past the log end (a leadership that wrote nothing). A
   * log that closes with everything flushed calls this instead of {@link #flush}: otherwise every
   * partition whose leadership changed since its last flush, all of them on a broker of empty
   * partitions, would pay two fsyncs at shutdown for an entry the next load cuts.
   */
  public void flushBelow(long offset) throws IOException {
    checkpoint.syncUnless(
        (onDisk, latest) -> startingBelow(onDisk, offset).equals(startingBelow(latest, offset)));
  }

  /** The entries (oldest first, strictly increasing) that start below {@code offset}. */
  private static List<EpochEntry> startingBelow(List<EpochEntry> entries, long offset) {
    int end = 0;
    while (end < entries.size() && entries.get(end).startOffset() < offset) {
      end++;
    }
    return entries.subList(0, end);
  }

  /** True if an {@link #assign} since the last {@link #flush} is not yet durable. */
  public boolean hasUnflushedChanges() {
    return checkpoint.hasUnsyncedWrite();
  }

  /** How many times this cache has fsynced its checkpoint; for tests. */
  public long checkpointSyncCount() {
    return checkpoint.syncCount();
  }

  /**
   * Durably writes {@code newEntries} and then, only if that worked, adopts them. Truncations use
   * this: a removed entry must never come back after a crash, even one below the recovery point.
   */
  private void replace(List<EpochEntry> newEntries) throws IOException {
    List<EpochEntry> copy = List.copyOf(newEntries);
    checkpoint.write(copy);
    entries = copy;
  }

  /** Adopts {@code newEntries} and leaves writing them to the next {@link #flush}. */
  private void replaceLater(List<EpochEntry> newEntries) {
    List<EpochEntry> copy = List.copyOf(newEntries);
    checkpoint.writeLater(copy);
    entries = copy;
  }

  /**
   * Writes {@code newEntries} without fsync, then adopts them. Safe for {@link #assign} only: a new
   * entry starts at the log end, at or above the recovery point, where recovery re-derives epochs
   * from the batches; entries it displaces start there too.
   */
  private void replaceUnsynced(List<EpochEntry> newEntries) throws IOException {
    List<EpochEntry> copy = List.copyOf(newEntries);
    checkpoint.writeUnsynced(copy);
    entries = copy;
  }

  private EpochEntry last() {
    return entries.get(entries.size() - 1);
  }

  /** Index of the greatest entry with start offset {@code <= offset}, or -1. */
  private int floorIndexByOffset(long offset) {
    int low = 0;
    int high = entries.size() - 1;
    int found = -1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      if (entries.get(mid).startOffset() <= offset) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found;
  }

  /** Index of the first entry with epoch {@code > epoch}, or {@code entries.size()}. */
  private int firstIndexWithEpochAbove(int epoch) {
    int low = 0;
    int high = entries.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (entries.get(mid).epoch() > epoch) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }

  @Override
  public String toString() {
    return "LeaderEpochCache(" + partitionDir + ", " + entries() + ")";
  }

  private static final class Format implements CheckpointFile.EntryFormat<EpochEntry> {
    @Override
    public String toLine(EpochEntry entry) {
      return entry.epoch() + " " + entry.startOffset();
    }

    @Override
    public EpochEntry fromLine(String line) {
      String[] parts = line.split(" ", -1);
      if (parts.length != 2) {
        throw new IllegalArgumentException("expected 'epoch startOffset'");
      }
      return new EpochEntry(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
    }
  }
}
