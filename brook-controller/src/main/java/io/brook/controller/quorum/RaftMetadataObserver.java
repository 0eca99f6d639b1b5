package io.brook.controller.quorum;

import io.brook.controller.quorum.QueryCodec.Fetched;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.ControllerChannel;
import io.brook.metadata.quorum.QuorumState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker-only node's view of the metadata quorum: not a voter, it follows the committed log by
 * fetching from the active controller like a consumer, from the offset of its own image (a delta,
 * or the whole image when it is too far behind), one long-poll at a time. It keeps a local copy
 * ({@link SnapshotFile}, at most one write per second) and starts from it after a restart, so it
 * serves the metadata it last saw before it reaches the quorum.
 *
 * <p>It is never the active controller: {@link #submit} fails with {@code NOT_CONTROLLER}, and
 * requests go to the controller over {@link #call}.
 */
public final class RaftMetadataObserver implements ClusterQuorum {
  private static final Logger log = LoggerFactory.getLogger(RaftMetadataObserver.class);

  private static final long RETRY_BACKOFF_MS = 200;
  private static final long SAVE_INTERVAL_MS = 1_000;

  private final RaftClient client;
  private final RaftClient longClient;

  /**
   * How long a fetch may go unanswered before another is sent: the quorum client's request timeout
   * plus the controller's long-poll. The quorum client schedules its retries on wall-clock timers
   * ({@link java.util.Timer}), which a clock stepped back stalls for as long as the step; without a
   * deadline of its own, one stalled fetch would stop this broker's metadata.
   */
  private final long fetchTimeoutMs;

  /** Whether the last fetch timed out, to log the first of a run of timeouts only. */
  private boolean lastFetchTimedOut;

  private final Path localCopy;
  private final ScheduledExecutorService fetcher;
  private final ImagePublisher publisher = new ImagePublisher("brook-metadata-publisher");
  private volatile MetadataImage image;
  private volatile boolean closed;
  private long savedOffset;
  private long lastSaveMs;

  private RaftMetadataObserver(
      RaftClient client,
      RaftClient longClient,
      long fetchTimeoutMs,
      Path localCopy,
      MetadataImage image) {
    this.client = client;
    this.longClient = longClient;
    this.fetchTimeoutMs = fetchTimeoutMs;
    this.localCopy = localCopy;
    this.image = image;
    this.savedOffset = image.offset();
    this.fetcher =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "brook-metadata-fetcher");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Loads the local copy, if any, and starts following the log. */
  public static RaftMetadataObserver start(QuorumSettings settings) throws IOException {
    Files.createDirectories(settings.storageDir());
    Path localCopy = settings.storageDir().resolve("broker-image.snapshot");
    MetadataImage image = MetadataImage.EMPTY;
    if (Files.exists(localCopy)) {
      try {
        image = SnapshotFile.read(localCopy).image();
        log.info("Loaded the local metadata copy imageOffset={}", image.offset());
      } catch (IOException e) {
        log.warn("Local metadata copy unreadable, fetching all file={}", localCopy, e);
      }
    }
    // The voters, or, with controller.quorum.bootstrap.servers, placeholders the first redirect
    // replaces with the real peers (list every controller there: a client knows no others until
    // a follower names them).
    RaftGroup group =
        settings.voters().isEmpty()
            ? RaftGroup.valueOf(
                RatisConfig.GROUP_ID, RatisConfig.bootstrapPeers(settings.bootstrapServers()))
            : RatisConfig.group(settings.voters());
    RaftProperties props = RatisConfig.properties(settings);
    RaftClient client = RatisConfig.client(settings, group, settings.requestTimeout(), true);
    RaftClient longClient =
        RatisConfig.client(
            settings, group, Duration.ofMillis(ControllerChannel.LONG_CALL_TIMEOUT_MS), false);
    RaftMetadataObserver observer =
        new RaftMetadataObserver(
            client,
            longClient,
            settings.requestTimeout().toMillis() + MetadataStateMachine.FETCH_WAIT_MS,
            localCopy,
            image);
    observer.fetcher.execute(observer::fetchNext);
    return observer;
  }

  private void fetchNext() {
    if (closed) {
      return;
    }
    long offset = image.offset();
    sendReadOnly(QueryCodec.fetch(offset))
        .thenApply(QueryCodec::decodeFetched)
        // A late answer cannot complete the timed-out future: only the next fetch applies.
        .orTimeout(fetchTimeoutMs, TimeUnit.MILLISECONDS)
        .whenCompleteAsync(
            (fetched, failure) -> {
              if (failure != null) {
                boolean timedOut = failure instanceof java.util.concurrent.TimeoutException;
                if (timedOut && !lastFetchTimedOut) {
                  log.info(
                      "Metadata fetch unanswered, sending another offset={} timeoutMs={}",
                      offset,
                      fetchTimeoutMs);
                } else {
                  log.debug("Metadata fetch failed offset={}", offset, failure);
                }
                lastFetchTimedOut = timedOut;
                schedule(RETRY_BACKOFF_MS);
                return;
              }
              lastFetchTimedOut = false;
              apply(fetched);
              schedule(0);
            },
            fetcher);
  }

  private void schedule(long delayMs) {
    if (!closed) {
      fetcher.schedule(this::fetchNext, delayMs, TimeUnit.MILLISECONDS);
    }
  }

  private void apply(Fetched fetched) {
    MetadataImage current = image;
    if (fetched.lastOffset() <= current.offset()) {
      // Caught up, or an answer from a leader that has not applied as much as this broker yet.
      return;
    }
    MetadataImage next =
        fetched.snapshot()
            ? MetadataImage.EMPTY.apply(fetched.records(), fetched.lastOffset())
            : current.apply(fetched.records(), fetched.lastOffset());
    image = next;
    publisher.publish(next);
    maybeSave(false);
  }

  private void maybeSave(boolean force) {
    MetadataImage current = image;
    long now = System.nanoTime() / 1_000_000;
    if (current.offset() == savedOffset || (!force && now - lastSaveMs < SAVE_INTERVAL_MS)) {
      return;
    }
    try {
      SnapshotFile.write(localCopy, 0, current.offset(), current);
      savedOffset = current.offset();
      lastSaveMs = now;
    } catch (IOException e) {
      log.warn("Cannot save the local metadata copy file={}", localCopy, e);
    }
  }

  private CompletableFuture<byte[]> sendReadOnly(byte[] request) {
    return sendReadOnly(client, request);
  }

  /**
   * Unordered, like {@code RaftMetadataQuorum.call}: an ordered stream is closed for good once a
   * request runs out of retries (a partition from the leader longer than the request timeout).
   */
  private static CompletableFuture<byte[]> sendReadOnly(RaftClient client, byte[] request) {
    return client
        .async()
        .sendReadOnlyUnordered(Message.valueOf(UnsafeByteOperations.unsafeWrap(request)))
        .thenApply(
            reply -> {
              if (!reply.isSuccess()) {
                throw new CompletionException(
                    new IOException("quorum read failed", reply.getException()));
              }
              return reply.getMessage().getContent().toByteArray();
            });
  }

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public boolean isActiveController() {
    return false;
  }

  @Override
  public OptionalInt activeControllerId() {
    int id = RatisConfig.nodeId(client.getLeaderId());
    return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
  }

  @Override
  public Optional<QuorumState> quorumState() {
    // Never a voter, so never the leader.
    return Optional.empty();
  }

  @Override
  public <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
    throw new MetadataException(
        new ApiError(Errors.NOT_CONTROLLER, "a broker-only node is never the controller"));
  }

  @Override
  public <T> CompletableFuture<T> submitAsync(Function<MetadataImage, ControllerResult<T>> op) {
    return CompletableFuture.failedFuture(
        new MetadataException(
            new ApiError(Errors.NOT_CONTROLLER, "a broker-only node is never the controller")));
  }

  @Override
  public CompletableFuture<byte[]> call(byte[] request) {
    return sendReadOnly(QueryCodec.call(request));
  }

  @Override
  public CompletableFuture<byte[]> callLong(byte[] request) {
    return sendReadOnly(longClient, QueryCodec.call(request));
  }

  @Override
  public void serve(Function<byte[], CompletableFuture<byte[]>> handler) {
    // Never the active controller: nothing to serve.
  }

  @Override
  public void addListener(Consumer<MetadataImage> listener) {
    publisher.addListener(listener, image);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    fetcher.shutdown();
    try {
      fetcher.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    maybeSave(true);
    publisher.close();
    try {
      client.close();
      longClient.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close a Raft client", e);
    }
  }
}
