package io.brook.simulation;

import io.brook.controller.state.ConfigValidator;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller quorum: three controller nodes ({@link SimulatedController}) over one committed
 * metadata log. Raft itself is not simulated, only what it guarantees and what its failures look
 * like from outside: one active controller at a time; it commits only while it reaches a majority
 * (itself and another live, unpaused controller); an operation's records are applied at once with
 * the real {@link MetadataImage#apply} (the committed log never loses an entry); and when the
 * active controller cannot commit (crashed, paused, cut off from the other controllers) for an
 * election timeout, a controller that can is elected and takes over from the committed log, with
 * its own {@code ClusterController} and fresh broker sessions. A deposed controller that comes back
 * answers {@code NOT_CONTROLLER}.
 */
final class ControllerQuorum {
  static final List<Integer> NODE_IDS = List.of(10, 11, 12);
  static final long ELECTION_TIMEOUT_MS = 300;
  static final long ELECTION_CHECK_MS = 50;

  /** How often the active controller looks for expired broker sessions. */
  static final long FENCE_CHECK_MS = 100;

  private final Simulation simulation;
  private final Random random;
  private final long sessionTimeoutMs;
  private final long fenceCheckMs;
  private final List<SimulatedController> nodes = new ArrayList<>();
  private final List<Consumer<MetadataImage>> listeners = new ArrayList<>();
  private MetadataImage image = MetadataImage.EMPTY;
  private SimulatedController active;
  private long unableToCommitSinceMs = -1;
  private int elections;

  ControllerQuorum(Simulation simulation, Random random, long sessionTimeoutMs, long fenceCheckMs) {
    this.simulation = simulation;
    this.random = random;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.fenceCheckMs = fenceCheckMs;
    for (int id : NODE_IDS) {
      nodes.add(newLife(id));
    }
    active = nodes.get(0);
    simulation
        .scheduler()
        .schedulePeriodic("election-check", this::checkLeadership, 0, ELECTION_CHECK_MS);
  }

  private SimulatedController newLife(int id) {
    return new SimulatedController(id, this, simulation, random, sessionTimeoutMs, fenceCheckMs);
  }

  MetadataImage image() {
    return image;
  }

  /** The active controller, or null while there is none (an election is pending). */
  SimulatedController active() {
    return active;
  }

  List<SimulatedController> nodes() {
    return nodes;
  }

  int elections() {
    return elections;
  }

  /** Every image committed from now on is given to {@code listener} (the brokers' pushes). */
  void addListener(Consumer<MetadataImage> listener) {
    listener.accept(image);
    listeners.add(listener);
  }

  /**
   * Commits {@code op}'s records if {@code node} is the active controller and reaches a majority.
   *
   * @throws MetadataException {@code NOT_CONTROLLER} otherwise, as a deposed or isolated Raft
   *     leader's write fails
   */
  <T> T commit(SimulatedController node, Function<MetadataImage, ControllerResult<T>> op) {
    if (!canCommit(node)) {
      throw new MetadataException(new ApiError(Errors.NOT_CONTROLLER, "not the active controller"));
    }
    ControllerResult<T> result = op.apply(image);
    if (result.records().isEmpty()) {
      return result.response();
    }
    image = image.apply(result.records(), image.offset() + result.records().size());
    for (Consumer<MetadataImage> listener : List.copyOf(listeners)) {
      listener.accept(image);
    }
    return result.response();
  }

  private boolean canCommit(SimulatedController node) {
    return node == active && up(node) && nodes.stream().anyMatch(o -> o != node && reach(node, o));
  }

  private boolean up(SimulatedController node) {
    return node.alive() && !simulation.network().isPaused(node.nodeId());
  }

  /** Raft needs both ways: an append whose answer is lost commits nothing. */
  private boolean reach(SimulatedController a, SimulatedController b) {
    SimulatedNetwork network = simulation.network();
    return up(b)
        && !network.isCut(a.nodeId(), b.nodeId())
        && !network.isCut(b.nodeId(), a.nodeId());
  }

  /** Raft's view of leadership: a new election once the active one could not commit for long. */
  private void checkLeadership() {
    if (active != null && canCommit(active)) {
      unableToCommitSinceMs = -1;
      return;
    }
    long now = simulation.nowMs();
    if (unableToCommitSinceMs < 0) {
      unableToCommitSinceMs = now;
    }
    if (now - unableToCommitSinceMs < ELECTION_TIMEOUT_MS) {
      return;
    }
    List<SimulatedController> candidates =
        nodes.stream()
            .filter(n -> up(n) && nodes.stream().anyMatch(o -> o != n && reach(n, o)))
            .toList();
    if (candidates.isEmpty()) {
      active = null;
      return;
    }
    active = candidates.get(random.nextInt(candidates.size()));
    elections++;
    unableToCommitSinceMs = -1;
    simulation.record("controller " + active.nodeId() + " elected");
  }

  /** A controller node crashes; it restarts after {@code downMs} as a follower. */
  void crash(int nodeId, long downMs) {
    int index = NODE_IDS.indexOf(nodeId);
    SimulatedController node = nodes.get(index);
    if (!node.alive()) {
      return;
    }
    node.crash();
    simulation
        .scheduler()
        .schedule(
            "restart controller " + nodeId,
            () -> {
              simulation.record("restart controller " + nodeId);
              SimulatedController next = newLife(nodeId);
              nodes.set(index, next);
              simulation.afterEvent();
            },
            downMs);
  }

  boolean isUp(int nodeId) {
    return nodes.get(NODE_IDS.indexOf(nodeId)).alive();
  }

  /** A topic the workload writes to, created through the active controller. */
  Uuid createTopic(String name, Map<Integer, List<Integer>> replicas) {
    active.submit(
        c ->
            c.createTopic(
                name,
                -1,
                (short) -1,
                replicas,
                Map.of("min.insync.replicas", "2"),
                false,
                ConfigValidator.NONE));
    return image.topic(name).orElseThrow().id();
  }
}
