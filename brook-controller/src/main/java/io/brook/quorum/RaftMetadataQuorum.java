package io.brook.quorum;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.ControllerChannel;
import io.brook.metadata.quorum.QuorumState;
import io.brook.quorum.EntryCodec.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata quorum on Apache Ratis: this node is one voter of the group named by {@code
 * controller.quorum.voters}; the Ratis leader is the active controller.
 *
 * <p>Operations run one at a time on the controller thread of the active controller: the operation
 * reads the applied image, its records go into one Raft entry stamped with that image's offset, and
 * the operation completes once the entry is committed and applied here. A follower refuses
 * operations with {@code NOT_CONTROLLER}; brokers forward requests over {@link #call}. The
 * controller thread's queue is bounded ({@link #MAX_QUEUED_OPERATIONS}).
 */
public final class RaftMetadataQuorum implements ClusterQuorum {
  private static final Logger log = LoggerFactory.getLogger(RaftMetadataQuorum.class);

  /** Queued controller operations; beyond it callers get THROTTLING_QUOTA_EXCEEDED. */
  static final int MAX_QUEUED_OPERATIONS = 1024;

  /** How long a committed entry may take to be applied here too (it is, within milliseconds). */
  private static final long LOCAL_APPLY_TIMEOUT_SECONDS = 10;

  /** Attempts of one operation whose entry lost a race with a failover (CONFLICT). */
  private static final int MAX_ATTEMPTS = 5;

  /** How long a stopping leader waits for one voter to take over its leadership. */
  private static final long HAND_OVER_TIMEOUT_MS = 2_000;

  private final RaftGroup group;
  private final Map<Integer, InetSocketAddress> voters;
  private final RaftServer server;
  private final RaftClient client;
  private final RaftClient longClient;
  private final MetadataStateMachine stateMachine;
  private final ThreadPoolExecutor controllerThread;

  /** The only voter: always the leader once elected, so requests need not go over the network. */
  private final boolean singleVoter;

  private final ClientId localClientId = ClientId.randomId();
  private final AtomicLong localCallIds = new AtomicLong();
  private volatile boolean closed;

  private RaftMetadataQuorum(
      RaftGroup group,
      Map<Integer, InetSocketAddress> voters,
      RaftServer server,
      RaftClient client,
      RaftClient longClient,
      MetadataStateMachine stateMachine) {
    this.group = group;
    this.voters = Map.copyOf(voters);
    this.server = server;
    this.client = client;
    this.longClient = longClient;
    this.stateMachine = stateMachine;
    this.singleVoter = voters.size() == 1;
    this.controllerThread =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED_OPERATIONS),
            runnable -> {
              Thread thread = new Thread(runnable, "brook-controller");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Starts this node's Raft server (binding its voter address) and a client of the group. Returns
   * at once: the group elects a leader once a majority of voters runs.
   */
  public static RaftMetadataQuorum start(QuorumSettings settings) throws IOException {
    if (!settings.voters().containsKey(settings.nodeId())) {
      throw new IllegalArgumentException(
          "node " + settings.nodeId() + " is not a voter of " + settings.voters());
    }
    if (settings.voters().size() > 1
        && settings.voters().values().stream().anyMatch(v -> v.getPort() == 0)) {
      throw new IllegalArgumentException(
          "controller.quorum.voters may name port 0 only for a single voter: " + settings.voters());
    }
    // Ratis ends the JVM (System.exit) when, for one, its gRPC port cannot be bound; the process
    // belongs to Brook, which must fail start-up with an exception instead (and an embedded
    // cluster in a test JVM must not take the JVM down).
    ExitUtils.disableSystemExit();
    Files.createDirectories(settings.storageDir());
    RaftGroup group = RatisConfig.group(settings.voters());
    RaftProperties props = RatisConfig.properties(settings);
    MetadataStateMachine stateMachine = new MetadataStateMachine();
    RaftServer server =
        RaftServer.newBuilder()
            .setServerId(RatisConfig.peerId(settings.nodeId()))
            .setGroup(group)
            .setProperties(props)
            .setParameters(RatisConfig.parameters(settings))
            .setStateMachine(stateMachine)
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
    server.start();
    Map<Integer, InetSocketAddress> voters = boundVoters(settings, server);
    RaftGroup clientGroup = RatisConfig.group(voters);
    RaftClient client = RatisConfig.client(settings, clientGroup, settings.requestTimeout(), true);
    RaftClient longClient =
        RatisConfig.client(
            settings,
            clientGroup,
            Duration.ofMillis(ControllerChannel.LONG_CALL_TIMEOUT_MS),
            false);
    log.info(
        "Raft quorum started nodeId={} voters={} storage={}",
        settings.nodeId(),
        voters,
        settings.storageDir());
    return new RaftMetadataQuorum(group, voters, server, client, longClient, stateMachine);
  }

  /**
   * The voters with this node's port as bound: a single voter may name port 0 (an {@code
   * EmbeddedBrook}), and its own clients must reach the port the kernel chose. Several voters name
   * real ports, as each must reach the others.
   */
  private static Map<Integer, InetSocketAddress> boundVoters(
      QuorumSettings settings, RaftServer server) {
    InetSocketAddress self = settings.voters().get(settings.nodeId());
    if (self.getPort() != 0) {
      return settings.voters();
    }
    int port = server.getServerRpc().getInetSocketAddress().getPort();
    return Map.of(
        settings.nodeId(), InetSocketAddress.createUnresolved(self.getHostString(), port));
  }

  @Override
  public MetadataImage image() {
    return stateMachine.image();
  }

  @Override
  public boolean isActiveController() {
    DivisionInfo info = info();
    return info != null && info.isLeader() && info.isLeaderReady();
  }

  /**
   * A leader that stops hands its leadership to another voter first. Otherwise the voters learn the
   * commit index of its last entries (often the controlled shutdown that moved this node's
   * partition leaderships) only after electing a new leader, an election timeout or two later, and
   * their brokers go on naming the old leaders of those partitions until then.
   */
  private void handOverLeadership() {
    if (!isActiveController()) {
      return;
    }
    int nodeId = RatisConfig.nodeId(server.getId());
    for (int voter : voters.keySet()) {
      if (voter == nodeId) {
        continue;
      }
      try {
        RaftClientReply reply =
            client.admin().transferLeadership(RatisConfig.peerId(voter), HAND_OVER_TIMEOUT_MS);
        if (reply.isSuccess()) {
          log.info(
              "Handed Raft leadership over before stopping nodeId={} newLeader={}", nodeId, voter);
          return;
        }
      } catch (IOException | RuntimeException e) {
        log.info(
            "Raft leadership hand-over failed nodeId={} candidate={} error={}",
            nodeId,
            voter,
            e.toString());
      }
    }
  }

  /** The node id of the Raft leader as this node knows it, if any. */
  @Override
  public OptionalInt activeControllerId() {
    DivisionInfo info = info();
    int id = info == null ? -1 : RatisConfig.nodeId(info.getLeaderId());
    return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
  }

  @Override
  public Optional<QuorumState> quorumState() {
    try {
      return QuorumStateReader.read(
          server.getDivision(group.getGroupId()), voters, System.currentTimeMillis());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private DivisionInfo info() {
    try {
      return server.getDivision(group.getGroupId()).getInfo();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
    try {
      return submitAsync(op).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Override
  public <T> CompletableFuture<T> submitAsync(Function<MetadataImage, ControllerResult<T>> op) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      controllerThread.execute(() -> run(op, result));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new MetadataException(
              new ApiError(
                  Errors.THROTTLING_QUOTA_EXCEEDED,
                  closed ? "the controller is stopping" : "too many queued controller requests")));
    }
    return result;
  }

  /** On the controller thread: compute, replicate, wait for the local apply; retry conflicts. */
  private <T> void run(
      Function<MetadataImage, ControllerResult<T>> op, CompletableFuture<T> result) {
    try {
      for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        if (!isActiveController()) {
          throw new MetadataException(ApiError.of(Errors.NOT_CONTROLLER));
        }
        MetadataImage current = stateMachine.image();
        ControllerResult<T> computed = op.apply(current);
        if (computed.records().isEmpty()) {
          result.complete(computed.response());
          return;
        }
        Status status = replicate(current.offset(), computed);
        if (status == Status.APPLIED) {
          result.complete(computed.response());
          return;
        }
        log.info("Controller operation raced a failover, retrying attempt={}", attempt);
      }
      throw new MetadataException(ApiError.of(Errors.NOT_CONTROLLER));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }

  private Status replicate(long expectedOffset, ControllerResult<?> computed) {
    byte[] entry = EntryCodec.encode(expectedOffset, computed.records());
    Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(entry));
    RaftClientReply reply;
    try {
      reply = singleVoter ? submitLocally(message) : client.io().send(message);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot replicate metadata records", e);
    }
    if (!reply.isSuccess()) {
      throw new UncheckedIOException(
          new IOException("metadata records not committed", reply.getException()));
    }
    ByteBuffer answer = reply.getMessage().getContent().asReadOnlyByteBuffer();
    Status status = EntryCodec.replyStatus(answer);
    if (status == Status.REJECTED) {
      throw new IllegalStateException(
          "metadata records do not apply: " + EntryCodec.replyMessage(answer));
    }
    if (status == Status.APPLIED) {
      awaitLocalApply(expectedOffset + computed.records().size());
    }
    return status;
  }

  /**
   * A single voter is the leader of its group for good: its entries go straight to its own server,
   * without the gRPC round trip to itself that a client takes (the client exists to find the
   * leader, and with several voters it may be elsewhere).
   */
  private RaftClientReply submitLocally(Message message) throws IOException {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(localClientId)
            .setServerId(server.getId())
            .setGroupId(group.getGroupId())
            .setCallId(localCallIds.incrementAndGet())
            .setMessage(message)
            .setType(RaftClientRequest.writeRequestType())
            .build();
    try {
      return server.submitClientRequestAsync(request).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while replicating metadata records", e);
    } catch (ExecutionException e) {
      throw new IOException("metadata records not committed", e.getCause());
    }
  }

  /** The reply may come from a new leader elsewhere; wait until this node has applied it too. */
  private void awaitLocalApply(long offset) {
    try {
      stateMachine.whenApplied(offset).get(LOCAL_APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataException(ApiError.of(Errors.REQUEST_TIMED_OUT));
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new MetadataException(
          new ApiError(Errors.REQUEST_TIMED_OUT, "metadata not applied locally in time"));
    }
  }

  @Override
  public CompletableFuture<byte[]> call(byte[] request) {
    return singleVoter ? callLocally(request) : call(client, request);
  }

  @Override
  public CompletableFuture<byte[]> callLong(byte[] request) {
    return singleVoter ? callLocally(request) : call(longClient, request);
  }

  /**
   * A single voter's own broker calls its controller directly: a read-only request would reach the
   * same state machine, on this node, after a gRPC round trip to itself. Fails, as a remote call
   * does, until this node is the active controller.
   */
  private CompletableFuture<byte[]> callLocally(byte[] request) {
    if (!isActiveController()) {
      return CompletableFuture.failedFuture(
          new IOException("controller call failed: no active controller yet"));
    }
    return stateMachine
        .query(Message.valueOf(UnsafeByteOperations.unsafeWrap(QueryCodec.call(request))))
        .thenApply(reply -> reply.getContent().toByteArray());
  }

  /**
   * Unordered: Ratis closes a client's ordered (sliding-window) stream for good once one request
   * runs out of retries, so after a partition longer than the request timeout every later call,
   * heartbeats included, would fail with AlreadyClosedException until the node restarts.
   */
  private static CompletableFuture<byte[]> call(RaftClient client, byte[] request) {
    return client
        .async()
        .sendReadOnlyUnordered(
            Message.valueOf(UnsafeByteOperations.unsafeWrap(QueryCodec.call(request))))
        .thenApply(
            reply -> {
              if (!reply.isSuccess()) {
                throw new CompletionException(
                    new IOException("controller call failed", reply.getException()));
              }
              return reply.getMessage().getContent().toByteArray();
            });
  }

  @Override
  public void serve(Function<byte[], CompletableFuture<byte[]>> handler) {
    stateMachine.serve(handler);
  }

  @Override
  public void addListener(Consumer<MetadataImage> listener) {
    stateMachine.addListener(listener);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    controllerThread.shutdownNow();
    handOverLeadership();
    for (RaftClient c : new RaftClient[] {client, longClient}) {
      try {
        c.close();
      } catch (IOException e) {
        log.warn("Error closing a Raft client", e);
      }
    }
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop the Raft server", e);
    }
  }
}
