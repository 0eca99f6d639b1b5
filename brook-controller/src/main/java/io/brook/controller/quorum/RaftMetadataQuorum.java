package io.brook.controller.quorum;

import io.brook.controller.quorum.EntryCodec.Status;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.ControllerChannel;
import io.brook.metadata.quorum.QuorumState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata quorum on Apache Ratis, on a node with the controller role: a voter of the group, or
 * an observer (a Ratis listener) until it is added as one; the Ratis leader is the active
 * controller. The group id is fixed and the membership is in the log (KIP-853): {@code
 * controller.quorum.voters} is only the group a node with an empty log starts with.
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

  /**
   * How long the leader waits for its entry to commit: milliseconds when a majority of voters
   * answers; a leader that has lost it steps down within an election timeout, which fails the entry
   * sooner.
   */
  private static final long COMMIT_TIMEOUT_SECONDS = 10;

  /** Attempts of one operation whose entry lost a race with a failover (CONFLICT). */
  private static final int MAX_ATTEMPTS = 5;

  /** How long a stopping leader waits in all for a voter to take over its leadership. */
  private static final long HAND_OVER_TIMEOUT_MS = 2_000;

  /** Channels to silent peers being closed at once, at most (see {@link #reopener}). */
  private static final int MAX_REOPENS_UNDER_WAY = 8;

  /** How often a node outside the group asks to be added as an observer. */
  private static final long JOIN_INTERVAL_MS = 1_000;

  private final QuorumSettings settings;
  private final RaftPeerId self;
  private final InetSocketAddress endpoint;
  private final RaftServer server;
  private final MetadataStateMachine stateMachine;
  private final VoterChanges voterChanges;
  private final ThreadPoolExecutor controllerThread;
  private final ScheduledExecutorService joiner;

  /** Runs {@link #reopenSilentLinks}: apart from the joiner, whose calls may block. */
  private final ScheduledExecutorService linkWatch;

  private final PeerLinkWatchdog linkWatchdog;

  /**
   * Reopens run here, not on {@link #linkWatch}: Ratis swaps in a new channel at once but then
   * closes the old one gracefully, waiting out its stalled calls for seconds, on the calling
   * thread. At most {@link #MAX_REOPENS_UNDER_WAY} at a time; a reopen beyond them is skipped (a
   * look an election timeout later asks again).
   */
  private final ThreadPoolExecutor reopener;

  /** Clients of the voters as the configuration last named them; rebuilt when it changes. */
  private volatile Clients clients;

  /** Clients replaced by newer ones, closed with the quorum: calls may still be in flight. */
  private final List<Clients> retiredClients = new ArrayList<>();

  private final ClientId localClientId = ClientId.randomId();
  private final AtomicLong localCallIds = new AtomicLong();
  private volatile boolean closed;

  /** Set once the clients are closed (after the hand-over of a stopping leader). */
  private boolean clientsClosed;

  /**
   * Set once the Raft server stopped, before the clients when its disk failed ({@link
   * #stopServerAfterDiskFailure}): the configuration can no longer be read, so the clients and the
   * sole voter answer stay as they were when it stopped.
   */
  private volatile boolean serverStopped;

  private volatile boolean soleVoterWhenStopped;

  /** Failed attempts to join in a row (on the join thread only). */
  private int joinFailures;

  /** A pair of clients (short and long calls) of one peer list. */
  private record Clients(List<RaftPeer> peers, RaftClient normal, RaftClient longCalls) {
    void close() {
      for (RaftClient c : new RaftClient[] {normal, longCalls}) {
        try {
          c.close();
        } catch (IOException e) {
          log.warn("Error closing a Raft client", e);
        }
      }
    }
  }

  private RaftMetadataQuorum(
      QuorumSettings settings,
      RaftPeerId self,
      InetSocketAddress endpoint,
      RaftServer server,
      MetadataStateMachine stateMachine) {
    this.settings = settings;
    this.self = self;
    this.endpoint = endpoint;
    this.server = server;
    this.stateMachine = stateMachine;
    this.voterChanges = new VoterChanges(server, settings.requestTimeout());
    this.controllerThread =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED_OPERATIONS),
            daemonThreads("brook-controller"));
    this.joiner = Executors.newSingleThreadScheduledExecutor(daemonThreads("brook-quorum-join"));
    this.linkWatch =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("brook-quorum-links"));
    this.reopener =
        new ThreadPoolExecutor(
            0,
            MAX_REOPENS_UNDER_WAY,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            daemonThreads("brook-quorum-reopen"));
    long electionMs = Math.max(2, settings.electionTimeout().toMillis());
    this.linkWatchdog = new PeerLinkWatchdog(electionMs / 2, electionMs);
  }

  /**
   * Starts this node's Raft server (binding its controller endpoint) and clients of the group.
   * Returns at once: the group elects a leader once a majority of voters runs. A node that is in no
   * configuration yet (started with {@code controller.quorum.bootstrap.servers}, or removed) asks
   * the leader, every second until it is, to be added as an observer (a Ratis listener): it then
   * receives and applies the log without voting, until AddRaftVoter makes it a voter.
   */
  public static RaftMetadataQuorum start(QuorumSettings settings) throws IOException {
    if (!settings.voters().isEmpty() && !settings.voters().containsKey(settings.nodeId())) {
      throw new IllegalArgumentException(
          "node " + settings.nodeId() + " is not a voter of " + settings.voters());
    }
    if (settings.voters().isEmpty() && settings.bootstrapServers().isEmpty()) {
      throw new IllegalArgumentException("neither initial voters nor bootstrap servers given");
    }
    if (settings.controllerEndpoint() == null) {
      throw new IllegalArgumentException("a controller needs its controller endpoint");
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
    RaftPeerId self = RatisStorage.prepare(settings);
    RaftProperties props = RatisConfig.properties(settings);
    MetadataStateMachine stateMachine = new MetadataStateMachine();
    RaftServer server =
        RaftServer.newBuilder()
            .setServerId(self)
            .setGroup(initialGroup(settings, self))
            .setProperties(props)
            .setParameters(RatisConfig.parameters(settings))
            .setStateMachine(stateMachine)
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
    server.start();
    InetSocketAddress endpoint = boundEndpoint(settings, server);
    RaftMetadataQuorum quorum =
        new RaftMetadataQuorum(settings, self, endpoint, server, stateMachine);
    log.info(
        "Raft quorum started nodeId={} peerId={} voters={} storage={}",
        settings.nodeId(),
        self,
        VoterChanges.keys(quorum.configuration().getCurrentPeers(RaftPeerRole.FOLLOWER)),
        settings.storageDir());
    stateMachine.serveJoins(
        join ->
            quorum
                .voterChanges
                .addObserver(
                    RatisConfig.peer(
                        RaftPeerId.valueOf(join.peerId()), RatisConfig.address(join.address())))
                .thenApply(
                    error ->
                        ByteBuffer.allocate(Short.BYTES).putShort(error.error().code()).array()));
    quorum.joiner.scheduleWithFixedDelay(
        quorum::joinIfOutside, 0, JOIN_INTERVAL_MS, TimeUnit.MILLISECONDS);
    long linkCheckMs = Math.max(10, settings.electionTimeout().toMillis() / 4);
    quorum.linkWatch.scheduleWithFixedDelay(
        quorum::reopenSilentLinks, linkCheckMs, linkCheckMs, TimeUnit.MILLISECONDS);
    return quorum;
  }

  /**
   * The group a node with an empty log starts with: the initial voters (this node by its own peer
   * id, the others by node id), or none when it finds the quorum through bootstrap servers. With a
   * log, Ratis takes the membership from the log instead.
   */
  private static RaftGroup initialGroup(QuorumSettings settings, RaftPeerId self) {
    List<RaftPeer> peers = new ArrayList<>();
    for (Map.Entry<Integer, InetSocketAddress> voter : settings.voters().entrySet()) {
      RaftPeerId id =
          voter.getKey() == settings.nodeId() ? self : RatisConfig.peerId(voter.getKey());
      peers.add(RatisConfig.peer(id, voter.getValue()));
    }
    return RaftGroup.valueOf(RatisConfig.GROUP_ID, peers);
  }

  /**
   * This node's endpoint as bound: a single voter may name port 0 (an {@code EmbeddedBrook}), and
   * its own clients must reach the port the kernel chose.
   */
  private static InetSocketAddress boundEndpoint(QuorumSettings settings, RaftServer server) {
    InetSocketAddress configured = settings.controllerEndpoint();
    if (configured.getPort() != 0) {
      return configured;
    }
    int port = server.getServerRpc().getInetSocketAddress().getPort();
    return InetSocketAddress.createUnresolved(configured.getHostString(), port);
  }

  private RaftServer.Division division() throws IOException {
    return server.getDivision(RatisConfig.GROUP_ID);
  }

  /** The Raft configuration as this node knows it (committed or not). */
  private RaftConfiguration configuration() {
    try {
      return division().getRaftConf();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether this node is the only voter: then it needs no network to reach the leader. */
  private boolean soleVoter() {
    if (serverStopped) {
      return soleVoterWhenStopped;
    }
    Collection<RaftPeer> voters = configuration().getCurrentPeers(RaftPeerRole.FOLLOWER);
    return voters.size() == 1
        && voters.iterator().next().getId().equals(self)
        && configuration().getPreviousPeers().isEmpty();
  }

  /**
   * Clients of the current voters (this node at its bound port), or of the bootstrap servers while
   * this node knows no voter. Rebuilt when the voters change, so calls follow the membership: a
   * Ratis client only learns peers from a follower's redirect, and would otherwise keep trying a
   * removed or dead peer it started with.
   */
  private Clients clients() {
    if (serverStopped) {
      Clients kept = clients;
      if (kept == null) {
        throw new IllegalStateException("the Raft server stopped");
      }
      return kept;
    }
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeer voter : configuration().getCurrentPeers(RaftPeerRole.FOLLOWER)) {
      peers.add(voter.getId().equals(self) ? RatisConfig.peer(self, endpoint) : voter);
    }
    if (peers.isEmpty()) {
      peers.addAll(RatisConfig.bootstrapPeers(settings.bootstrapServers()));
    }
    Clients current = clients;
    if (current != null && current.peers().equals(peers)) {
      return current;
    }
    synchronized (retiredClients) {
      current = clients;
      if (current != null && current.peers().equals(peers)) {
        return current;
      }
      if (clientsClosed) {
        throw new IllegalStateException("the quorum is closed");
      }
      RaftGroup group = RaftGroup.valueOf(RatisConfig.GROUP_ID, peers);
      Clients fresh =
          new Clients(
              List.copyOf(peers),
              RatisConfig.client(settings, group, settings.requestTimeout(), true),
              RatisConfig.client(
                  settings,
                  group,
                  Duration.ofMillis(ControllerChannel.LONG_CALL_TIMEOUT_MS),
                  false));
      if (current != null) {
        retiredClients.add(current);
      }
      clients = fresh;
      return fresh;
    }
  }

  /**
   * Asks the leader to add this node as an observer (a Ratis listener) when it is in no
   * configuration: first start with bootstrap servers, or after its removal as a voter.
   */
  private void joinIfOutside() {
    if (closed) {
      return;
    }
    try {
      if (configuration().getPeer(self, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) != null) {
        return;
      }
      RaftPeer peer = RatisConfig.peer(self, endpoint);
      byte[] answer =
          query(clients().normal(), QueryCodec.join(self.toString(), peer.getAddress()))
              .get(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
      Errors error = Errors.forCode(ByteBuffer.wrap(answer).getShort());
      if (error == Errors.NONE) {
        joinFailures = 0;
        log.info("Joined the quorum as an observer peerId={} endpoint={}", self, endpoint);
      } else {
        throw new IOException("the leader answered " + error);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException
        | java.util.concurrent.TimeoutException
        | IOException
        | RuntimeException e) {
      // Once at info (say, the bootstrap servers are not up yet), then quietly until it works.
      if (joinFailures++ == 0) {
        log.info(
            "Cannot join the quorum as an observer yet, retrying peerId={} error={}",
            self,
            e.toString());
      } else {
        log.debug("Cannot join the quorum as an observer yet peerId={}", self, e);
      }
    }
  }

  @Override
  public MetadataImage image() {
    return stateMachine.image();
  }

  @Override
  public int queuedOperations() {
    return controllerThread.getQueue().size();
  }

  @Override
  public boolean isActiveController() {
    DivisionInfo info = info();
    return info != null && info.isLeader() && info.isLeaderReady();
  }

  @Override
  public void stepDown() {
    if (closed) {
      return;
    }
    // Elections first, the hand-over second: the leader turns follower as soon as the voter it
    // hands over to stands, and if that voter's election drags on past this node's own election
    // timeout, this node would stand too and could win, taking back the role it is giving up (one
    // more election, then a second hand-over). A paused node still votes, so the others elect
    // among themselves.
    pauseElections();
    handOverLeadership();
  }

  private void pauseElections() {
    int nodeId = RatisConfig.nodeId(self);
    try {
      if (configuration().getPeer(self, RaftPeerRole.FOLLOWER) == null) {
        return; // a listener: it never stands for election
      }
      RaftClientReply reply = clients().normal().getLeaderElectionManagementApi(self).pause();
      if (reply.isSuccess()) {
        log.info("Stopped standing for Raft elections before stopping nodeId={}", nodeId);
      } else {
        log.info("Pausing leader elections failed nodeId={}", nodeId);
      }
    } catch (IOException | RuntimeException e) {
      log.info("Pausing leader elections failed nodeId={} error={}", nodeId, e.toString());
    }
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
    int nodeId = RatisConfig.nodeId(self);
    // One budget for all candidates, not one per candidate: a hand-over that failed within it
    // gains nothing over the election the other voters hold anyway.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HAND_OVER_TIMEOUT_MS);
    for (RaftPeerId candidate : handOverCandidates()) {
      long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (remainingMs <= 0 || !isActiveController()) {
        return;
      }
      int voter = RatisConfig.nodeId(candidate);
      try {
        RaftClientReply reply =
            clients().normal().admin().transferLeadership(candidate, remainingMs);
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

  /**
   * The voters a stopping leader may hand its leadership to: those that answered it within an
   * election timeout (a live follower answers every heartbeat, sent every quarter of one, so only a
   * stall of several heartbeats on a loaded machine leaves a live one out), those with the most of
   * the log first, then the most recent answer first. A stopped voter is left out: a transfer to it
   * only fails after its timeout, and the last voter of a quorum stopping one node after another (a
   * cluster shut down, the end of a test) would wait that long for every voter stopped before it. A
   * voter still catching up (restarted moments ago) comes after those that are not: Ratis lets the
   * transfer wait for it to catch up, and a leader that transfers its leadership takes no new
   * entries meanwhile.
   */
  List<RaftPeerId> handOverCandidates() {
    DivisionInfo info = info();
    if (info == null || !info.isLeader() || !info.getRoleInfoProto().hasLeaderInfo()) {
      return List.of();
    }
    long liveWithinMs = Math.max(1, settings.electionTimeout().toMillis());
    List<ServerRpcProto> followers = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
    // Ratis lists both in the order of its log appenders; a configuration change in between
    // makes them differ in length, and then only the answers count.
    long[] matchIndices = info.getFollowerMatchIndices();
    boolean aligned = matchIndices != null && matchIndices.length == followers.size();
    Map<RaftPeerId, Long> elapsedMs = new HashMap<>();
    Map<RaftPeerId, Long> matchIndex = new HashMap<>();
    for (int i = 0; i < followers.size(); i++) {
      RaftPeerId id = RaftPeerId.valueOf(followers.get(i).getId().getId());
      elapsedMs.put(id, followers.get(i).getLastRpcElapsedTimeMs());
      matchIndex.put(id, aligned ? matchIndices[i] : 0L);
    }
    List<RaftPeerId> candidates = new ArrayList<>();
    for (RaftPeer peer : configuration().getCurrentPeers(RaftPeerRole.FOLLOWER)) {
      Long elapsed = elapsedMs.get(peer.getId());
      if (!peer.getId().equals(self) && elapsed != null && elapsed < liveWithinMs) {
        candidates.add(peer.getId());
      }
    }
    return mostLogThenLatestAnswer(candidates, matchIndex, elapsedMs);
  }

  /** {@code candidates}, the highest match index first, then the shortest time since an answer. */
  static List<RaftPeerId> mostLogThenLatestAnswer(
      List<RaftPeerId> candidates,
      Map<RaftPeerId, Long> matchIndex,
      Map<RaftPeerId, Long> elapsedMs) {
    List<RaftPeerId> sorted = new ArrayList<>(candidates);
    sorted.sort(
        Comparator.comparing((RaftPeerId id) -> matchIndex.get(id))
            .reversed()
            .thenComparing(elapsedMs::get));
    return sorted;
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
      return QuorumStateReader.read(division(), endpoint, System.currentTimeMillis());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Reopens this node's connections to the Raft peers it has heard nothing from for too long (see
   * {@link PeerLinkWatchdog}). Ratis closes the old channel and opens a new one on the next call.
   */
  private void reopenSilentLinks() {
    if (closed || serverStopped) {
      return;
    }
    try {
      DivisionInfo info = info();
      if (info == null || !info.isAlive()) {
        return;
      }
      List<RaftPeerId> voters = new ArrayList<>();
      for (RaftPeer voter : configuration().getCurrentPeers(RaftPeerRole.FOLLOWER)) {
        voters.add(voter.getId());
      }
      PeerLinkWatchdog.Verdict verdict =
          linkWatchdog.look(info.getRoleInfoProto(), voters, self, System.nanoTime() / 1_000_000);
      for (PeerLinkWatchdog.Recovered peer : verdict.recovered()) {
        log.info(
            "Raft peer answers again nodeId={} peer={} reopenedConnections={}",
            RatisConfig.nodeId(self),
            peer.peer(),
            peer.reopens());
      }
      for (PeerLinkWatchdog.Silent peer : verdict.reopen()) {
        // Once per silence at INFO: a peer that is down is reopened every period until it is back.
        if (peer.reopens() == 1) {
          log.info(
              "Reopening the connections to a silent Raft peer nodeId={} peer={} silentMs={}",
              RatisConfig.nodeId(self),
              peer.peer(),
              peer.silentMs());
        } else {
          log.debug(
              "Reopening the connections to a silent Raft peer nodeId={} peer={} silentMs={}"
                  + " reopens={}",
              RatisConfig.nodeId(self),
              peer.peer(),
              peer.silentMs(),
              peer.reopens());
        }
        reopen(peer);
      }
    } catch (RuntimeException e) {
      log.warn("Checking the Raft peers' connections failed", e);
    }
  }

  private static ThreadFactory daemonThreads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Has Ratis drop its channel to {@code peer}; the next call opens a new one. */
  private void reopen(PeerLinkWatchdog.Silent peer) {
    try {
      reopener.execute(
          () ->
              server
                  .getServerRpc()
                  .handleException(
                      peer.peer(),
                      new IOException("nothing heard for " + peer.silentMs() + " ms"),
                      true));
    } catch (RejectedExecutionException e) {
      // As many reopens under way as allowed, or closing: the next look asks again.
    }
  }

  private DivisionInfo info() {
    try {
      return division().getInfo();
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
      reply = submitLocally(message);
    } catch (IOException e) {
      if (e instanceof AlreadyClosedException || e.getCause() instanceof AlreadyClosedException) {
        throw new MetadataException(ApiError.of(Errors.NOT_CONTROLLER));
      }
      throw new UncheckedIOException("cannot replicate metadata records", e);
    }
    if (reply.getNotLeaderException() != null
        || reply.getLeaderNotReadyException() != null
        || reply.getLeaderSteppingDownException() != null
        || reply.getAlreadyClosedException() != null) {
      // This node is no longer the leader, is handing its leadership over (Ratis then takes no
      // new entries) or is stopping: the caller asks the controller again, as Kafka's brokers do
      // on NOT_CONTROLLER. An entry that was appended may still commit under the new leader, and
      // an operation that then runs again conflicts with it instead of applying twice.
      throw new MetadataException(ApiError.of(Errors.NOT_CONTROLLER));
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
   * Operations run on the active controller only, that is on the Raft leader, so their entries go
   * straight to this node's own server. A client would take a gRPC round trip to itself; worse,
   * after a failover its first attempts go to the old leader, and on this thread it then waits for
   * that leader's channel to shut down (gRPC allows it up to 3 s) while every controller operation
   * queues behind. A leader that can commit nothing does not hold an operation longer than {@link
   * #COMMIT_TIMEOUT_SECONDS}.
   */
  private RaftClientReply submitLocally(Message message) throws IOException {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(localClientId)
            .setServerId(server.getId())
            .setGroupId(RatisConfig.GROUP_ID)
            .setCallId(localCallIds.incrementAndGet())
            .setMessage(message)
            .setType(RaftClientRequest.writeRequestType())
            .build();
    try {
      return server.submitClientRequestAsync(request).get(COMMIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new MetadataException(
          new ApiError(Errors.REQUEST_TIMED_OUT, "metadata records not committed in time"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while replicating metadata records", e);
    } catch (ExecutionException e) {
      throw new IOException("metadata records not committed", e.getCause());
    }
  }

  /**
   * Until this node's image holds the entry: the leader answers once its state machine applied it,
   * so at once as a rule.
   */
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
    return soleVoter() ? callLocally(request) : call(clients().normal(), request);
  }

  @Override
  public CompletableFuture<byte[]> callLong(byte[] request) {
    return soleVoter() ? callLocally(request) : call(clients().longCalls(), request);
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
    return query(client, QueryCodec.call(request));
  }

  /** A read-only request to the leader's state machine ({@link QueryCodec}). */
  private static CompletableFuture<byte[]> query(RaftClient client, byte[] query) {
    return client
        .async()
        .sendReadOnlyUnordered(Message.valueOf(UnsafeByteOperations.unsafeWrap(query)))
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
  public CompletableFuture<ApiError> addVoter(
      int id, Uuid directoryId, InetSocketAddress endpoint, Duration timeout) {
    return voterChanges.add(id, directoryId, endpoint, timeout);
  }

  @Override
  public CompletableFuture<ApiError> removeVoter(int id, Uuid directoryId) {
    return voterChanges.remove(id, directoryId);
  }

  @Override
  public CompletableFuture<ApiError> updateVoter(
      int id, Uuid directoryId, InetSocketAddress endpoint) {
    return voterChanges.update(id, directoryId, endpoint);
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
  public void onJournalFailure(Consumer<Throwable> listener) {
    stateMachine.onJournalFailure(listener);
  }

  @Override
  public void stopServerAfterDiskFailure() {
    if (closed) {
      return;
    }
    try {
      soleVoterWhenStopped = soleVoter();
      clients(); // built now if not yet: the configuration cannot be read once the server stopped
    } catch (RuntimeException e) {
      log.warn("No Raft clients for the calls of a stopping node error={}", e.toString());
    }
    stateMachine.refuseSnapshots();
    stopOperations();
    stopServer();
  }

  @Override
  public void close() {
    if (!closed) {
      stopOperations();
      handOverLeadership();
    }
    synchronized (retiredClients) {
      if (clients != null) {
        retiredClients.add(clients);
      }
      retiredClients.forEach(Clients::close);
      retiredClients.clear();
      clientsClosed = true;
    }
    stopServer();
  }

  /** Refuses operations from now on; the server goes on replicating until {@link #stopServer}. */
  private void stopOperations() {
    closed = true;
    controllerThread.shutdownNow();
    joiner.shutdownNow();
    linkWatch.shutdownNow();
    reopener.shutdownNow();
    voterChanges.close();
  }

  private void stopServer() {
    if (serverStopped) {
      return;
    }
    serverStopped = true;
    long started = System.nanoTime();
    try (LogWorkerWakeup wakeup = LogWorkerWakeup.start(server)) {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop the Raft server", e);
    }
    log.info(
        "Raft server stopped nodeId={} durationMs={}",
        RatisConfig.nodeId(self),
        (System.nanoTime() - started) / 1_000_000);
  }
}
