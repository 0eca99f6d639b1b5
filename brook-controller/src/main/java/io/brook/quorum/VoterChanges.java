package io.brook.quorum;

import io.brook.metadata.controller.ApiError;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-853's voter changes on the Raft leader, as Ratis configuration changes: a voter is a Ratis
 * peer, an observer a Ratis listener. Each change is checked as Kafka's leader checks it, then
 * submitted to the local server as a compare-and-set of the configuration it was checked against
 * (so two changes never interleave), and answered once the new configuration is committed.
 *
 * <p>Kafka's errors: {@code NOT_LEADER_OR_FOLLOWER} off the leader, {@code REQUEST_TIMED_OUT} while
 * another change is uncommitted or when the new voter is not a caught-up observer, {@code
 * DUPLICATE_VOTER} for a node id that already votes, {@code VOTER_NOT_FOUND} for a voter (id and
 * directory id) that is not in the set, or the last one.
 */
final class VoterChanges {
  private static final Logger log = LoggerFactory.getLogger(VoterChanges.class);

  private final RaftServer server;
  private final Duration requestTimeout;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  /** Runs a change's second step. */
  private final java.util.concurrent.ExecutorService steps =
      java.util.concurrent.Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "brook-voter-changes");
            thread.setDaemon(true);
            return thread;
          });

  /** The observer being made a voter, if any: it must not join as an observer meanwhile. */
  private volatile RaftPeerId promoting;

  VoterChanges(RaftServer server, Duration requestTimeout) {
    this.server = server;
    this.requestTimeout = requestTimeout;
  }

  /** Makes the observer {@code (id, directoryId)} a voter reached at {@code endpoint}. */
  CompletableFuture<ApiError> add(
      int id, Uuid directoryId, InetSocketAddress endpoint, Duration timeout) {
    Start start = start();
    if (start.refused() != null) {
      return CompletableFuture.completedFuture(start.refused());
    }
    Collection<RaftPeer> voters = start.voters();
    Collection<RaftPeer> observers = start.observers();
    if (voters.stream().anyMatch(p -> RatisConfig.nodeId(p.getId()) == id)) {
      return done(
          Errors.DUPLICATE_VOTER,
          "the voter id " + id + " is already part of the set of voters " + keys(voters));
    }
    RaftPeerId peerId = RatisConfig.peerId(id, directoryId);
    Optional<RaftPeer> observer =
        observers.stream().filter(p -> p.getId().equals(peerId)).findFirst();
    if (observer.isEmpty()) {
      // Kafka's leader answers so when the new voter is not a caught-up observer.
      return done(
          Errors.REQUEST_TIMED_OUT,
          "node "
              + id
              + " with directory id "
              + directoryId
              + " is not an observer of the quorum (observers: "
              + keys(observers)
              + "); start it with controller.quorum.bootstrap.servers first");
    }
    // Two steps. Ratis (3.3) never counts a listener as caught up, so a listener promoted in place
    // keeps receiving "initializing" appends and never arms its election timer: it would count in
    // the majority without ever standing for election. Taken out of the listeners first, it is
    // added back as a new peer, which the leader bootstraps (at once: it holds the log) and then
    // treats as a full follower. Meanwhile its own requests to join as an observer are refused.
    promoting = peerId;
    List<RaftPeer> newObservers = new ArrayList<>(observers);
    newObservers.remove(observer.get());
    return submit(
            voters, observers, List.copyOf(voters), newObservers, timeout, "promote " + peerId)
        // Not on the Ratis thread that completes the first step: the second waits on that server.
        .thenComposeAsync(
            removed -> {
              if (removed.error() != Errors.NONE) {
                return CompletableFuture.completedFuture(removed);
              }
              RaftConfiguration now = start.leader().getRaftConf();
              Collection<RaftPeer> currentVoters = now.getCurrentPeers(RaftPeerRole.FOLLOWER);
              Collection<RaftPeer> currentObservers = now.getCurrentPeers(RaftPeerRole.LISTENER);
              List<RaftPeer> newVoters = new ArrayList<>(currentVoters);
              newVoters.add(RatisConfig.peer(peerId, endpoint));
              return submit(
                  currentVoters,
                  currentObservers,
                  newVoters,
                  List.copyOf(currentObservers),
                  timeout,
                  "add voter " + peerId);
            },
            steps)
        .whenComplete((result, failure) -> promoting = null);
  }

  /**
   * Adds {@code peer}, a controller outside the group, as an observer (a Ratis listener): it then
   * receives the log. Nothing changes for a peer already in the group.
   */
  CompletableFuture<ApiError> addObserver(RaftPeer peer) {
    if (peer.getId().equals(promoting)) {
      return done(Errors.REQUEST_TIMED_OUT, peer.getId() + " is being made a voter");
    }
    Start start = start();
    if (start.refused() != null) {
      return CompletableFuture.completedFuture(start.refused());
    }
    Collection<RaftPeer> voters = start.voters();
    Collection<RaftPeer> observers = start.observers();
    if (voters.contains(peer) || observers.contains(peer)) {
      return CompletableFuture.completedFuture(ApiError.NONE);
    }
    List<RaftPeer> newObservers = new ArrayList<>(observers);
    // A node restarted with a new directory is another observer; its old self is dropped.
    newObservers.removeIf(p -> RatisConfig.nodeId(p.getId()) == RatisConfig.nodeId(peer.getId()));
    newObservers.add(peer);
    return submit(
        voters,
        observers,
        List.copyOf(voters),
        newObservers,
        requestTimeout,
        "add observer " + peer.getId());
  }

  /** Removes the voter {@code (id, directoryId)}. */
  CompletableFuture<ApiError> remove(int id, Uuid directoryId) {
    Start start = start();
    if (start.refused() != null) {
      return CompletableFuture.completedFuture(start.refused());
    }
    Collection<RaftPeer> voters = start.voters();
    Collection<RaftPeer> observers = start.observers();
    Optional<RaftPeer> voter = find(voters, id, directoryId);
    if (voter.isEmpty() || voters.size() == 1) {
      return done(
          Errors.VOTER_NOT_FOUND,
          "cannot remove voter "
              + id
              + " with directory id "
              + directoryId
              + " from the set of voters "
              + keys(voters));
    }
    List<RaftPeer> newVoters = new ArrayList<>(voters);
    newVoters.remove(voter.get());
    return submit(
        voters,
        observers,
        newVoters,
        List.copyOf(observers),
        requestTimeout,
        "remove voter " + voter.get().getId());
  }

  /** Records a new endpoint for the voter {@code (id, directoryId)}. */
  CompletableFuture<ApiError> update(int id, Uuid directoryId, InetSocketAddress endpoint) {
    Start start = start();
    if (start.refused() != null) {
      return CompletableFuture.completedFuture(start.refused());
    }
    Collection<RaftPeer> voters = start.voters();
    Collection<RaftPeer> observers = start.observers();
    Optional<RaftPeer> voter = find(voters, id, directoryId);
    if (voter.isEmpty()) {
      return done(
          Errors.VOTER_NOT_FOUND,
          "voter " + id + " with directory id " + directoryId + " is not in " + keys(voters));
    }
    RaftPeer updated = RatisConfig.peer(voter.get().getId(), endpoint);
    if (updated.getAddress().equals(voter.get().getAddress())) {
      return CompletableFuture.completedFuture(ApiError.NONE);
    }
    List<RaftPeer> newVoters = new ArrayList<>(voters);
    newVoters.set(newVoters.indexOf(voter.get()), updated);
    return submit(
        voters,
        observers,
        newVoters,
        List.copyOf(observers),
        requestTimeout,
        "update voter " + updated.getId() + " to " + updated.getAddress());
  }

  void close() {
    steps.shutdownNow();
  }

  /**
   * Where a change starts: the leader and its current voters and observers, or why no change can
   * start now ({@code refused}).
   */
  private record Start(
      RaftServer.Division leader,
      Collection<RaftPeer> voters,
      Collection<RaftPeer> observers,
      ApiError refused) {}

  private Start start() {
    RaftServer.Division leader;
    try {
      leader = server.getDivision(RatisConfig.GROUP_ID);
    } catch (IOException e) {
      leader = null;
    }
    if (leader == null || !leader.getInfo().isLeader() || !leader.getInfo().isLeaderReady()) {
      return new Start(
          null,
          List.of(),
          List.of(),
          new ApiError(
              Errors.NOT_LEADER_OR_FOLLOWER, "this controller is not the quorum's leader"));
    }
    RaftConfiguration conf = leader.getRaftConf();
    return new Start(
        leader,
        conf.getCurrentPeers(RaftPeerRole.FOLLOWER),
        conf.getCurrentPeers(RaftPeerRole.LISTENER),
        pendingChange(leader, conf).orElse(null));
  }

  /** A change not yet committed: Kafka's leader refuses another one until it is. */
  private static Optional<ApiError> pendingChange(
      RaftServer.Division leader, RaftConfiguration conf) {
    boolean transitional = !conf.getPreviousPeers().isEmpty();
    boolean uncommitted = conf.getLogEntryIndex() > leader.getRaftLog().getLastCommittedIndex();
    if (transitional || uncommitted) {
      return Optional.of(
          new ApiError(
              Errors.REQUEST_TIMED_OUT,
              "waiting for the voters to commit the latest voter change at "
                  + conf.getLogEntryIndex()));
    }
    return Optional.empty();
  }

  private static Optional<RaftPeer> find(Collection<RaftPeer> peers, int id, Uuid directoryId) {
    RaftPeerId peerId = RatisConfig.peerId(id, directoryId);
    return peers.stream().filter(p -> p.getId().equals(peerId)).findFirst();
  }

  private CompletableFuture<ApiError> submit(
      Collection<RaftPeer> voters,
      Collection<RaftPeer> observers,
      List<RaftPeer> newVoters,
      List<RaftPeer> newObservers,
      Duration timeout,
      String what) {
    SetConfigurationRequest.Arguments arguments =
        SetConfigurationRequest.Arguments.newBuilder()
            .setServersInCurrentConf(List.copyOf(voters))
            .setListenersInCurrentConf(List.copyOf(observers))
            .setServersInNewConf(newVoters)
            .setListenersInNewConf(newObservers)
            .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
            .build();
    SetConfigurationRequest request =
        new SetConfigurationRequest(
            clientId, server.getId(), RatisConfig.GROUP_ID, callIds.incrementAndGet(), arguments);
    log.info("Changing the quorum's voters: {} voters={}", what, keys(newVoters));
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = server.setConfigurationAsync(request);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.completedFuture(error(e));
    }
    return reply
        .orTimeout(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)
        .handle(
            (answer, failure) -> {
              if (failure != null) {
                return error(failure);
              }
              if (!answer.isSuccess()) {
                return error(answer.getException());
              }
              log.info("The quorum's voters changed: {} voters={}", what, keys(newVoters));
              return ApiError.NONE;
            });
  }

  private static ApiError error(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof NotLeaderException) {
      return new ApiError(Errors.NOT_LEADER_OR_FOLLOWER, cause.getMessage());
    }
    if (cause instanceof ReconfigurationInProgressException
        || cause instanceof SetConfigurationException
        || cause instanceof TimeoutException) {
      return new ApiError(
          Errors.REQUEST_TIMED_OUT,
          "the voter change did not commit: " + String.valueOf(cause.getMessage()));
    }
    return new ApiError(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
  }

  private static CompletableFuture<ApiError> done(Errors error, String message) {
    return CompletableFuture.completedFuture(new ApiError(error, message));
  }

  /** Voters and observers as Kafka prints replica keys: node id and directory id. */
  static List<String> keys(Collection<RaftPeer> peers) {
    return peers.stream()
        .map(
            p ->
                "(id="
                    + RatisConfig.nodeId(p.getId())
                    + ", directoryId="
                    + RatisConfig.directoryId(p.getId())
                    + ")")
        .sorted()
        .toList();
  }
}
