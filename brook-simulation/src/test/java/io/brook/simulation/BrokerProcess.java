package io.brook.simulation;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.Scheduler;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.ApiHandler;
import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * One life of a broker, from start to crash, on Brook's real data plane: a {@link LogManager} on
 * the broker's directory, a {@link ReplicaManager} with its ISR shrink task, {@link
 * DelayedOperations}, the real Produce and Fetch handlers, all on the simulation's clock and
 * scheduler. It registers with the controller, heartbeats, applies the images the controller sends,
 * and sends its ISR changes to the controller through the network.
 */
final class BrokerProcess implements Endpoint {
  static final long HEARTBEAT_MS = 200;
  static final long REPLICA_LAG_TIME_MAX_MS = 800;
  static final long CONTROLLER_CALL_TIMEOUT_MS = 1_000;

  private final Simulation simulation;
  private final int nodeId;
  private final ManualScheduler scheduler;
  private final SimulatedExecutor storageTasks;
  private final LogManager logManager;
  private final DelayedOperations delayed;
  private final ReplicaManager replicas;
  private final ProduceHandler produce;
  private final FetchHandler fetch;
  private final List<Scheduler.Task> tasks = new ArrayList<>();
  private final Uuid incarnationId;
  private final Path dir;
  private boolean alive = true;
  private long brokerEpoch = -1;
  private boolean registering;

  /** The epoch of the previous life if it shut down cleanly, else -1 (KIP-966's signal). */
  private final long previousBrokerEpoch;

  /**
   * Set by a controlled shutdown: called once this life has stopped with its epoch if every log
   * directory closed cleanly, else -1.
   */
  private LongConsumer onStopped;

  /** What a shutdown forced by a failed disk calls once this life has stopped (see failDisk). */
  private LongConsumer onStoppedAfterDiskFailure;

  /** The disk failed and lost what had not reached it: the stopped life's logs lose it too. */
  private boolean diskLosesPageCache;

  private boolean keepLatestEpochCheckpoints;

  /**
   * Whether this life serves requests: as the real broker, it accepts connections only once the
   * controller has unfenced it, so it never serves a leadership that the metadata it replayed at
   * start-up still shows but its registration (after an unclean shutdown) took away.
   */
  private boolean accepting;

  BrokerProcess(
      Simulation simulation, int nodeId, Path dir, Uuid incarnationId, long previousBrokerEpoch) {
    this.simulation = simulation;
    this.previousBrokerEpoch = previousBrokerEpoch;
    this.nodeId = nodeId;
    this.incarnationId = incarnationId;
    this.dir = dir;
    this.scheduler = simulation.scheduler();
    this.storageTasks = new SimulatedExecutor(scheduler);
    LogConfig logConfig = simulation.logConfig();
    try {
      logManager =
          LogManager.start(
              LogManagerConfig.defaults(List.of(dir))
                  .withCleaner(CleanerConfig.DEFAULTS.withThreads(0)),
              topic -> logConfig,
              scheduler.time(),
              storageTasks,
              new LogDirFailureChannel(storageTasks));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    delayed = new DelayedOperations(scheduler);
    replicas =
        new ReplicaManager(
            nodeId,
            logManager,
            delayed,
            (image, topic) -> logConfig,
            new FollowerFetcher(this),
            this::alterIsr,
            REPLICA_LAG_TIME_MAX_MS,
            scheduler.time(),
            scheduler);
    replicas.startIsrShrinkTask();
    // After the log manager's and the replica manager's own listeners, as in the real server.
    logManager.dirFailures().addListener(this::onLogDirFailure);
    produce = new ProduceHandler(replicas);
    fetch = new FetchHandler(replicas);
    tasks.add(scheduler.schedulePeriodic("heartbeat " + nodeId, this::heartbeat, 0, HEARTBEAT_MS));
  }

  @Override
  public int nodeId() {
    return nodeId;
  }

  @Override
  public boolean alive() {
    return alive;
  }

  Simulation simulation() {
    return simulation;
  }

  Uuid incarnationId() {
    return incarnationId;
  }

  long brokerEpoch() {
    return brokerEpoch;
  }

  ReplicaManager replicas() {
    return replicas;
  }

  Optional<Partition> partition(TopicPartition tp) {
    return alive ? replicas.partition(tp) : Optional.empty();
  }

  /** Runs {@code task} after {@code delayMs} if this life has not ended by then. */
  void schedule(String name, Runnable task, long delayMs) {
    scheduler.schedule(
        name,
        () -> {
          if (alive) {
            task.run();
          }
        },
        delayMs);
  }

  /**
   * The broker process dies: nothing of this life runs again, nothing is flushed or checkpointed,
   * and its files keep exactly what was written (a killed process's writes survive in the page
   * cache), so the next life recovers them as after a crash. The operating system would release the
   * directory lock of a dead process; here the lock file is removed so the next life takes a new
   * one (the dead life's file handles are closed by the garbage collector).
   *
   * @param losePageCache the machine dies with the process: every log loses what it had not fsynced
   *     ({@link PageCacheLoss})
   * @param keepLatestEpochCheckpoints with {@code losePageCache}, whether the leader epoch
   *     checkpoints keep their latest version or only what a flush guaranteed
   */
  void crash(boolean losePageCache, boolean keepLatestEpochCheckpoints) {
    alive = false;
    tasks.forEach(Scheduler.Task::cancel);
    replicas.stopIsrShrinkTask();
    storageTasks.shutdown();
    delayed.close();
    if (losePageCache || diskLosesPageCache) {
      losePageCache(losePageCache ? keepLatestEpochCheckpoints : this.keepLatestEpochCheckpoints);
    }
    try {
      Files.deleteIfExists(dir.resolve(".lock"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void losePageCache(boolean keepLatestEpochCheckpoints) {
    long lost = 0;
    for (PartitionLog log : logManager.logs().values()) {
      lost += PageCacheLoss.apply(log.dir(), log.recoveryPoint(), keepLatestEpochCheckpoints);
    }
    simulation.record("broker " + nodeId + " lost " + lost + " unflushed log bytes");
  }

  /**
   * A controlled shutdown (SIGTERM): the next heartbeats ask the controller to move this broker's
   * leaderships away; once it says the broker may stop, the logs are closed (flushed, with the
   * clean-shutdown marker where every write succeeded) and {@code stopped} gets this life's epoch,
   * which the next life sends as its previous broker epoch, or -1 if the log directory is not
   * marked clean.
   */
  void controlledShutdown(LongConsumer stopped) {
    onStopped = stopped;
  }

  /**
   * The broker's disk fails: its log directory goes offline as after an I/O error (every log in it
   * stops serving; nothing more is written), through the storage layer's own failure channel. As
   * the real server does when its last log directory fails, this life then shuts down with a
   * controlled shutdown (unless one is under way), and {@code stopped} gets -1: no clean-shutdown
   * marker is written to a failed directory.
   *
   * @param losePageCache the failed disk never got what was not fsynced: when this life stops, its
   *     logs lose it ({@link PageCacheLoss})
   */
  void failDisk(boolean losePageCache, boolean keepLatestEpochCheckpoints, LongConsumer stopped) {
    diskLosesPageCache = losePageCache;
    this.keepLatestEpochCheckpoints = keepLatestEpochCheckpoints;
    onStoppedAfterDiskFailure = stopped;
    IOException eio = new IOException("Input/output error (simulated)");
    eio.setStackTrace(new StackTraceElement[0]); // logged once per failure: the trace says nothing
    logManager.dirFailures().markOffline(dir, "writing to a failed disk", eio);
  }

  /** Whether this life is shutting down (asked to, or because its disk failed). */
  boolean stopping() {
    return onStopped != null || onStoppedAfterDiskFailure != null;
  }

  private void onLogDirFailure(Path failed) {
    if (!alive || !logManager.isLogDirOffline(dir)) {
      return;
    }
    if (onStoppedAfterDiskFailure == null) {
      // Only failDisk fails a disk here: any other I/O error is a fault of the run itself (the
      // failure channel would log an exception from its listener and go on).
      simulation.invariants().fail("broker " + nodeId + "'s log directory failed: " + failed);
      return;
    }
    simulation.record("broker " + nodeId + ": its only log directory is offline, shutting down");
    if (onStopped == null) {
      onStopped = onStoppedAfterDiskFailure;
    }
  }

  private void stopAfterControlledShutdown() {
    alive = false;
    tasks.forEach(Scheduler.Task::cancel);
    replicas.stopIsrShrinkTask();
    delayed.close();
    try {
      logManager.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    storageTasks.shutdown();
    if (diskLosesPageCache) {
      losePageCache(keepLatestEpochCheckpoints);
    }
    // The real server writes the epoch only into directories marked clean.
    boolean clean = Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
    simulation.record(
        "broker "
            + nodeId
            + " stopped in epoch "
            + brokerEpoch
            + (clean ? ", cleanly" : ", its log directory not marked clean"));
    onStopped.accept(clean ? brokerEpoch : -1);
  }

  // ---- metadata ----

  void onImage(MetadataImage image) {
    if (alive && image.offset() > replicas.image().offset()) {
      replicas.applyMetadata(image);
    }
    if (alive && !accepting && brokerEpoch >= 0) {
      accepting =
          replicas
              .image()
              .broker(nodeId)
              .filter(b -> b.epoch() == brokerEpoch && !b.fenced())
              .isPresent();
      if (accepting) {
        simulation.record("broker " + nodeId + " unfenced, accepting requests");
      }
    }
  }

  boolean accepting() {
    return accepting;
  }

  private void heartbeat() {
    SimulatedController controller = simulation.controllers().active();
    if (simulation.network().isPaused(nodeId) || controller == null) {
      return; // with no active controller, the next heartbeat tries again
    }
    if (brokerEpoch < 0) {
      if (registering) {
        return;
      }
      registering = true;
      simulation
          .network()
          .<SimulatedController.Answer<Long>>call(
              this,
              controller,
              "register",
              reply ->
                  reply.accept(controller.register(nodeId, incarnationId, previousBrokerEpoch)),
              answer -> {
                registering = false;
                if (answer.error() == Errors.NONE) {
                  brokerEpoch = answer.value();
                }
                onImage(answer.image());
              });
      // A lost registration is sent again at the next heartbeat after the timeout.
      schedule("register-timeout", () -> registering = false, CONTROLLER_CALL_TIMEOUT_MS);
      return;
    }
    long epoch = brokerEpoch;
    long offset = replicas.image().offset();
    boolean wantShutDown = onStopped != null;
    simulation
        .network()
        .<SimulatedController.Answer<Boolean>>call(
            this,
            controller,
            wantShutDown ? "heartbeat-shutdown" : "heartbeat",
            reply -> reply.accept(controller.heartbeat(nodeId, epoch, offset, wantShutDown)),
            answer -> {
              Errors error = answer.error();
              if ((error == Errors.STALE_BROKER_EPOCH || error == Errors.BROKER_ID_NOT_REGISTERED)
                  && brokerEpoch == epoch) {
                brokerEpoch = -1; // registers again at the next heartbeat
              }
              onImage(answer.image());
              if (alive && onStopped != null && answer.value()) {
                stopAfterControlledShutdown();
              }
            });
  }

  /** A leader's ISR change, sent to the controller; fails if no answer comes in time. */
  private CompletableFuture<PartitionState> alterIsr(
      Uuid topicId,
      int partition,
      int leaderEpoch,
      int partitionEpoch,
      List<IsrChangeSender.Member> newIsr) {
    CompletableFuture<PartitionState> answer = new CompletableFuture<>();
    SimulatedController controller = simulation.controllers().active();
    if (controller == null) {
      answer.completeExceptionally(Errors.NOT_CONTROLLER.exception());
      return answer;
    }
    long epoch = brokerEpoch;
    simulation
        .network()
        .<SimulatedController.IsrAnswer>call(
            this,
            controller,
            "alter-partition",
            reply ->
                reply.accept(
                    controller.alterPartition(
                        nodeId, epoch, topicId, partition, leaderEpoch, partitionEpoch, newIsr)),
            result -> {
              if (result.error() == Errors.NONE) {
                answer.complete(result.state());
              } else {
                answer.completeExceptionally(result.error().exception());
              }
            });
    schedule(
        "alter-partition-timeout",
        () -> answer.completeExceptionally(new TimeoutException("no answer from the controller")),
        CONTROLLER_CALL_TIMEOUT_MS);
    return answer;
  }

  // ---- requests served ----

  void handleFetch(FetchRequestData request, Consumer<FetchResponseData> reply) {
    serve(fetch, request, response -> reply.accept(Wire.sent((FetchResponseData) response)));
  }

  void handleProduce(ProduceRequestData request, Consumer<ProduceResponseData> reply) {
    serve(produce, request, response -> reply.accept((ProduceResponseData) response));
  }

  private void serve(ApiHandler handler, ApiMessage request, Consumer<ApiMessage> reply) {
    if (!accepting) {
      return; // the connection is refused: the client times out and tries again
    }
    handler
        .handle(
            Wire.context(handler.apiKey(), handler.maxVersion(), scheduler.time().nanoseconds()),
            request)
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                simulation.record("request failed at " + nodeId + ": " + failure);
              } else if (alive) {
                reply.accept(response);
              }
            });
  }
}
