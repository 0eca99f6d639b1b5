package io.brook.storage.remote;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import io.brook.storage.index.TimeIndex;
import io.brook.storage.index.TimestampOffset;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.PinnedSegment;
import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.txn.AbortedTxn;
import io.brook.storage.txn.TransactionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's remote tier on its leader: copies rolled, committed segments to the store in
 * offset order, expires remote segments by the topic's total retention, and serves reads and
 * timestamp lookups below the local log start.
 *
 * <p>Every change to the remote data goes through the manifest in the same order (KIP-405's
 * states): record COPY_SEGMENT_STARTED, upload, record COPY_SEGMENT_FINISHED; record
 * DELETE_SEGMENT_STARTED, delete, drop the entry. A crash between two steps leaves a STARTED entry,
 * which {@link #open} cleans up (its objects deleted, its entry dropped), so nothing is orphaned
 * and nothing half-copied is read. Segment ids are fresh per attempt, so a retried copy never
 * overwrites an object a reader may be using.
 *
 * <p>Copies and expiry run on one background thread at a time per partition (the caller's
 * guarantee, {@link RemoteLogManager}); reads use whatever manifest is current (a volatile).
 */
public final class TieredPartition {
  private static final Logger LOG = LoggerFactory.getLogger(TieredPartition.class);

  /** Bytes fetched at a time while walking a remote segment's batch headers. */
  private static final int CHUNK_BYTES = 64 * 1024;

  /**
   * Bytes a read fetches beyond its limit in its first range: the wanted batch starts after the
   * offset index entry found for it, by at most about {@code index.interval.bytes} (4 KiB by
   * default) and a batch, so the first range normally holds the whole answer.
   */
  private static final int INDEX_GAP_BYTES = 16 * 1024;

  private final RemoteSegmentStore store;
  private final RemoteIndexCache indexes;
  private final PartitionLog log;
  private final TopicIdPartition tp;
  private final Time time;
  private final int leaderEpoch;
  private final BooleanSupplier leading;
  private final LongSupplier cleanedUpTo;
  private volatile RemoteLogManifest manifest;

  /** When the tombstones the last remote compaction kept may go (in memory only); -1: none. */
  private long tombstoneHorizonMs = -1;

  /** The stored manifest's version this tier last read or wrote; empty while there is none. */
  private Optional<String> manifestVersion = Optional.empty();

  /** Set once another leader's manifest is found: this tier writes nothing any more. */
  private volatile boolean fenced;

  /**
   * Set when this tier's manifest may be behind the stored one: a write of its own failed without
   * an answer (it may have been stored), or a segment it names was missing from the store (a later
   * leader deleted it). The next cleanup reads the stored manifest first. Guarded by {@code this}.
   */
  private boolean manifestInDoubt;

  private volatile RemoteLogMetrics metrics = RemoteLogMetrics.NONE;

  private volatile RemoteReadAhead readAhead = RemoteReadAhead.NONE;

  /** Null: reads fetch from the store (with {@link #readAhead}); else through this cache. */
  private volatile RemoteChunkCache chunks;

  private TieredPartition(
      RemoteSegmentStore store,
      RemoteIndexCache indexes,
      PartitionLog log,
      Uuid topicId,
      Time time,
      int leaderEpoch,
      BooleanSupplier leading,
      LongSupplier cleanedUpTo,
      RemoteLogManifest manifest) {
    this.store = store;
    this.indexes = indexes;
    this.log = log;
    this.tp = new TopicIdPartition(topicId, log.topicPartition());
    this.time = time;
    this.leaderEpoch = leaderEpoch;
    this.leading = leading;
    this.cleanedUpTo = cleanedUpTo;
    this.manifest = manifest;
  }

  /**
   * Opens the tier of the leader in {@code leaderEpoch}: reads the partition's manifest and cleans
   * up what a crash (or a leader that lost its leadership) left mid-copy or mid-delete, then tells
   * the log how far its data is safely remote. Every later manifest write first checks {@code
   * leading}, so a leader that was replaced stops writing.
   *
   * @param topicId the id of the log's topic: remote data is kept by topic id
   * @param cleanedUpTo the local cleaner's first dirty offset of the log: a compacted topic copies
   *     only segments below it
   */
  static TieredPartition open(
      RemoteSegmentStore store,
      RemoteIndexCache indexes,
      PartitionLog log,
      Uuid topicId,
      Time time,
      int leaderEpoch,
      BooleanSupplier leading,
      LongSupplier cleanedUpTo)
      throws IOException {
    Optional<RemoteSegmentStore.StoredManifest> stored =
        store.readManifestVersion(new TopicIdPartition(topicId, log.topicPartition()));
    TieredPartition tier =
        new TieredPartition(
            store,
            indexes,
            log,
            topicId,
            time,
            leaderEpoch,
            leading,
            cleanedUpTo,
            stored.map(m -> RemoteLogManifest.decode(m.bytes())).orElse(RemoteLogManifest.EMPTY));
    tier.manifestVersion = stored.map(RemoteSegmentStore.StoredManifest::version);
    if (tier.manifest.leaderEpoch() > leaderEpoch) {
      // A later leader already wrote: this broker's leadership is over, whatever it believes.
      tier.fence("it was written in leader epoch " + tier.manifest.leaderEpoch());
      return tier;
    }
    if (tier.manifest.leaderEpoch() < leaderEpoch) {
      // Claim the manifest before anything else: until this write, the leader it replaces may
      // still be writing (it learns of its replacement late, or never, when it is cut off from the
      // controller). Once the manifest carries this epoch, its next write names a version that is
      // gone, finds a later epoch stored and stops. Without the claim, the old leader could mark a
      // segment copied between this tier reading it as unfinished and deleting its objects: the
      // manifest would then name a segment that is no longer there, and local retention would
      // delete the only other copy of its records. A partition without a manifest is claimed too
      // (with an empty one): an older leader may be writing its first.
      tier.publish(m -> m);
    }
    tier.cleanUpUnfinished();
    log.remoteCopiedUpTo(tier.manifest.copiedEnd());
    return tier;
  }

  /** Opens the tier for reads only: nothing is cleaned up or written. */
  static TieredPartition openForReads(
      RemoteSegmentStore store, RemoteIndexCache indexes, PartitionLog log, Uuid topicId, Time time)
      throws IOException {
    return new TieredPartition(
        store,
        indexes,
        log,
        topicId,
        time,
        -1,
        () -> false,
        () -> 0L,
        readManifest(store, new TopicIdPartition(topicId, log.topicPartition())));
  }

  static RemoteLogManifest readManifest(RemoteSegmentStore store, TopicIdPartition tp)
      throws IOException {
    return store.readManifest(tp).map(RemoteLogManifest::decode).orElse(RemoteLogManifest.EMPTY);
  }

  /** The leader epoch this tier writes in; -1 if it only reads. */
  public int leaderEpoch() {
    return leaderEpoch;
  }

  private void cleanUpUnfinished() throws IOException {
    catchUpIfInDoubt();
    if (fenced) {
      return; // what this tier holds may be stale, and its objects a later leader's to keep
    }
    for (RemoteSegment s : manifest.segments()) {
      if (s.state() != RemoteSegmentState.COPY_SEGMENT_FINISHED) {
        LOG.info(
            "Deleting a remote segment left unfinished topicPartition={} id={} state={}",
            tp,
            s.id(),
            s.state());
        store.deleteSegment(tp, s);
        forgetCached(s);
        publish(m -> m.without(s.id()));
      }
    }
  }

  /**
   * Reads the stored manifest again if this tier's may be behind it ({@link #manifestInDoubt}). A
   * write that failed without an answer may have been stored: a copy marked finished there while
   * this tier still has it started would otherwise be cleaned up below as unfinished, its objects
   * deleted while the stored manifest names it copied, and a follower that read that manifest may
   * have deleted its local copy of the records already (its local retention trusts the stored
   * manifest); a crash of this leader before it copied them again would lose them. A manifest of a
   * later epoch stops this tier before it deletes anything.
   */
  private synchronized void catchUpIfInDoubt() throws IOException {
    if (!manifestInDoubt || fenced) {
      return;
    }
    Optional<RemoteSegmentStore.StoredManifest> stored = store.readManifestVersion(tp);
    RemoteLogManifest current =
        stored.map(m -> RemoteLogManifest.decode(m.bytes())).orElse(RemoteLogManifest.EMPTY);
    if (stored.isEmpty() || current.leaderEpoch() > leaderEpoch) {
      fence(
          stored.isEmpty()
              ? "the manifest is gone"
              : "it was written in leader epoch " + current.leaderEpoch());
      return;
    }
    if (current.leaderEpoch() == leaderEpoch) {
      manifest = current;
      manifestVersion = Optional.of(stored.get().version());
      log.remoteCopiedUpTo(current.copiedEnd());
    }
    manifestInDoubt = false;
  }

  /**
   * How many times one {@link #publish} goes on from a manifest of its own epoch that it did not
   * know of (its own writes whose answers were lost) before it takes the store for a writer it
   * cannot agree with and stops for good.
   */
  private static final int MAX_OWN_WRITES_FOUND = 3;

  /**
   * How many times one {@link #publish} goes on from a manifest an earlier leader wrote meanwhile
   * before it gives up this attempt (without stopping: the task is retried at its next run).
   */
  private static final int MAX_EARLIER_WRITES_FOUND = 10;

  /**
   * Writes the manifest {@code change} makes of the current one, stamped with this tier's leader
   * epoch, conditionally: only over the version this tier read or wrote last. Synchronized, because
   * besides the partition's one copy-and-expiry task a DeleteRecords moves the log start ({@link
   * #moveLogStart}) from another thread: each change applies to the manifest the one before wrote.
   *
   * <p>The leadership check before the write narrows the window of a replaced leader; the
   * conditional write closes it: a newer leader opening the tier reads (and then replaces) the
   * manifest, so the old leader's next write names a version that is gone and fails, and the old
   * tier is fenced for good. A failed write whose stored result is exactly what was sent was this
   * tier's own (a retried request that had succeeded) and counts as done; a stored manifest of this
   * tier's own leader epoch is one of its earlier writes whose answer was lost, and the change is
   * applied to it instead; so is one of an earlier leader epoch, written by a leader this tier
   * replaces between this tier's read and its claim ({@link #open}): the older leader is the one
   * that must stop, and its write, made before the claim, is kept. An older leader that keeps
   * writing between this tier's reads and writes never fences this one: each of its writes is
   * progress of its own, and this tier retries (up to {@link #MAX_EARLIER_WRITES_FOUND} times in
   * one call, then again at the task's next run) until its write lands and stops the other.
   *
   * @throws ManifestConflictException if a later leader replaced the manifest (the tier is fenced)
   */
  synchronized void publish(UnaryOperator<RemoteLogManifest> change) throws IOException {
    if (fenced) {
      throw new ManifestConflictException(
          "the remote manifest of " + tp + " belongs to a later leader than epoch " + leaderEpoch);
    }
    if (!leading.getAsBoolean()) {
      throw new IOException(
          "no longer the leader of "
              + tp
              + " in epoch "
              + leaderEpoch
              + ": not writing its manifest");
    }
    RemoteLogManifest next = change.apply(manifest).withLeaderEpoch(leaderEpoch);
    Optional<String> expected = manifestVersion;
    // Each pass writes once. A conflict is not always another writer: a client that retries a
    // conditional write whose first attempt the store took (its answer lost) is refused by its
    // own write. So a conflict is judged by what is stored: exactly what was sent is this write
    // done; a manifest of this tier's own leader epoch is an earlier write of its own whose answer
    // was lost, and one of an earlier epoch the replaced leader's last writes: the change is
    // applied to either; anything else is a later leader's.
    int ownWritesFound = 0;
    int earlierWritesFound = 0;
    while (true) {
      byte[] bytes = next.encode();
      try {
        manifestVersion = Optional.of(store.replaceManifest(tp, bytes, expected));
        break;
      } catch (ManifestConflictException e) {
        Optional<RemoteSegmentStore.StoredManifest> stored = readAfterConflict();
        if (stored.isPresent() && Arrays.equals(stored.get().bytes(), bytes)) {
          manifestVersion = Optional.of(stored.get().version());
          break;
        }
        int storedEpoch =
            stored.isPresent()
                ? RemoteLogManifest.decode(stored.get().bytes()).leaderEpoch()
                : Integer.MAX_VALUE;
        if (storedEpoch < leaderEpoch && earlierWritesFound++ == MAX_EARLIER_WRITES_FOUND) {
          throw new IOException(
              "the leader before epoch "
                  + leaderEpoch
                  + " kept writing the remote manifest of "
                  + tp
                  + ": trying again later",
              e);
        }
        if (storedEpoch < leaderEpoch
            || (storedEpoch == leaderEpoch && ownWritesFound++ < MAX_OWN_WRITES_FOUND)) {
          next = change.apply(RemoteLogManifest.decode(stored.get().bytes()));
          next = next.withLeaderEpoch(leaderEpoch);
          expected = Optional.of(stored.get().version());
          LOG.info(
              storedEpoch == leaderEpoch
                  ? "Going on from the remote manifest a write whose answer was lost had stored"
                      + " topicPartition={} leaderEpoch={}"
                  : "Going on from the remote manifest the leader before wrote"
                      + " topicPartition={} leaderEpoch={}",
              tp,
              leaderEpoch);
          continue;
        }
        fence(e.getMessage());
        throw e;
      } catch (IOException | RuntimeException e) {
        // No answer: the write may have been stored all the same (see catchUpIfInDoubt)
        manifestInDoubt = true;
        throw e;
      }
    }
    manifest = next;
  }

  /** The stored manifest after a refused write; a failure to read it leaves the answer unknown. */
  private Optional<RemoteSegmentStore.StoredManifest> readAfterConflict() throws IOException {
    try {
      return store.readManifestVersion(tp);
    } catch (IOException | RuntimeException e) {
      manifestInDoubt = true;
      throw e;
    }
  }

  private void fence(String why) {
    fenced = true;
    LOG.warn(
        "Another leader wrote the remote manifest, this one stops writing it topicPartition={}"
            + " leaderEpoch={} reason={}",
        tp,
        leaderEpoch,
        why);
  }

  /** Reports copies to {@code metrics} from now on. */
  void reportTo(RemoteLogMetrics metrics) {
    this.metrics = metrics;
  }

  /** Bytes of rolled local segments not copied yet (Kafka's RemoteCopyLagBytes). */
  public long copyLagBytes() {
    return copyLag(true);
  }

  /** Rolled local segments not copied yet (Kafka's RemoteCopyLagSegments). */
  public long copyLagSegments() {
    return copyLag(false);
  }

  private long copyLag(boolean bytes) {
    long copiedEnd = manifest.copiedEnd();
    long lag = 0;
    LogSegment previous = null;
    for (LogSegment s : log.segments()) {
      if (previous != null && previous.baseOffset() >= copiedEnd) {
        lag += bytes ? previous.sizeInBytes() : 1;
      }
      previous = s; // the last one, the active segment, is not counted
    }
    return lag;
  }

  /** Bytes of the readable remote segments. */
  public long remoteSizeBytes() {
    long size = 0;
    for (RemoteSegment s : manifest.readable()) {
      size += s.sizeInBytes();
    }
    return size;
  }

  /** Whether another leader's manifest was found, so this tier writes nothing any more. */
  public boolean fenced() {
    return fenced;
  }

  public TopicPartition topicPartition() {
    return tp.topicPartition();
  }

  /** The topic id this tier's remote data is kept under. */
  public Uuid topicId() {
    return tp.topicId();
  }

  /** The local log this tier belongs to (a recreated log gets a new tier). */
  public PartitionLog log() {
    return log;
  }

  public RemoteLogManifest manifest() {
    return manifest;
  }

  /** The key of this tier's remote data. */
  TopicIdPartition topicIdPartition() {
    return tp;
  }

  RemoteSegmentStore store() {
    return store;
  }

  RemoteIndexCache indexes() {
    return indexes;
  }

  // ---- Copying ----

  /**
   * Copies, oldest first, every rolled segment after the last one copied that lies wholly below
   * both the high watermark and the last stable offset (and for a compacted topic the local
   * cleaner's first dirty offset, so that only cleaned data goes remote), then lets local retention
   * delete what is now remote.
   *
   * @return the number of segments copied
   */
  public int copyEligible() throws IOException {
    return copyEligible(() -> false);
  }

  /**
   * {@link #copyEligible()} that stops before the next segment, and skips local retention, once
   * {@code stopping} says so (the broker is shutting down: a copy in progress finishes, nothing
   * more starts).
   */
  public int copyEligible(BooleanSupplier stopping) throws IOException {
    LogConfig config = log.config();
    if (fenced || !config.remoteStorageEnable() || config.remoteLogCopyDisable()) {
      return 0;
    }
    // A copy or deletion that failed midway (the store went away) left its entry STARTED: its
    // objects go and its entry is dropped before anything else, as when a tier is opened.
    cleanUpUnfinished();
    if (fenced) {
      return 0;
    }
    int copied = 0;
    long bound = Math.min(log.highWatermark(), log.lastStableOffset());
    if (config.compacted()) {
      bound = Math.min(bound, cleanedUpTo.getAsLong());
    }
    List<LogSegment> segments = new ArrayList<>(log.segments());
    for (int i = 0; i + 1 < segments.size(); i++) {
      LogSegment segment = segments.get(i);
      long next = segments.get(i + 1).baseOffset();
      if (next <= manifest.copiedEnd() || segment.sizeInBytes() == 0) {
        continue;
      }
      if (next > bound || stopping.getAsBoolean()) {
        break;
      }
      if (!copy(segment, next)) {
        break;
      }
      copied++;
    }
    // Local retention at every run that copied without failing, not only after a copy: segments
    // copied before local.retention.* passed would otherwise wait for the broker's retention check.
    if (!stopping.getAsBoolean()) {
      log.deleteOldSegments();
    }
    return copied;
  }

  /**
   * Copies one segment; false if the log cleaner replaced it meanwhile (its files may then have
   * been renamed under the upload), in which case the copy is undone and retried next time.
   */
  private boolean copy(LogSegment segment, long nextOffset) throws IOException {
    RemoteSegment started =
        new RemoteSegment(
            UUID.randomUUID().toString(),
            segment.baseOffset(),
            nextOffset - 1,
            segment.largestTimestamp(),
            segment.sizeInBytes(),
            RemoteSegmentState.COPY_SEGMENT_STARTED);
    try {
      publish(m -> m.with(started));
      try (PinnedSegment pinned = segment.pin()) {
        store.copySegment(tp, started, filesOf(segment, pinned, nextOffset));
      }
      if (!isLive(segment)) {
        LOG.info(
            "A segment was replaced while it was copied, copying it again later topicPartition={}"
                + " baseOffset={}",
            tp,
            segment.baseOffset());
        store.deleteSegment(tp, started);
        publish(m -> m.without(started.id()));
        return false;
      }
      publish(m -> m.with(started.withState(RemoteSegmentState.COPY_SEGMENT_FINISHED)));
    } catch (IOException | RuntimeException e) {
      metrics.failed(tp.topic(), RemoteLogMetrics.Operation.COPY);
      throw e;
    }
    metrics.succeeded(tp.topic(), RemoteLogMetrics.Operation.COPY, started.sizeInBytes());
    log.remoteCopiedUpTo(nextOffset);
    LOG.info(
        "Copied a segment to remote storage topicPartition={} baseOffset={} endOffset={} bytes={}",
        tp,
        started.baseOffset(),
        started.endOffset(),
        started.sizeInBytes());
    return true;
  }

  /**
   * Whether {@code segment} is still one of the log's: a segment the cleaner replaced (or retention
   * deleted) never comes back, so if it is still there after an upload, the files uploaded were its
   * own.
   */
  private boolean isLive(LogSegment segment) {
    for (LogSegment s : log.segments()) {
      if (s == segment) {
        return true;
      }
    }
    return false;
  }

  private LocalSegmentFiles filesOf(LogSegment segment, PinnedSegment pinned, long nextOffset)
      throws IOException {
    Path dir = log.dir();
    return new LocalSegmentFiles(
        pinned.file().logPath(),
        offsetIndexBytes(pinned.offsetIndex()),
        timeIndexBytes(pinned.timeIndex()),
        Optional.of(SegmentFiles.txnIndexFile(dir, segment.baseOffset())),
        Optional.of(
            dir.resolve(SegmentFiles.offsetPrefix(nextOffset) + SegmentFiles.SNAPSHOT_SUFFIX)),
        epochCheckpoint(nextOffset));
  }

  /** Kafka's offset index layout: per entry the offset relative to the base, then the position. */
  static byte[] offsetIndexBytes(OffsetIndex index) {
    ByteBuffer out = ByteBuffer.allocate(index.entries() * OffsetIndex.ENTRY_SIZE);
    for (int i = 0; i < index.entries(); i++) {
      OffsetPosition e = index.entry(i);
      out.putInt((int) (e.offset() - index.baseOffset())).putInt(e.position());
    }
    return out.array();
  }

  /** Kafka's time index layout: per entry the timestamp, then the offset relative to the base. */
  static byte[] timeIndexBytes(TimeIndex index) {
    ByteBuffer out = ByteBuffer.allocate(index.entries() * TimeIndex.ENTRY_SIZE);
    for (int i = 0; i < index.entries(); i++) {
      TimestampOffset e = index.entry(i);
      out.putLong(e.timestamp()).putInt((int) (e.offset() - index.baseOffset()));
    }
    return out.array();
  }

  /** The leader epochs that start before {@code nextOffset}, as a leader-epoch-checkpoint file. */
  private byte[] epochCheckpoint(long nextOffset) {
    List<EpochEntry> entries = new ArrayList<>();
    for (EpochEntry e : log.leaderEpochCache().entries()) {
      if (e.startOffset() < nextOffset) {
        entries.add(e);
      }
    }
    return RemoteEpochs.encode(entries);
  }

  // ---- Compaction (compacted topics) ----

  /**
   * Deletes the objects of the segments a remote compaction replaced (DELETE_SEGMENT_STARTED), one
   * task after the swap, so that reads that had just picked them have time to finish; then drops
   * their entries in one manifest write.
   *
   * @return the number of segments deleted
   */
  public int deleteReplaced() throws IOException {
    if (fenced) {
      return 0;
    }
    List<RemoteSegment> replaced = new ArrayList<>();
    for (RemoteSegment s : manifest.segments()) {
      if (s.state() == RemoteSegmentState.DELETE_SEGMENT_STARTED) {
        replaced.add(s);
      }
    }
    if (replaced.isEmpty()) {
      return 0;
    }
    List<String> ids = new ArrayList<>(replaced.size());
    for (RemoteSegment s : replaced) {
      deleteFromStore(s);
      forgetCached(s);
      ids.add(s.id());
    }
    publish(
        m -> {
          RemoteLogManifest next = m;
          for (String id : ids) {
            next = next.without(id);
          }
          return next;
        });
    return replaced.size();
  }

  /**
   * Runs a remote compaction pass ({@link RemoteCompactor}) if the topic is compacted and its
   * remote copy is dirty enough: the bytes copied since the last pass make up at least {@code
   * min.cleanable.dirty.ratio} of the remote bytes, or tombstones the last pass kept have reached
   * their delete horizon.
   *
   * @return whether a pass ran
   */
  public boolean compactIfDirty(RemoteCompactor compactor) throws IOException {
    LogConfig config = log.config();
    if (fenced || !config.compacted()) {
      return false;
    }
    long from = manifest.compactedEnd();
    long total = 0;
    long dirty = 0;
    for (RemoteSegment s : manifest.readable()) {
      total += s.sizeInBytes();
      if (s.nextOffset() > from) {
        dirty += s.sizeInBytes();
      }
    }
    boolean dirtyEnough = dirty > 0 && (double) dirty / total >= config.minCleanableDirtyRatio();
    boolean tombstonesDue = tombstoneHorizonMs >= 0 && tombstoneHorizonMs <= time.milliseconds();
    if (!dirtyEnough && !tombstonesDue) {
      return false;
    }
    Optional<RemoteCompactor.Result> result;
    try {
      result = compactor.tryCompact(this, from);
    } catch (NoSuchFileException e) {
      // A segment this tier names is gone: a later leader compacted or expired it (this one will
      // find its manifest and stop) or it was lost; either way, read the manifest again first
      synchronized (this) {
        manifestInDoubt = true;
      }
      throw e;
    }
    if (result.isEmpty()) {
      return false;
    }
    tombstoneHorizonMs =
        result.get().retainedTombstones() ? time.milliseconds() + config.deleteRetentionMs() : -1;
    return true;
  }

  // ---- Expiry ----

  /**
   * Deletes remote segments the topic's total retention no longer keeps, oldest first: those below
   * the remote log start (DeleteRecords), those that would leave the partition (remote plus
   * not-yet-copied local data) at or above {@code retention.bytes}, and those whose newest record
   * is older than {@code retention.ms}.
   *
   * @return the number of segments deleted
   */
  public int expire() throws IOException {
    if (fenced) {
      return 0;
    }
    LogConfig config = log.config();
    long copiedEnd = manifest.copiedEnd();
    long total = 0;
    for (LogSegment s : log.segments()) {
      if (s.baseOffset() >= copiedEnd) {
        total += s.sizeInBytes();
      }
    }
    for (RemoteSegment s : manifest.readable()) {
      total += s.sizeInBytes();
    }
    long now = time.milliseconds();
    int deleted = 0;
    // Copied segments, including those a DeleteRecords left wholly below the log start (no longer
    // readable, but still to delete).
    for (RemoteSegment s : manifest.segments()) {
      if (s.state() != RemoteSegmentState.COPY_SEGMENT_FINISHED) {
        continue;
      }
      boolean belowStart = s.endOffset() < manifest.logStartOffset();
      boolean tooBig =
          config.deletes()
              && config.retentionBytes() >= 0
              && total - s.sizeInBytes() >= config.retentionBytes();
      boolean tooOld =
          config.deletes()
              && config.retentionMs() >= 0
              && now - s.maxTimestamp() > config.retentionMs();
      if (!belowStart && !tooBig && !tooOld) {
        break;
      }
      delete(s);
      if (!belowStart) {
        total -= s.sizeInBytes();
      }
      deleted++;
    }
    return deleted;
  }

  /**
   * DeleteRecords: moves the remote log start offset to {@code offset} in the manifest (never
   * back), so offsets below it are unreadable from remote storage at once, on every broker that
   * reads the manifest next; {@link #expire} then deletes the segments wholly below it.
   *
   * @return the partition's log start offset after the move
   */
  public long moveLogStart(long offset) throws IOException {
    if (offset > manifest.logStartOffset()) {
      publish(m -> m.withLogStartOffset(offset));
      LOG.info("Moved the remote log start offset topicPartition={} offset={}", tp, offset);
    }
    return logStartOffset();
  }

  private void delete(RemoteSegment s) throws IOException {
    publish(m -> m.with(s.withState(RemoteSegmentState.DELETE_SEGMENT_STARTED)));
    deleteFromStore(s);
    forgetCached(s);
    publish(m -> m.without(s.id()).withLogStartOffset(s.nextOffset()));
    LOG.info(
        "Deleted a remote segment past retention topicPartition={} baseOffset={} endOffset={}",
        tp,
        s.baseOffset(),
        s.endOffset());
  }

  /** Drops what this broker keeps on local disk of a deleted remote segment. */
  private void forgetCached(RemoteSegment s) throws IOException {
    indexes.remove(s);
    RemoteChunkCache cache = chunks;
    if (cache != null) {
      cache.remove(s);
    }
  }

  /** Deletes a segment's objects, counted in the delete meters (undoing a copy is not). */
  private void deleteFromStore(RemoteSegment s) throws IOException {
    try {
      store.deleteSegment(tp, s);
    } catch (IOException | RuntimeException e) {
      metrics.failed(tp.topic(), RemoteLogMetrics.Operation.DELETE);
      throw e;
    }
    metrics.succeeded(tp.topic(), RemoteLogMetrics.Operation.DELETE, s.sizeInBytes());
  }

  /** Deletes every remote segment and the manifest (the topic was deleted). */
  public void deleteAll() throws IOException {
    for (RemoteSegment s : manifest.segments()) {
      delete(s);
    }
    store.deleteManifest(tp);
  }

  // ---- Reads ----

  /** The first offset readable from this partition: remote if any segment is there, else local. */
  public long logStartOffset() {
    return manifest.firstReadableOffset().orElse(log.logStartOffset());
  }

  /** The last offset in remote storage (ListOffsets {@code -5}), -1 if none. */
  public long highestRemoteOffset() {
    List<RemoteSegment> readable = manifest.readable();
    return readable.isEmpty() ? -1 : readable.get(readable.size() - 1).endOffset();
  }

  /** Whether {@code offset} is in a readable remote segment. */
  public boolean holds(long offset) {
    return manifest.segmentFor(offset).isPresent();
  }

  /**
   * Reads from the remote batch holding {@code fetchOffset}: whole batches, at most {@code
   * maxBytes} (the whole first batch when {@code minOneBatch}), none starting at or after {@code
   * maxOffset}, all from that one segment (the next fetch continues in the next).
   *
   * @throws StorageException OFFSET_OUT_OF_RANGE if no remote segment holds the offset
   */
  public MemoryRecords read(long fetchOffset, int maxBytes, long maxOffset, boolean minOneBatch)
      throws IOException {
    RemoteSegment segment = segmentOrThrow(fetchOffset);
    // The chunk cache replaces the read-ahead: a sequential reader's next read finds its bytes in
    // the chunk the previous read fetched.
    RemoteReadAhead ahead = chunks == null ? readAhead : RemoteReadAhead.NONE;
    // A read that continues the partition's previous one starts where it stopped, with the bytes
    // it fetched ahead, and reads ahead again; any other read fetches only what it sends.
    RemoteReadAhead.Held held = ahead.take(tp, segment.id(), fetchOffset);
    long aheadBytes = held == null ? 0 : ahead.bytes();
    long start =
        held == null ? indexes.positionFor(store, tp, segment, fetchOffset) : held.position();
    RemoteBatchCursor cursor =
        new RemoteBatchCursor(
            source(),
            segment,
            start,
            (int)
                Math.min(
                    Integer.MAX_VALUE,
                    Math.max(CHUNK_BYTES, (long) maxBytes + INDEX_GAP_BYTES + aheadBytes)));
    if (held != null) {
      cursor.hold(held.position(), held.bytes());
    }
    long first = -1;
    long end = -1;
    long next = -1;
    while (cursor.next()) {
      if (cursor.lastOffset() < fetchOffset) {
        continue;
      }
      if (cursor.baseOffset() >= maxOffset) {
        break;
      }
      if (first < 0) {
        if (cursor.batchSize() > maxBytes && !minOneBatch) {
          break;
        }
        first = cursor.position();
        // What is sent is fetched once: from the first batch on, at most the limit (and what is
        // read ahead for the next read).
        cursor.keepFrom(first);
        cursor.readAheadUpTo(first + Math.max(maxBytes, cursor.batchSize()) + aheadBytes);
      } else if (cursor.position() + cursor.batchSize() - first > maxBytes) {
        break;
      }
      end = cursor.position() + cursor.batchSize();
      next = cursor.lastOffset() + 1;
      if (end + RemoteBatchCursor.HEADER_SIZE - first > maxBytes) {
        break; // not even a batch header fits after it: not worth fetching the next one
      }
    }
    if (first < 0) {
      return MemoryRecords.EMPTY;
    }
    MemoryRecords records = MemoryRecords.readableRecords(cursor.bytes(first, end));
    if (ahead.bytes() > 0 && end < segment.sizeInBytes()) {
      ahead.keep(tp, new RemoteReadAhead.Held(segment.id(), next, end, cursor.heldFrom(end)));
    }
    return records;
  }

  /** Bytes fetched ahead of sequential readers are held in {@code readAhead} (none by default). */
  void readAhead(RemoteReadAhead readAhead) {
    this.readAhead = readAhead;
  }

  /** Reads go through {@code cache} (and read-ahead is off); null: straight to the store. */
  void chunkCache(RemoteChunkCache cache) {
    this.chunks = cache;
  }

  /** Where reads get a remote log's bytes: the chunk cache if there is one, else the store. */
  private RemoteBatchCursor.Source source() {
    RemoteChunkCache cache = chunks;
    if (cache == null) {
      return (s, start, length) -> store.fetchLogRange(tp, s, start, length);
    }
    return (s, start, length) -> cache.read(store, tp, s, start, length);
  }

  /**
   * The aborted transactions a read_committed consumer must skip in remote data read from {@code
   * fetchOffset} up to {@code upperBound} (the offset after the last batch sent): the entries of
   * the remote transaction indexes from the segment holding {@code fetchOffset} on, then, if none
   * of them closes the search (an entry's last stable offset at or past {@code upperBound}), of the
   * local log. Kafka's search, across both tiers.
   */
  public List<AbortedTxn> abortedTransactions(long fetchOffset, long upperBound)
      throws IOException {
    List<AbortedTxn> out = new ArrayList<>();
    for (RemoteSegment segment : manifest.readable()) {
      if (segment.endOffset() < fetchOffset) {
        continue;
      }
      if (TransactionIndex.collect(
          indexes.abortedTxns(store, tp, segment), fetchOffset, upperBound, out)) {
        return out;
      }
    }
    out.addAll(
        log.collectAbortedTransactions(Math.max(fetchOffset, log.logStartOffset()), upperBound));
    return out;
  }

  private RemoteSegment segmentOrThrow(long offset) {
    return manifest
        .segmentFor(offset)
        .orElseThrow(
            () ->
                new StorageException(
                    StorageError.OFFSET_OUT_OF_RANGE,
                    "offset " + offset + " of " + tp + " is in no remote segment"));
  }

  /**
   * The first remote record at or after {@code timestamp} (ListOffsets by time); empty if every
   * remote record is older (the local log then has the answer).
   */
  public Optional<FileRecords.TimestampAndOffset> offsetForTimestamp(long timestamp)
      throws IOException {
    for (RemoteSegment segment : manifest.readable()) {
      if (segment.maxTimestamp() < timestamp) {
        continue;
      }
      long from =
          Math.max(manifest.logStartOffset(), indexes.offsetBefore(store, tp, segment, timestamp));
      int position = indexes.positionFor(store, tp, segment, from);
      RemoteBatchCursor cursor = new RemoteBatchCursor(source(), segment, position, CHUNK_BYTES);
      while (cursor.next()) {
        if (cursor.maxTimestamp() < timestamp || cursor.lastOffset() < from) {
          continue;
        }
        MemoryRecords batch =
            MemoryRecords.readableRecords(
                cursor.bytes(cursor.position(), cursor.position() + cursor.batchSize()));
        for (MutableRecordBatch b : batch.batches()) {
          for (Record r : b) {
            if (r.timestamp() >= timestamp && r.offset() >= from) {
              return Optional.of(
                  new FileRecords.TimestampAndOffset(
                      r.timestamp(), r.offset(), Optional.of(b.partitionLeaderEpoch())));
            }
          }
        }
      }
    }
    return Optional.empty();
  }
}
