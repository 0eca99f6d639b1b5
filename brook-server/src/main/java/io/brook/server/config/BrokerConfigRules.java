package io.brook.server.config;

import static io.brook.server.config.NodeSettings.ADVERTISED_LISTENERS;
import static io.brook.server.config.NodeSettings.CONTROLLER_LISTENER_NAMES;
import static io.brook.server.config.NodeSettings.INTER_BROKER_LISTENER_NAME;
import static io.brook.server.config.NodeSettings.LISTENERS;
import static io.brook.server.config.NodeSettings.NODE_ID;
import static io.brook.server.config.NodeSettings.QUORUM_BOOTSTRAP_SERVERS;
import static io.brook.server.config.NodeSettings.QUORUM_VOTERS;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigException;

/**
 * The rules between broker configs that Kafka checks when a node starts: what each combination of
 * {@code process.roles} requires of the quorum and listener settings, and timeouts that must be
 * ordered. Single-value rules are in the validators of {@link BrokerConfigDef}.
 */
final class BrokerConfigRules {

  private BrokerConfigRules() {}

  static void check(BrokerConfig c) {
    SupportedSecurity.check(c);
    checkQuorum(c);
    checkControllerListeners(c);
    if (c.isBroker()) {
      checkBrokerListeners(c);
    }
    checkReplicaTimeouts(c);
    checkRequestQueue(c);
    checkCleanerBuffer(c);
    checkRemoteChunkCache(c);
    checkGroupTimeouts(c);
    HttpSettings.check(c);
  }

  private static void checkQuorum(BrokerConfig c) {
    List<String> voters = c.controllerQuorumVoters();
    if (voters.isEmpty() && c.controllerQuorumBootstrapServers().isEmpty()) {
      throw new ConfigException(
          QUORUM_VOTERS
              + " or "
              + QUORUM_BOOTSTRAP_SERVERS
              + " must name the controllers (id@host:port or host:port entries)");
    }
    Set<Integer> voterIds = Listeners.voterIds(voters);
    if (voterIds.isEmpty()) {
      return;
    }
    if (c.isController() && !voterIds.contains(c.nodeId())) {
      throw new ConfigException(
          NODE_ID,
          c.nodeId(),
          "a node with the controller role must be one of the voters in "
              + QUORUM_VOTERS
              + "="
              + voterIds);
    }
    if (!c.isController() && voterIds.contains(c.nodeId())) {
      throw new ConfigException(
          NODE_ID,
          c.nodeId(),
          "a broker-only node must not be one of the voters in " + QUORUM_VOTERS + "=" + voterIds);
    }
  }

  private static void checkControllerListeners(BrokerConfig c) {
    List<String> controllerNames = c.controllerListenerNames();
    Set<String> listenerNames =
        c.listeners().stream().map(Endpoint::listenerName).collect(Collectors.toSet());
    if (c.isController()) {
      for (String name : controllerNames) {
        if (!listenerNames.contains(name)) {
          throw new ConfigException(
              CONTROLLER_LISTENER_NAMES,
              c.originalString(CONTROLLER_LISTENER_NAMES),
              "controller listener "
                  + name
                  + " must appear in "
                  + LISTENERS
                  + " when process.roles contains controller");
        }
      }
      if (!c.isBroker()) {
        for (String name : listenerNames) {
          if (!controllerNames.contains(name)) {
            throw new ConfigException(
                LISTENERS,
                c.string(LISTENERS),
                "a controller-only node may listen only on "
                    + CONTROLLER_LISTENER_NAMES
                    + " listeners, not "
                    + name);
          }
        }
      }
    } else {
      for (String name : controllerNames) {
        if (listenerNames.contains(name)) {
          throw new ConfigException(
              LISTENERS,
              c.string(LISTENERS),
              "a broker-only node must not listen on the controller listener " + name);
        }
        if (!c.securityProtocolMap().containsKey(name)) {
          throw new ConfigException(
              CONTROLLER_LISTENER_NAMES,
              c.originalString(CONTROLLER_LISTENER_NAMES),
              "controller listener " + name + " needs an entry in listener.security.protocol.map");
        }
      }
    }
  }

  private static void checkBrokerListeners(BrokerConfig c) {
    List<Endpoint> advertised = c.withoutControllerListeners(c.advertisedAsConfigured());
    String advertisedKey = c.isSet(ADVERTISED_LISTENERS) ? ADVERTISED_LISTENERS : LISTENERS;
    if (advertised.isEmpty()) {
      throw new ConfigException(
          advertisedKey,
          c.originalString(advertisedKey),
          "a broker needs at least one listener that is not a controller listener ("
              + CONTROLLER_LISTENER_NAMES
              + "="
              + c.controllerListenerNames()
              + ")");
    }
    Set<String> advertisedNames =
        advertised.stream().map(Endpoint::listenerName).collect(Collectors.toSet());
    Set<String> listenerNames =
        c.listeners().stream().map(Endpoint::listenerName).collect(Collectors.toSet());
    if (!listenerNames.containsAll(advertisedNames)) {
      throw new ConfigException(
          ADVERTISED_LISTENERS,
          c.originalString(ADVERTISED_LISTENERS),
          "listener names must be among those of " + LISTENERS + ": " + listenerNames);
    }
    if (!advertisedNames.contains(c.interBrokerListenerName())) {
      throw new ConfigException(
          INTER_BROKER_LISTENER_NAME,
          c.interBrokerListenerName(),
          "must be an advertised broker listener; one of " + advertisedNames);
    }
  }

  private static void checkReplicaTimeouts(BrokerConfig c) {
    int fetchWait = (Integer) c.value(ReplicationSettings.REPLICA_FETCH_WAIT_MAX_MS);
    int socketTimeout = (Integer) c.value(ReplicationSettings.REPLICA_SOCKET_TIMEOUT_MS);
    long lagMax = (Long) c.value(ReplicationSettings.REPLICA_LAG_TIME_MAX_MS);
    if (fetchWait > socketTimeout) {
      throw new ConfigException(
          ReplicationSettings.REPLICA_SOCKET_TIMEOUT_MS,
          socketTimeout,
          "must be at least replica.fetch.wait.max.ms (" + fetchWait + ")");
    }
    if (fetchWait > lagMax) {
      throw new ConfigException(
          ReplicationSettings.REPLICA_FETCH_WAIT_MAX_MS,
          fetchWait,
          "must not exceed replica.lag.time.max.ms (" + lagMax + ")");
    }
  }

  private static void checkRequestQueue(BrokerConfig c) {
    long queuedBytes = (Long) c.value(NetworkSettings.QUEUED_MAX_REQUEST_BYTES);
    if (queuedBytes != -1 && queuedBytes < c.socketRequestMaxBytes()) {
      throw new ConfigException(
          NetworkSettings.QUEUED_MAX_REQUEST_BYTES,
          queuedBytes,
          "must be -1 (a quarter of the JVM's memory) or at least socket.request.max.bytes ("
              + c.socketRequestMaxBytes()
              + ")");
    }
  }

  private static void checkCleanerBuffer(BrokerConfig c) {
    int threads = (Integer) c.value(RetentionSettings.LOG_CLEANER_THREADS);
    long buffer = (Long) c.value(RetentionSettings.LOG_CLEANER_DEDUPE_BUFFER_SIZE);
    if (threads > 0 && buffer / threads <= RetentionSettings.MIN_DEDUPE_BUFFER_PER_THREAD) {
      throw new ConfigException(
          RetentionSettings.LOG_CLEANER_DEDUPE_BUFFER_SIZE,
          buffer,
          "must give each of the " + threads + " cleaner threads more than 1 MiB");
    }
  }

  private static void checkRemoteChunkCache(BrokerConfig c) {
    long total = (Long) c.value(TieredStorageSettings.CHUNK_CACHE_BYTES);
    int chunk = (Integer) c.value(TieredStorageSettings.CHUNK_BYTES);
    if (total > 0 && chunk > total) {
      throw new ConfigException(
          TieredStorageSettings.CHUNK_BYTES,
          chunk,
          "must not exceed "
              + TieredStorageSettings.CHUNK_CACHE_BYTES
              + " ("
              + total
              + ") unless that is 0 (no chunk cache)");
    }
  }

  private static void checkGroupTimeouts(BrokerConfig c) {
    inOrder(
        c,
        GroupSettings.CONSUMER_MIN_SESSION_TIMEOUT_MS,
        GroupSettings.CONSUMER_SESSION_TIMEOUT_MS,
        GroupSettings.CONSUMER_MAX_SESSION_TIMEOUT_MS);
    inOrder(
        c,
        GroupSettings.CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
        GroupSettings.CONSUMER_HEARTBEAT_INTERVAL_MS,
        GroupSettings.CONSUMER_MAX_HEARTBEAT_INTERVAL_MS);
    int heartbeat = (Integer) c.value(GroupSettings.CONSUMER_HEARTBEAT_INTERVAL_MS);
    int session = (Integer) c.value(GroupSettings.CONSUMER_SESSION_TIMEOUT_MS);
    if (heartbeat >= session) {
      throw new ConfigException(
          GroupSettings.CONSUMER_HEARTBEAT_INTERVAL_MS,
          heartbeat,
          "must be less than " + GroupSettings.CONSUMER_SESSION_TIMEOUT_MS + " (" + session + ")");
    }
    int classicMin = (Integer) c.value(GroupSettings.GROUP_MIN_SESSION_TIMEOUT_MS);
    int classicMax = (Integer) c.value(GroupSettings.GROUP_MAX_SESSION_TIMEOUT_MS);
    if (classicMin > classicMax) {
      throw new ConfigException(
          GroupSettings.GROUP_MIN_SESSION_TIMEOUT_MS,
          classicMin,
          "must not exceed "
              + GroupSettings.GROUP_MAX_SESSION_TIMEOUT_MS
              + " ("
              + classicMax
              + ")");
    }
  }

  /** {@code min <= value <= max} for three int configs. */
  private static void inOrder(BrokerConfig c, String min, String value, String max) {
    int lo = (Integer) c.value(min);
    int v = (Integer) c.value(value);
    int hi = (Integer) c.value(max);
    if (lo > hi) {
      throw new ConfigException(min, lo, "must not exceed " + max + " (" + hi + ")");
    }
    if (v < lo || v > hi) {
      throw new ConfigException(
          value, v, "must be between " + min + " (" + lo + ") and " + max + " (" + hi + ")");
    }
  }
}
