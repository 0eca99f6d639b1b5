package io.brook.controller.quorum;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import org.apache.kafka.common.Uuid;

/**
 * How to run this node's part of the Raft quorum.
 *
 * @param nodeId this node's {@code node.id}
 * @param voters the initial voters by node id, from {@code controller.quorum.voters}: the group a
 *     node with an empty Raft log starts with (afterwards the membership in the log rules); empty
 *     when the node finds the quorum through {@code bootstrapServers}
 * @param storageDir the Raft log and snapshots ({@code metadata.log.dir}/__cluster_metadata-0)
 * @param electionTimeout the longest a follower waits for the leader before it stands for election
 *     ({@code controller.quorum.election.timeout.ms}); see {@code RatisConfig#properties} for how
 *     Ratis's timeouts are drawn so that the wait stays within it
 * @param requestTimeout how long a call to the quorum may take before it fails ({@code
 *     controller.quorum.request.timeout.ms})
 * @param snapshotEveryEntries a snapshot is taken every this many log entries, after which the log
 *     before it is purged, so the log stays bounded
 * @param directoryId the {@code directory.id} of {@code metadata.log.dir}: with the node id, what
 *     names this node as a voter (KIP-853); {@link Uuid#ZERO_UUID} when unknown
 * @param bootstrapServers {@code controller.quorum.bootstrap.servers}: controllers to ask for the
 *     quorum when this node is not one of {@code voters}
 * @param controllerEndpoint this node's CONTROLLER listener as the others reach it (Ratis listens
 *     there); null on a broker-only node
 * @param tls mutual TLS for every quorum connection (the CONTROLLER listener is SSL), or null for
 *     plaintext
 */
public record QuorumSettings(
    int nodeId,
    Map<Integer, InetSocketAddress> voters,
    Path storageDir,
    Duration electionTimeout,
    Duration requestTimeout,
    long snapshotEveryEntries,
    long logSegmentBytes,
    Uuid directoryId,
    List<InetSocketAddress> bootstrapServers,
    InetSocketAddress controllerEndpoint,
    Tls tls) {
  /** 8 MiB: a 2,000-topic image is a few MiB, so a purge after a snapshot frees whole segments. */
  public static final long DEFAULT_LOG_SEGMENT_BYTES = 8L * 1024 * 1024;

  /**
   * The node's certificate and the certificates it trusts, for the quorum's gRPC: servers require a
   * client certificate, clients present theirs (mutual TLS).
   */
  public record Tls(KeyManager keyManager, TrustManager trustManager) {
    public Tls {
      Objects.requireNonNull(keyManager, "keyManager");
      Objects.requireNonNull(trustManager, "trustManager");
    }
  }

  public QuorumSettings {
    voters = Map.copyOf(voters);
    Objects.requireNonNull(storageDir, "storageDir");
    Objects.requireNonNull(directoryId, "directoryId");
    bootstrapServers = List.copyOf(bootstrapServers);
    if (controllerEndpoint == null) {
      controllerEndpoint = voters.get(nodeId);
    }
  }

  /** A node of a static quorum: its voter entry is its endpoint, no directory id. */
  public QuorumSettings(
      int nodeId,
      Map<Integer, InetSocketAddress> voters,
      Path storageDir,
      Duration electionTimeout,
      Duration requestTimeout,
      long snapshotEveryEntries,
      long logSegmentBytes) {
    this(
        nodeId,
        voters,
        storageDir,
        electionTimeout,
        requestTimeout,
        snapshotEveryEntries,
        logSegmentBytes,
        Uuid.ZERO_UUID,
        List.of(),
        null,
        null);
  }

  /**
   * The same settings with this node's directory id, and finding the quorum through {@code
   * bootstrapServers} rather than initial voters (this node then reached at {@code ownEndpoint}).
   */
  public QuorumSettings withDynamicQuorum(
      Uuid id, List<InetSocketAddress> bootstrapServers, InetSocketAddress ownEndpoint) {
    return new QuorumSettings(
        nodeId,
        voters,
        storageDir,
        electionTimeout,
        requestTimeout,
        snapshotEveryEntries,
        logSegmentBytes,
        id,
        bootstrapServers,
        ownEndpoint,
        tls);
  }

  /** The same settings with mutual TLS for every quorum connection (null: plaintext). */
  public QuorumSettings withTls(Tls quorumTls) {
    return new QuorumSettings(
        nodeId,
        voters,
        storageDir,
        electionTimeout,
        requestTimeout,
        snapshotEveryEntries,
        logSegmentBytes,
        directoryId,
        bootstrapServers,
        controllerEndpoint,
        quorumTls);
  }

  /**
   * Parses {@code controller.quorum.bootstrap.servers} entries, {@code host:port}.
   *
   * @throws IllegalArgumentException for a malformed entry
   */
  public static List<InetSocketAddress> parseBootstrapServers(List<String> entries) {
    List<InetSocketAddress> servers = new java.util.ArrayList<>();
    for (String entry : entries) {
      int colon = entry.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("bootstrap server " + entry + " is not host:port");
      }
      String host = entry.substring(0, colon).trim();
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      servers.add(
          InetSocketAddress.createUnresolved(
              host, Integer.parseInt(entry.substring(colon + 1).trim())));
    }
    return servers;
  }

  /**
   * Parses {@code controller.quorum.voters} entries, {@code id@host:port}.
   *
   * @throws IllegalArgumentException for a malformed entry
   */
  public static Map<Integer, InetSocketAddress> parseVoters(List<String> entries) {
    Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
    for (String entry : entries) {
      int at = entry.indexOf('@');
      int colon = entry.lastIndexOf(':');
      if (at <= 0 || colon < at) {
        throw new IllegalArgumentException("voter " + entry + " is not id@host:port");
      }
      int id = Integer.parseInt(entry.substring(0, at).trim());
      String host = entry.substring(at + 1, colon).trim();
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = Integer.parseInt(entry.substring(colon + 1).trim());
      voters.put(id, InetSocketAddress.createUnresolved(host, port));
    }
    return voters;
  }
}
