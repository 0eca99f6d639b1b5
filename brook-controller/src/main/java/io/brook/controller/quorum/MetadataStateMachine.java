package io.brook.controller.quorum;

import io.brook.controller.quorum.EntryCodec.Entry;
import io.brook.controller.quorum.EntryCodec.Status;
import io.brook.metadata.image.MetadataImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin Ratis state machine: applies committed metadata entries to the image, serves the
 * controller channel on the leader ({@link #query}), and writes and loads checksummed snapshots
 * ({@link SnapshotFile}). All controller logic lives in brook-metadata.
 *
 * <p>Ratis calls {@link #applyTransaction} from one thread, in log order; the image is published
 * through a volatile field and listeners are called on that thread.
 */
final class MetadataStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ImagePublisher publisher = new ImagePublisher("brook-metadata-publisher");
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private volatile Function<byte[], CompletableFuture<byte[]>> controllerCalls;
  private volatile Function<QueryCodec.Join, CompletableFuture<byte[]>> joins;

  /** Set when the journal's disk failed: snapshots would be written to it (see takeSnapshot). */
  private volatile boolean snapshotsRefused;

  /**
   * Guards the two fields below; not the state machine's own lock, which the log worker that
   * reports a failure must not wait for.
   */
  private final Object journalFailureLock = new Object();

  private Consumer<Throwable> journalFailureListener;
  private Throwable journalFailure;

  /** Deltas for brokers that follow the log: 100,000 records is a few seconds of a busy cluster. */
  private final RecentRecords recent = new RecentRecords(100_000);

  /** Completed and replaced at every publish: what a caught-up fetch waits for. */
  private CompletableFuture<Void> nextChange = new CompletableFuture<>();

  /** How long a caught-up fetch waits for a change before answering with nothing new. */
  static final long FETCH_WAIT_MS = 500;

  MetadataImage image() {
    return image;
  }

  /**
   * Calls {@code listener} with the current image now and then with newer images, on the publisher
   * thread, skipping images it was too slow for ({@link ImagePublisher}).
   */
  void addListener(Consumer<MetadataImage> listener) {
    publisher.addListener(listener, image);
  }

  /** Completes once the image has reached {@code offset} (at once if it has). */
  CompletableFuture<Void> whenApplied(long offset) {
    CompletableFuture<Void> changed;
    synchronized (this) {
      if (image.offset() >= offset) {
        return CompletableFuture.completedFuture(null);
      }
      changed = nextChange;
    }
    return changed.thenCompose(ignored -> whenApplied(offset));
  }

  /** The offset of the newest image the listeners were given. */
  long publishedOffset() {
    return publisher.publishedOffset();
  }

  @Override
  public void close() throws IOException {
    publisher.close();
    super.close();
  }

  void serve(Function<byte[], CompletableFuture<byte[]>> handler) {
    this.controllerCalls = handler;
  }

  /** Installs what answers a controller's request to join the group as an observer. */
  void serveJoins(Function<QueryCodec.Join, CompletableFuture<byte[]>> handler) {
    this.joins = handler;
  }

  @Override
  public synchronized void initialize(
      RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    getLifeCycle()
        .startAndTransition(
            () -> {
              super.initialize(server, groupId, raftStorage);
              storage.init(raftStorage);
              loadLatestSnapshot();
            },
            IOException.class);
  }

  /**
   * Before Ratis installs a snapshot sent by the leader (this node was behind the leader's purged
   * log): Ratis requires the state machine to be PAUSED, and {@link #reinitialize} to resume it.
   */
  @Override
  public synchronized void pause() {
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  /** Loads the snapshot Ratis just installed and resumes. */
  @Override
  public synchronized void reinitialize() throws IOException {
    loadLatestSnapshot();
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  /** Loads the newest snapshot on disk, if any: at start-up, and after an installation. */
  private void loadLatestSnapshot() throws IOException {
    SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
    if (snapshot == null) {
      return;
    }
    Path file = snapshot.getFile().getPath();
    MD5Hash md5 = snapshot.getFile().getFileDigest();
    if (md5 != null) {
      MD5FileUtil.verifySavedMD5(file.toFile(), md5);
    }
    SnapshotFile.Contents contents = SnapshotFile.read(file);
    updateLastAppliedTermIndex(contents.term(), contents.index());
    recent.clear();
    publish(contents.image());
    log.info(
        "Loaded metadata snapshot index={} imageOffset={} topics={}",
        contents.index(),
        contents.image().offset(),
        contents.image().topicNames().size());
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    TermIndex termIndex = TermIndex.valueOf(entry);
    ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
    byte[] reply;
    synchronized (this) {
      reply = apply(EntryCodec.decode(data));
      updateLastAppliedTermIndex(termIndex);
    }
    return CompletableFuture.completedFuture(Message.valueOf(wrap(reply)));
  }

  /** Applies one entry, deterministically: every replica makes the same decision. */
  private byte[] apply(Entry entry) {
    MetadataImage current = image;
    if (entry.expectedOffset() != current.offset()) {
      return EntryCodec.reply(Status.CONFLICT, "");
    }
    MetadataImage next;
    try {
      next = current.apply(entry.records(), current.offset() + entry.records().size());
    } catch (RuntimeException e) {
      log.error("Metadata entry does not apply offset={}", current.offset(), e);
      return EntryCodec.reply(Status.REJECTED, String.valueOf(e.getMessage()));
    }
    recent.add(current.offset() + 1, entry.records());
    publish(next);
    return EntryCodec.reply(Status.APPLIED, "");
  }

  private void publish(MetadataImage next) {
    image = next;
    CompletableFuture<Void> changed = nextChange;
    nextChange = new CompletableFuture<>();
    changed.complete(null);
    publisher.publish(next);
  }

  /** One line per leadership change: when a failover happened, and who won, is in every log. */
  @Override
  public void notifyLeaderChanged(RaftGroupMemberId memberId, RaftPeerId newLeaderId) {
    log.info(
        "Active controller changed nodeId={} activeController={} imageOffset={}",
        RatisConfig.nodeId(memberId.getPeerId()),
        RatisConfig.nodeId(newLeaderId),
        image.offset());
  }

  /**
   * From now on no snapshot is taken (the one Ratis takes when it stops included): the journal's
   * disk failed, and the checksum file Ratis writes beside a snapshot is replaced even when its
   * write fails, so a snapshot written then could leave a node that cannot load it.
   */
  void refuseSnapshots() {
    snapshotsRefused = true;
  }

  /**
   * Tells {@code listener} when the journal could not be written, with the cause; a failure before
   * it was set is told to it at once.
   */
  void onJournalFailure(Consumer<Throwable> listener) {
    Throwable failed;
    synchronized (journalFailureLock) {
      journalFailureListener = listener;
      failed = journalFailure;
    }
    if (failed != null) {
      listener.accept(failed);
    }
  }

  /**
   * Ratis could not write an entry to this node's journal (its log worker closes the log then, and
   * the server can neither lead nor follow any more): the node must stop, as Kafka's does on a
   * metadata log failure, rather than go on serving a metadata image that no longer moves.
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    Consumer<Throwable> listener;
    synchronized (journalFailureLock) {
      if (journalFailure != null) {
        return; // told once
      }
      journalFailure = cause;
      listener = journalFailureListener;
    }
    log.error(
        "The metadata log could not be written entry={}",
        failedEntry == null ? "none" : TermIndex.valueOf(failedEntry),
        cause);
    if (listener != null) {
      listener.accept(cause);
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    if (snapshotsRefused) {
      return -1;
    }
    MetadataImage snapshotImage;
    TermIndex applied;
    synchronized (this) {
      snapshotImage = image;
      applied = getLastAppliedTermIndex();
    }
    if (applied == null || applied.getIndex() < 0) {
      return -1;
    }
    Path file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex()).toPath();
    Files.createDirectories(file.getParent());
    SnapshotFile.write(file, applied.getTerm(), applied.getIndex(), snapshotImage);
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file, md5), applied));
    log.info(
        "Wrote metadata snapshot index={} imageOffset={}",
        applied.getIndex(),
        snapshotImage.offset());
    return applied.getIndex();
  }

  /**
   * A read-only request, which Ratis routes to the leader ({@code sendReadOnly}): a controller call
   * runs the installed handler; a metadata fetch answers with a delta or a snapshot, waiting up to
   * {@link #FETCH_WAIT_MS} for a change when the fetcher is caught up.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteBuffer bytes = request.getContent().asReadOnlyByteBuffer();
    byte kind = bytes.get();
    if (kind == QueryCodec.FETCH) {
      long offset = bytes.getLong();
      return fetch(offset).thenApply(answer -> Message.valueOf(wrap(answer)));
    }
    if (kind == QueryCodec.JOIN) {
      Function<QueryCodec.Join, CompletableFuture<byte[]>> joinHandler = joins;
      if (joinHandler == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("no joins served yet"));
      }
      QueryCodec.Join join;
      try {
        join = QueryCodec.decodeJoin(bytes);
      } catch (IllegalArgumentException e) {
        return CompletableFuture.failedFuture(e);
      }
      return joinHandler.apply(join).thenApply(answer -> Message.valueOf(wrap(answer)));
    }
    Function<byte[], CompletableFuture<byte[]>> handler = controllerCalls;
    if (handler == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("this controller does not serve calls yet"));
    }
    byte[] payload = new byte[bytes.remaining()];
    bytes.get(payload);
    return handler.apply(payload).thenApply(answer -> Message.valueOf(wrap(answer)));
  }

  private CompletableFuture<byte[]> fetch(long offset) {
    CompletableFuture<Void> changed;
    synchronized (this) {
      if (image.offset() == offset) {
        changed = nextChange;
      } else {
        return CompletableFuture.completedFuture(answerFetch(offset));
      }
    }
    // On a copy: the shared future must stay incomplete for the next waiters.
    return changed
        .copy()
        .completeOnTimeout(null, FETCH_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)
        .thenApply(ignored -> answerFetch(offset));
  }

  private synchronized byte[] answerFetch(long offset) {
    MetadataImage current = image;
    if (offset <= current.offset()) {
      java.util.Optional<java.util.List<io.brook.metadata.record.MetadataRecord>> delta =
          recent.after(offset);
      if (delta.isPresent() || offset == current.offset()) {
        return QueryCodec.fetched(false, current.offset(), delta.orElse(List.of()));
      }
    }
    return QueryCodec.fetched(true, current.offset(), current.toRecords());
  }

  private static ByteString wrap(byte[] bytes) {
    return UnsafeByteOperations.unsafeWrap(bytes);
  }
}
