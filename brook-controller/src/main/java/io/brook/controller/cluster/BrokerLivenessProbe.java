package io.brook.controller.cluster;

import io.brook.broker.time.ExecutorScheduler;
import io.brook.broker.time.Scheduler;
import io.brook.controller.state.ClusterController;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences a broker whose process died without waiting for its session to expire. The active
 * controller holds one idle TCP connection to each unfenced broker; when the broker's process dies
 * the kernel closes that connection at once, and if no new one can be made within the grace ({@code
 * brook.broker.liveness.probe.grace.ms}, 1 s) the broker is fenced. A broker that is silent but
 * whose sockets stay open (a paused process, a machine lost without FIN or RST) is left to {@link
 * BrokerFencer}'s session timeout.
 *
 * <p>Only a connection that was established and then lost counts: a broker this controller never
 * reached (a wrong advertised host, a firewall) is not fenced by the probe. A close followed by a
 * successful reconnect (the broker's {@code connections.max.idle.ms} reaper) is not either. The
 * fence names the registration epoch seen when the connection dropped, so a broker that restarted
 * and re-registered meanwhile is not fenced.
 *
 * <p>Runs on every controller, and every controller holds the connections, but only the active one
 * fences. Unlike broker sessions (which a standby cannot keep, as heartbeats go to the active
 * controller only) a lost connection is first-hand evidence whichever controller saw it, so a
 * standby that becomes active keeps what it saw: when the active controller's own node crashes, its
 * successor already knows that node's connection dropped and fences it once the grace has passed,
 * counted from the drop, rather than after a full session timeout. One connection per broker and
 * controller at most; all work runs as one periodic task (on a daemon thread of its own in
 * production) and never blocks.
 */
public final class BrokerLivenessProbe implements Runnable, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerLivenessProbe.class);

  /**
   * How often connections are checked and refused ones retried: a fifth of the default 1 s grace,
   * so a death is noticed at most that late and a restarting listener is retried often enough.
   */
  static final long TICK_MS = 200;

  /** Fences a broker's registration of one epoch; the controller refuses if the epoch moved on. */
  @FunctionalInterface
  public interface Fence {
    CompletionStage<ApiError> fence(int brokerId, long epoch);
  }

  private final int selfId;
  private final Supplier<MetadataImage> images;
  private final BooleanSupplier active;
  private final Fence fence;
  private final long graceMs;
  private final long connectTimeoutMs;
  private final LongSupplier clockMs;
  private final Map<Integer, Watch> watches = new HashMap<>();

  /**
   * The brokers whose established connection is lost now, as of the last check; read without the
   * probe's lock by those who must not name a dead node (see {@link #connectionLost}).
   */
  private volatile Set<Integer> lostBrokers = Set.of();

  /** Whether this node is the active controller as of the current check: only then it fences. */
  private boolean activeNow;

  private boolean closed;
  private volatile Scheduler.Task task;

  /** The scheduler {@link #start} built for this probe alone, stopped with it; else null. */
  private volatile ExecutorScheduler ownScheduler;

  /** The connection to one registration of one broker. */
  private static final class Watch {
    final long epoch;
    final BrokerLink link;
    boolean unreachableLogged;
    boolean fenceSent;

    Watch(long epoch, BrokerLink link) {
      this.epoch = epoch;
      this.link = link;
    }
  }

  /**
   * @param selfId this node's id, never probed (it is not fenced by itself)
   * @param graceMs how long a lost connection may stay lost before the broker is fenced
   * @param clockMs a monotonic clock in milliseconds (injected so tests control the grace)
   */
  BrokerLivenessProbe(
      int selfId,
      Supplier<MetadataImage> images,
      BooleanSupplier active,
      Fence fence,
      long graceMs,
      LongSupplier clockMs) {
    if (graceMs <= 0) {
      throw new IllegalArgumentException("graceMs must be positive");
    }
    this.selfId = selfId;
    this.images = images;
    this.active = active;
    this.fence = fence;
    this.graceMs = graceMs;
    // Half the grace, so a broker whose listener answers slowly gets a second attempt in time.
    this.connectTimeoutMs = Math.max(TICK_MS, graceMs / 2);
    this.clockMs = clockMs;
  }

  /** A probe of the brokers registered in {@code quorum}, checking on a thread of its own. */
  public static BrokerLivenessProbe start(
      MetadataQuorum quorum, ClusterController controller, int selfId, long graceMs) {
    // Its own thread: a busy shared scheduler must not delay a fence.
    ExecutorScheduler own = ExecutorScheduler.singleThread("brook-liveness-probe");
    BrokerLivenessProbe probe = start(quorum, controller, selfId, graceMs, own, Time.SYSTEM);
    probe.ownScheduler = own;
    return probe;
  }

  /**
   * A probe of the brokers registered in {@code quorum}, checking every {@link #TICK_MS} on {@code
   * scheduler} (which stays its owner's) and measuring the grace on {@code time}'s monotonic clock.
   */
  public static BrokerLivenessProbe start(
      MetadataQuorum quorum,
      ClusterController controller,
      int selfId,
      long graceMs,
      Scheduler scheduler,
      Time time) {
    BrokerLivenessProbe probe =
        new BrokerLivenessProbe(
            selfId,
            quorum::image,
            quorum::isActiveController,
            (brokerId, epoch) ->
                quorum.submitAsync(image -> controller.fenceBroker(brokerId, epoch)),
            graceMs,
            time::hiResClockMs);
    probe.task = scheduler.schedulePeriodic("liveness-probe", probe, TICK_MS, TICK_MS);
    return probe;
  }

  @Override
  public synchronized void run() {
    try {
      check();
    } catch (RuntimeException e) {
      // Never let one failure cancel the periodic task.
      log.warn("Liveness probe check failed error={}", e.toString());
    }
  }

  private void check() {
    if (closed) {
      return;
    }
    boolean isActive = active.getAsBoolean();
    if (isActive != activeNow) {
      log.info("Liveness probe {} brokers={}", isActive ? "fencing" : "standby", watches.size());
      activeNow = isActive;
    }
    MetadataImage image = images.get();
    long now = clockMs.getAsLong();
    dropStaleWatches(image, now);
    for (BrokerRegistration broker : image.brokers().values()) {
      if (broker.id() == selfId || broker.fenced() || broker.endpoints().isEmpty()) {
        continue;
      }
      Watch watch =
          watches.computeIfAbsent(
              broker.id(),
              id ->
                  new Watch(
                      broker.epoch(), new BrokerLink(broker.endpoints().get(0), connectTimeoutMs)));
      check(broker.id(), watch, now);
    }
    Set<Integer> lost = new HashSet<>();
    watches.forEach(
        (id, watch) -> {
          if (watch.link.downSinceMs() >= 0) {
            lost.add(id);
          }
        });
    lostBrokers = Set.copyOf(lost);
  }

  /** Closes the watches of brokers now fenced, re-registered, moved or gone. */
  private void dropStaleWatches(MetadataImage image, long now) {
    for (Iterator<Map.Entry<Integer, Watch>> it = watches.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Integer, Watch> e = it.next();
      Watch watch = e.getValue();
      if (stillWatched(image.brokers().get(e.getKey()), watch)) {
        continue;
      }
      long downSince = watch.link.downSinceMs();
      if (downSince >= 0 && !watch.fenceSent) {
        log.info(
            "Broker fenced, re-registered or gone while its connection was lost; not fencing"
                + " brokerId={} epoch={} downMs={}",
            e.getKey(),
            watch.epoch,
            now - downSince);
      }
      watch.link.close();
      it.remove();
    }
  }

  /** Whether the watch still fits the broker: registered, unfenced, same epoch and endpoint. */
  private boolean stillWatched(BrokerRegistration broker, Watch watch) {
    if (broker == null || broker.fenced() || broker.epoch() != watch.epoch) {
      return false;
    }
    BrokerEndpoint first = broker.endpoints().isEmpty() ? null : broker.endpoints().get(0);
    return watch.link.endpoint().equals(first);
  }

  /** Advances one broker's connection and fences the broker once it stayed lost for the grace. */
  private void check(int brokerId, Watch watch, long now) {
    long downSince = watch.link.downSinceMs();
    boolean wasDown = downSince >= 0;
    watch.link.poll(now);
    long stillDownSince = watch.link.downSinceMs();
    if (stillDownSince < 0) {
      if (wasDown) {
        log.info(
            "Broker connection re-established, not fencing brokerId={} downMs={}",
            brokerId,
            now - downSince);
      } else if (!watch.link.everUp()
          && watch.link.failedAttempts() > 0
          && !watch.unreachableLogged) {
        watch.unreachableLogged = true;
        log.info(
            "Broker not reachable from the controller; only its session timeout can fence it"
                + " until a connection succeeds brokerId={} endpoint={}:{}",
            brokerId,
            watch.link.endpoint().host(),
            watch.link.endpoint().port());
      }
      return;
    }
    if (!wasDown) {
      log.info("Broker connection lost brokerId={} epoch={}", brokerId, watch.epoch);
    }
    long downMs = now - stillDownSince;
    if (downMs >= graceMs && !watch.fenceSent && activeNow) {
      watch.fenceSent = true;
      fence(brokerId, watch, downMs);
    }
  }

  private void fence(int brokerId, Watch watch, long downMs) {
    long epoch = watch.epoch;
    log.info(
        "Fencing broker after its connection stayed lost brokerId={} epoch={} downMs={}",
        brokerId,
        epoch,
        downMs);
    fence
        .fence(brokerId, epoch)
        .whenComplete(
            (error, failure) -> {
              if (failure != null) {
                log.warn("Fencing failed brokerId={} error={}", brokerId, failure.toString());
                // Retried on the next check if this node is still active and the broker still down.
                synchronized (this) {
                  watch.fenceSent = false;
                }
              } else if (!error.isSuccess()) {
                log.info("Fence not applied brokerId={} epoch={} error={}", brokerId, epoch, error);
              }
            });
  }

  /** Whether a connection to {@code brokerId} is established now (for tests). */
  synchronized boolean connected(int brokerId) {
    Watch watch = watches.get(brokerId);
    return watch != null && watch.link.connected();
  }

  /**
   * Whether this node's connection to {@code brokerId} was established and is lost as of the last
   * check: first-hand evidence that the broker's process died, seen about a tick after it did, long
   * before its session expires or a Raft election completes.
   */
  public boolean connectionLost(int brokerId) {
    return lostBrokers.contains(brokerId);
  }

  private void closeAll() {
    watches.values().forEach(w -> w.link.close());
    watches.clear();
    lostBrokers = Set.of();
  }

  @Override
  public void close() {
    if (task != null) {
      task.cancel();
    }
    if (ownScheduler != null) {
      ownScheduler.close();
    }
    synchronized (this) {
      closed = true;
      closeAll();
    }
  }
}
