package io.brook.quorum;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
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
   * The group: one peer per voter, and an id derived from the voter ids, so every node computes the
   * same group without a format step.
   */
  static RaftGroup group(Map<Integer, InetSocketAddress> voters) {
    List<RaftPeer> peers = new ArrayList<>();
    StringBuilder ids = new StringBuilder("brook-metadata");
    voters.keySet().stream().sorted().forEach(id -> ids.append(',').append(id));
    for (Map.Entry<Integer, InetSocketAddress> voter : voters.entrySet()) {
      InetSocketAddress address = voter.getValue();
      peers.add(
          RaftPeer.newBuilder()
              .setId(peerId(voter.getKey()))
              .setAddress(address.getHostString() + ":" + address.getPort())
              .build());
    }
    UUID uuid = UUID.nameUUIDFromBytes(ids.toString().getBytes(StandardCharsets.UTF_8));
    return RaftGroup.valueOf(RaftGroupId.valueOf(uuid), peers);
  }

  static RaftPeerId peerId(int nodeId) {
    return RaftPeerId.valueOf("node-" + nodeId);
  }

  /** The node id of a peer named by {@link #peerId}, or -1. */
  static int nodeId(RaftPeerId peerId) {
    String name = peerId == null ? "" : peerId.toString();
    return name.startsWith("node-") ? Integer.parseInt(name.substring(5)) : -1;
  }

  /**
   * A client of the group whose requests time out after {@code requestTimeout}. It retries every
   * 100 ms, for {@code controller.quorum.request.timeout.ms} in all, while no leader answers (none
   * elected yet, or another one); with {@code retryTimeouts} false a request that timed out is not
   * sent again, so a slow, non-idempotent call cannot run twice.
   */
  static RaftClient client(
      QuorumSettings settings, RaftGroup group, Duration requestTimeout, boolean retryTimeouts) {
    RaftProperties props = properties(settings);
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
    long sleepMs = 100;
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
    InetSocketAddress self = settings.voters().get(settings.nodeId());
    if (self != null) {
      GrpcConfigKeys.Server.setHost(props, self.getHostString());
      GrpcConfigKeys.Server.setPort(props, self.getPort());
    }
    RaftServerConfigKeys.setStorageDir(props, List.of(settings.storageDir().toFile()));

    long electionMs = settings.electionTimeout().toMillis();
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        props, TimeDuration.valueOf(electionMs / 2, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        props, TimeDuration.valueOf(electionMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        props, TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
    if (settings.voters().size() == 1) {
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
    // reply,
    // by how many came in a row. Ratis's default pauses 5 s from the 31st on, which a partition of
    // a few seconds reaches; after the heal each of the few INCONSISTENCY replies that walk the
    // follower back to where the logs agree then cost 5 s (14-18 s to catch up, measured). Half the
    // election timeout or less: a healed follower hears from the leader before it would stand for
    // election, and a down follower costs the leader two failed calls a second.
    long pauseMs = Math.max(1, Math.min(500, electionMs / 2));
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
