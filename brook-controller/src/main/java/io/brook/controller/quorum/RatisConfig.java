package io.brook.controller.quorum;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.ExceptionDependentRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Brook's settings translated into Ratis's group and properties. */
final class RatisConfig {
  /** How long a single voter waits before it elects itself (and twice that at most). */
  static final long SINGLE_VOTER_FIRST_ELECTION_MS = 5;

  private RatisConfig() {}

  /**
   * The metadata quorum's Raft group id. Fixed, not derived from the voters: the membership changes
   * (KIP-853) and every node, a new one included, must name the same group.
   */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(
          UUID.nameUUIDFromBytes("brook-metadata".getBytes(StandardCharsets.UTF_8)));

  /** The id an earlier Brook derived from the voter ids; its storage is migrated at start. */
  static RaftGroupId legacyGroupId(Collection<Integer> voterIds) {
    StringBuilder ids = new StringBuilder("brook-metadata");
    voterIds.stream().sorted().forEach(id -> ids.append(',').append(id));
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(ids.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /** The group of a static voter set: one peer per voter, named by node id alone. */
  static RaftGroup group(Map<Integer, InetSocketAddress> voters) {
    List<RaftPeer> peers = new ArrayList<>();
    for (Map.Entry<Integer, InetSocketAddress> voter : voters.entrySet()) {
      peers.add(peer(peerId(voter.getKey()), voter.getValue()));
    }
    return RaftGroup.valueOf(GROUP_ID, peers);
  }

  static RaftPeer peer(RaftPeerId id, InetSocketAddress address) {
    return RaftPeer.newBuilder()
        .setId(id)
        .setAddress(address.getHostString() + ":" + address.getPort())
        .build();
  }

  /** A Ratis peer address, {@code host:port}, as {@link #peer} writes it. */
  static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not host:port: " + hostPort);
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return InetSocketAddress.createUnresolved(
        host, Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /**
   * Peers a client starts from when all it knows are {@code controller.quorum.bootstrap.servers}:
   * their ids are placeholders (a Ratis server checks the group of a request, not the peer id it
   * was sent to), and the first answer from a follower names the leader and the real peers.
   */
  static List<RaftPeer> bootstrapPeers(List<InetSocketAddress> servers) {
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      peers.add(peer(RaftPeerId.valueOf("bootstrap-" + i), servers.get(i)));
    }
    return peers;
  }

  /**
   * The peer id of a voter known by node id alone (a static voter, or data of an earlier Brook).
   */
  static RaftPeerId peerId(int nodeId) {
    return RaftPeerId.valueOf(PEER_PREFIX + nodeId);
  }

  /**
   * The peer id of a node with a known directory id: Kafka names a voter by both (a node whose
   * metadata directory was replaced is another voter), and a Ratis peer has no other field to carry
   * it.
   */
  static RaftPeerId peerId(int nodeId, Uuid directoryId) {
    return Uuid.ZERO_UUID.equals(directoryId)
        ? peerId(nodeId)
        : RaftPeerId.valueOf(PEER_PREFIX + nodeId + DIRECTORY_SEPARATOR + directoryId);
  }

  private static final String PEER_PREFIX = "node-";
  private static final char DIRECTORY_SEPARATOR = '@';

  /** The node id of a peer named by {@link #peerId}, or -1. */
  static int nodeId(RaftPeerId peerId) {
    String name = peerId == null ? "" : peerId.toString();
    if (!name.startsWith(PEER_PREFIX)) {
      return -1;
    }
    int end = name.indexOf(DIRECTORY_SEPARATOR);
    try {
      return Integer.parseInt(name.substring(PEER_PREFIX.length(), end < 0 ? name.length() : end));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The directory id of a peer named by {@link #peerId}, or {@link Uuid#ZERO_UUID}. */
  static Uuid directoryId(RaftPeerId peerId) {
    String name = peerId == null ? "" : peerId.toString();
    int at = name.indexOf(DIRECTORY_SEPARATOR);
    if (!name.startsWith(PEER_PREFIX) || at < 0) {
      return Uuid.ZERO_UUID;
    }
    try {
      return Uuid.fromString(name.substring(at + 1));
    } catch (IllegalArgumentException e) {
      return Uuid.ZERO_UUID;
    }
  }

  /**
   * The pause before a quorum client tries the next voter while no leader answers. While a leader
   * is elected the client goes round the voters (the dead one refuses at once, the others answer
   * "not leader" until they know the new one), so each pause adds to a failover: at 100 ms a
   * request forwarded during an election found the new leader about 220 ms after it was elected. A
   * refused connection or a "not leader" reply costs the voters next to nothing.
   */
  static final long CLIENT_RETRY_MS = 20;

  /**
   * A client of the group whose requests time out after {@code requestTimeout}. It retries every
   * {@link #CLIENT_RETRY_MS}, for {@code controller.quorum.request.timeout.ms} in all, while no
   * leader answers (none elected yet, or another one); with {@code retryTimeouts} false a request
   * that timed out is not sent again, so a slow, non-idempotent call cannot run twice.
   *
   * <p>Ratis schedules the client's retry pauses and request timeouts on wall-clock timers ({@link
   * java.util.Timer}): after this node's clock is stepped back, a call may wait as long as the
   * step. Callers that must not hang put a deadline of their own on the call.
   */
  static RaftClient client(
      QuorumSettings settings, RaftGroup group, Duration requestTimeout, boolean retryTimeouts) {
    RaftProperties props = properties(settings);
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
    long sleepMs = CLIENT_RETRY_MS;
    int retries = (int) Math.max(1, settings.requestTimeout().toMillis() / sleepMs);
    RetryPolicy retry =
        RetryPolicies.retryUpToMaximumCountWithFixedSleep(
            retries, TimeDuration.valueOf(sleepMs, TimeUnit.MILLISECONDS));
    if (!retryTimeouts) {
      retry =
          ExceptionDependentRetry.newBuilder()
              .setDefaultPolicy(retry)
              .setExceptionToPolicy(TimeoutIOException.class, RetryPolicies.noRetry())
              .setMaxAttempts(retries)
              .build();
    }
    return RaftClient.newBuilder()
        .setProperties(props)
        .setParameters(parameters(settings))
        .setRaftGroup(group)
        .setClientId(ClientId.randomId())
        .setRetryPolicy(retry)
        .build();
  }

  /**
   * The gRPC TLS of every quorum connection when {@link QuorumSettings#tls()} is set: the same
   * mutual-TLS configuration for the Raft server, its admin service and the clients, so peers and
   * brokers both present and check certificates.
   */
  static Parameters parameters(QuorumSettings settings) {
    Parameters parameters = new Parameters();
    QuorumSettings.Tls tls = settings.tls();
    if (tls != null) {
      GrpcTlsConfig config = new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true);
      GrpcConfigKeys.Server.setTlsConf(parameters, config);
      GrpcConfigKeys.Admin.setTlsConf(parameters, config);
      GrpcConfigKeys.Client.setTlsConf(parameters, config);
    }
    return parameters;
  }

  static RaftProperties properties(QuorumSettings settings) {
    RaftProperties props = new RaftProperties();
    // gRPC: the Netty transport logs thousands of stack traces while a peer is down.
    RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
    InetSocketAddress self = settings.controllerEndpoint();
    if (self != null) {
      GrpcConfigKeys.Server.setHost(props, self.getHostString());
      GrpcConfigKeys.Server.setPort(props, self.getPort());
    }
    RaftServerConfigKeys.setStorageDir(props, List.of(settings.storageDir().toFile()));

    // Kafka's election timeout is the longest a voter waits without hearing from the leader. A
    // Ratis follower sleeps a timeout drawn between min and max, then stands only if nothing came
    // during all of that sleep, so a leader that dies mid-sleep is noticed at the end of the next
    // one: the wait is what was left of the running draw plus a whole new one, up to twice the
    // max. Drawing between a quarter and a half of the election timeout keeps the longest wait
    // within it (0.57 of it on average, against 1.14 with half to all). The leader heartbeats
    // every half of the minimum, an eighth of the timeout.
    long electionMs = settings.electionTimeout().toMillis();
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        props, TimeDuration.valueOf(Math.max(1, electionMs / 4), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        props, TimeDuration.valueOf(Math.max(2, electionMs / 2), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
    // A leader that stops hearing from a majority steps down, and Ratis then keeps it from
    // standing again for this long (10 s by default). When the voter left with it has the shorter
    // log (a follower cut off a while, a restarted node), only the old leader can win, so the
    // quorum stayed without a leader for those 10 s: a node crash after a healed cut cost 10 s
    // without an active controller. Pre-vote already keeps a leader cut off from the majority from
    // disrupting it, so the old leader waits an election timeout, as Kafka's resigned leader does.
    RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
        props, TimeDuration.valueOf(electionMs, TimeUnit.MILLISECONDS));
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
    if (settings.voters().size() == 1 && settings.voters().containsKey(settings.nodeId())) {
      // A single voter has nobody to wait for: its vote is the majority, so it may stand for
      // election at once instead of after Ratis's first election timeout (about a second by
      // default). Every single node (bin/brook dev, every EmbeddedBrook of the test suite) starts
      // as fast as a local journal opened; later timeouts never fire, as no other leader exists.
      RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(
          props, TimeDuration.valueOf(SINGLE_VOTER_FIRST_ELECTION_MS, TimeUnit.MILLISECONDS));
      RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(
          props, TimeDuration.valueOf(2 * SINGLE_VOTER_FIRST_ELECTION_MS, TimeUnit.MILLISECONDS));
      RaftServerConfigKeys.LeaderElection.setPreVote(props, false);
    }

    // Off: with it (Ratis 3.3.0's default) a follower treats a second AppendEntries whose first
    // index equals that of one still being written as a duplicate: it skips the append but replies
    // SUCCESS up to the request's last entry. After a partition heals, the new leader's first
    // request of a stalled stream (one entry) can arrive just before its resend (the whole tail):
    // the follower then holds one entry while the leader's match index for it covers all of them,
    // and the leader never sends below that index again, so the follower's log and image stop
    // there for good. Without it the follower checks every request against its log and appends
    // it, in order, as Raft specifies; the metadata log is small enough not to need the overlap.
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(props, false);
    // How long the leader's appender for a follower pauses after each failed or INCONSISTENCY
    // reply, by how many came in a row. Ratis's default pauses 5 s from the 31st on, which a
    // partition of a few seconds reaches; after the heal each of the few INCONSISTENCY replies that
    // walk the follower back to where the logs agree then cost 5 s (14-18 s to catch up,
    // measured). Ratis draws each pause between half and 1.5 times the one named, so a sixth of
    // the election timeout keeps every pause within the shortest election wait (a quarter): a
    // healed follower hears from the leader before it would stand for election, and a down
    // follower costs the leader about six failed calls a second.
    long pauseMs = Math.max(1, electionMs / 6);
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(
        props, "1ms,10, " + Math.max(1, pauseMs / 5) + "ms,20, " + pauseMs + "ms,1000");

    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, settings.snapshotEveryEntries());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(props, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        props, (int) Math.min(settings.snapshotEveryEntries(), Integer.MAX_VALUE));
    RaftServerConfigKeys.Log.setSegmentSizeMax(
        props, SizeInBytes.valueOf(settings.logSegmentBytes()));
    return props;
  }
}
