package io.brook.broker.cluster;

import io.brook.broker.time.Scheduler;
import io.brook.metadata.record.BrokerEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AssignReplicasToDirsRequestData;
import org.apache.kafka.common.message.AssignReplicasToDirsResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's side of its life in the cluster, as in KRaft: registers with a fresh incarnation id,
 * heartbeats every {@code broker.heartbeat.interval.ms} with the offset of its metadata image (the
 * controller unfences it once that reaches its registration, and after a fence once it reaches the
 * fence), registers again if the controller no longer knows its epoch, and on shutdown asks to be
 * fenced so its leaderships move before it stops. Each heartbeat answered "unfenced" renews the
 * broker's {@link LeadershipLease}; an answer "fenced" ends it.
 *
 * <p>Every heartbeat carries the ids ({@code directory.id} of {@code meta.properties}) of the log
 * directories that failed, in Kafka's {@code OfflineLogDirs} field; the replicas of a failed
 * directory are reported with AssignReplicasToDirs ({@link #reportOfflineReplicas}), which moves
 * their leaderships.
 *
 * <p>One call is in flight at a time: the next is scheduled when the previous one completes, or
 * fails; the {@link ControllerClient} fails a call unanswered after its deadline, so a call that
 * hangs in the quorum client cannot stop heartbeats (a broker whose heartbeats stop is fenced).
 */
public final class BrokerLifecycleManager {
  private static final Logger log = LoggerFactory.getLogger(BrokerLifecycleManager.class);

  /** While fenced, heartbeat this often so a caught-up broker is unfenced quickly. */
  private static final long FENCED_HEARTBEAT_MS = 100;

  private static final long RETRY_BACKOFF_MS = 200;

  private final int brokerId;
  private final String clusterId;
  private final List<BrokerEndpoint> endpoints;
  private final Optional<String> rack;
  private final ControllerClient controller;
  private final LongSupplier metadataOffset;
  private final Scheduler scheduler;
  private final long heartbeatIntervalMs;
  private final List<Uuid> logDirs;
  private final Supplier<List<Uuid>> offlineLogDirs;
  private final LeadershipLease lease;
  private final Uuid incarnationId;
  private final CompletableFuture<Void> unfenced = new CompletableFuture<>();
  private volatile long brokerEpoch = -1;

  /**
   * The epoch of this broker's last clean shutdown ({@link CleanShutdownEpoch}); sent with the
   * first registration only, since a re-registration of this process follows no shutdown.
   */
  private volatile long previousBrokerEpoch;

  private volatile boolean stopped;

  /** Heartbeats failed in a row (no answer); only the heartbeat callbacks touch it. */
  private int failedHeartbeats;

  /** Told each new registration epoch, on the thread that learned it. */
  private final List<LongConsumer> registrationListeners = new CopyOnWriteArrayList<>();

  public BrokerLifecycleManager(
      int brokerId,
      String clusterId,
      List<BrokerEndpoint> endpoints,
      Optional<String> rack,
      ControllerClient controller,
      LongSupplier metadataOffset,
      Scheduler scheduler,
      long heartbeatIntervalMs,
      List<Uuid> logDirs,
      Supplier<List<Uuid>> offlineLogDirs,
      long previousBrokerEpoch,
      LeadershipLease lease,
      Uuid incarnationId) {
    this.brokerId = brokerId;
    this.incarnationId = incarnationId;
    this.clusterId = clusterId;
    this.endpoints = List.copyOf(endpoints);
    this.rack = rack;
    this.controller = controller;
    this.metadataOffset = metadataOffset;
    this.scheduler = scheduler;
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.logDirs = List.copyOf(logDirs);
    this.offlineLogDirs = offlineLogDirs;
    this.previousBrokerEpoch = previousBrokerEpoch;
    this.lease = lease;
  }

  /**
   * Tells {@code listener} each registration epoch this broker receives (the first and any after
   * the controller forgot it), right after it is received; add before {@link #start}.
   */
  public void addRegistrationListener(LongConsumer listener) {
    registrationListeners.add(listener);
  }

  /** Starts registering; returns at once. */
  public void start() {
    log.info("Broker registering brokerId={} incarnationId={}", brokerId, incarnationId);
    schedule(0);
  }

  /** Completes the first time the controller reports this broker unfenced. */
  public CompletableFuture<Void> unfenced() {
    return unfenced;
  }

  /** The epoch of the current registration, or -1 before the first. */
  public long brokerEpoch() {
    return brokerEpoch;
  }

  private void schedule(long delayMs) {
    if (stopped) {
      return;
    }
    try {
      scheduler.schedule("broker-heartbeat", this::tick, delayMs);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The scheduler is stopping with the node.
    }
  }

  private void tick() {
    if (stopped) {
      return;
    }
    if (brokerEpoch < 0) {
      register();
    } else {
      heartbeat();
    }
  }

  private void register() {
    BrokerRegistrationRequestData request =
        new BrokerRegistrationRequestData()
            .setBrokerId(brokerId)
            .setClusterId(clusterId)
            .setIncarnationId(incarnationId)
            .setRack(rack.orElse(null))
            .setLogDirs(logDirs)
            .setPreviousBrokerEpoch(previousBrokerEpoch);
    for (BrokerEndpoint e : endpoints) {
      request
          .listeners()
          .add(
              new BrokerRegistrationRequestData.Listener()
                  .setName(e.listenerName())
                  .setHost(e.host())
                  .setPort(e.port())
                  .setSecurityProtocol(SecurityProtocol.forName(e.securityProtocol()).id));
    }
    controller
        .send(ApiKeys.BROKER_REGISTRATION, request)
        .whenComplete(
            (message, failure) -> {
              Errors error =
                  failure != null
                      ? Errors.forException(failure)
                      : Errors.forCode(((BrokerRegistrationResponseData) message).errorCode());
              if (error != Errors.NONE) {
                log.info("Broker registration failed brokerId={} error={}", brokerId, error);
                schedule(RETRY_BACKOFF_MS);
                return;
              }
              brokerEpoch = ((BrokerRegistrationResponseData) message).brokerEpoch();
              // This process's own earlier epoch: its re-registrations keep its log.
              previousBrokerEpoch = brokerEpoch;
              log.info("Broker registered brokerId={} epoch={}", brokerId, brokerEpoch);
              long registered = brokerEpoch;
              registrationListeners.forEach(listener -> listener.accept(registered));
              schedule(0);
            });
  }

  private void heartbeat() {
    long sentAt = lease.now();
    sendHeartbeat(false)
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                // The first failure after an answer, then one in fifty (10 s at the retry pace).
                if (failedHeartbeats++ % 50 == 0) {
                  log.info(
                      "Broker heartbeat failed brokerId={} failures={} error={}",
                      brokerId,
                      failedHeartbeats,
                      failure.toString());
                }
                schedule(RETRY_BACKOFF_MS);
                return;
              }
              failedHeartbeats = 0;
              Errors error = Errors.forCode(response.errorCode());
              if (error == Errors.STALE_BROKER_EPOCH || error == Errors.BROKER_ID_NOT_REGISTERED) {
                log.info("Broker registers again brokerId={} error={}", brokerId, error);
                lease.revoke();
                brokerEpoch = -1;
                schedule(0);
                return;
              }
              if (error == Errors.NONE && response.isFenced()) {
                if (lease.held()) {
                  log.info(
                      "Broker heartbeat answered fenced brokerId={} epoch={} metadataOffset={}",
                      brokerId,
                      brokerEpoch,
                      metadataOffset.getAsLong());
                }
                lease.revoke();
              }
              if (error == Errors.NONE && !response.isFenced()) {
                lease.renew(sentAt);
                if (unfenced.complete(null)) {
                  log.atInfo()
                      .setMessage("Broker unfenced")
                      .addKeyValue("brokerId", brokerId)
                      .addKeyValue("epoch", brokerEpoch)
                      .log();
                }
                schedule(heartbeatIntervalMs);
              } else {
                schedule(Math.min(FENCED_HEARTBEAT_MS, heartbeatIntervalMs));
              }
            });
  }

  private CompletableFuture<BrokerHeartbeatResponseData> sendHeartbeat(boolean wantShutDown) {
    BrokerHeartbeatRequestData request =
        new BrokerHeartbeatRequestData()
            .setBrokerId(brokerId)
            .setBrokerEpoch(brokerEpoch)
            .setCurrentMetadataOffset(metadataOffset.getAsLong())
            .setWantFence(false)
            .setWantShutDown(wantShutDown)
            .setOfflineLogDirs(offlineLogDirs.get());
    return controller
        .send(ApiKeys.BROKER_HEARTBEAT, request)
        .thenApply(BrokerHeartbeatResponseData.class::cast);
  }

  /**
   * Tells the controller that the replicas in {@code partitions} (indexes by topic id) lived in the
   * log directory {@code dirId}, which failed: an AssignReplicasToDirs request naming that
   * directory, which Brook's controller answers by moving their leaderships and ISR memberships in
   * one batch. Retried until the controller accepts it (also across a re-registration) or the
   * broker stops.
   */
  public void reportOfflineReplicas(Uuid dirId, Map<Uuid, List<Integer>> partitions) {
    if (stopped) {
      return;
    }
    if (brokerEpoch < 0) {
      retryReport(dirId, partitions);
      return;
    }
    AssignReplicasToDirsRequestData.DirectoryData dir =
        new AssignReplicasToDirsRequestData.DirectoryData().setId(dirId);
    partitions.forEach(
        (topicId, ids) -> {
          AssignReplicasToDirsRequestData.TopicData topic =
              new AssignReplicasToDirsRequestData.TopicData().setTopicId(topicId);
          ids.forEach(
              id ->
                  topic
                      .partitions()
                      .add(
                          new AssignReplicasToDirsRequestData.PartitionData()
                              .setPartitionIndex(id)));
          dir.topics().add(topic);
        });
    AssignReplicasToDirsRequestData request =
        new AssignReplicasToDirsRequestData()
            .setBrokerId(brokerId)
            .setBrokerEpoch(brokerEpoch)
            .setDirectories(List.of(dir));
    controller
        .send(ApiKeys.ASSIGN_REPLICAS_TO_DIRS, request)
        .whenComplete(
            (message, failure) -> {
              Errors error =
                  failure != null
                      ? Errors.forException(failure)
                      : Errors.forCode(((AssignReplicasToDirsResponseData) message).errorCode());
              if (error == Errors.NONE) {
                log.info(
                    "Replicas of a failed log directory reported brokerId={} dirId={} partitions={}",
                    brokerId,
                    dirId,
                    partitions);
              } else {
                log.info("Reporting offline replicas failed, retrying error={}", error);
                retryReport(dirId, partitions);
              }
            });
  }

  private void retryReport(Uuid dirId, Map<Uuid, List<Integer>> partitions) {
    try {
      scheduler.schedule(
          "report-offline-replicas",
          () -> reportOfflineReplicas(dirId, partitions),
          RETRY_BACKOFF_MS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The scheduler is stopping with the node.
    }
  }

  /**
   * Controlled shutdown: stops the heartbeat loop, then asks the controller to fence this broker
   * and move its leaderships, waiting at most {@code timeout} for its answer. Blocks the caller.
   */
  public void shutdown(Duration timeout) {
    if (stopped) {
      return;
    }
    stopped = true;
    if (brokerEpoch < 0) {
      return;
    }
    long started = System.nanoTime();
    try {
      BrokerHeartbeatResponseData response =
          sendHeartbeat(true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      log.info(
          "Controlled shutdown brokerId={} shouldShutDown={} error={} durationMs={}",
          brokerId,
          response.shouldShutDown(),
          Errors.forCode(response.errorCode()),
          (System.nanoTime() - started) / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn("Controlled shutdown not acknowledged brokerId={} error={}", brokerId, e.toString());
    }
  }
}
