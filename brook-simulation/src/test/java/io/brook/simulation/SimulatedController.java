package io.brook.simulation;

import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.time.Scheduler;
import io.brook.controller.cluster.BrokerFencer;
import io.brook.controller.state.BrokerFences;
import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ControllerConfig;
import io.brook.controller.state.HeartbeatResult;
import io.brook.controller.state.IsrChangeRequest;
import io.brook.controller.state.IsrChangeResult;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * One controller node of the {@link ControllerQuorum}, for one life (from start to crash): Brook's
 * real {@link ClusterController}, {@link BrokerSessions} and {@link BrokerFencer} over its view of
 * the shared committed log. Only the active node serves brokers and commits; the others answer
 * {@code NOT_CONTROLLER}. Its fencer runs on every node and acts only while the node is active, so
 * a node that takes over starts every broker's session afresh, as in production.
 */
final class SimulatedController implements Endpoint {
  private final int nodeId;
  private final ControllerQuorum quorum;
  private final SimulatedNetwork network;
  private final ClusterController controller;
  private final BrokerSessions sessions;

  /** Fed every image this node's operations read, as production feeds it every applied image. */
  private final BrokerFences fences = new BrokerFences();

  private final Scheduler.Task fencerTask;
  private boolean alive = true;

  SimulatedController(
      int nodeId,
      ControllerQuorum quorum,
      Simulation simulation,
      Random random,
      long sessionTimeoutMs,
      long fenceCheckMs) {
    this.nodeId = nodeId;
    this.quorum = quorum;
    this.network = simulation.network();
    View view = new View();
    this.controller = new ClusterController(ControllerConfig.DEFAULT, view::image, random, fences);
    this.sessions = new BrokerSessions(sessionTimeoutMs, simulation::nowMs);
    BrokerFencer fencer = new BrokerFencer(view, controller, sessions);
    // A paused controller does not fence anyone either: its clock-driven work stops too.
    this.fencerTask =
        simulation
            .scheduler()
            .schedulePeriodic(
                "broker-fencer " + nodeId,
                () -> {
                  if (alive && !network.isPaused(nodeId)) {
                    fencer.run();
                  }
                },
                fenceCheckMs,
                fenceCheckMs);
  }

  @Override
  public int nodeId() {
    return nodeId;
  }

  @Override
  public boolean alive() {
    return alive;
  }

  /** The node dies: its timers stop, messages to it are dropped. */
  void crash() {
    alive = false;
    fencerTask.cancel();
  }

  /** This node's view of the quorum: the shared log, writable only while it may commit. */
  private final class View implements MetadataQuorum {
    @Override
    public MetadataImage image() {
      MetadataImage image = quorum.image();
      fences.onImage(image);
      return image;
    }

    @Override
    public <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
      return quorum.commit(SimulatedController.this, op);
    }

    @Override
    public boolean isActiveController() {
      return quorum.active() == SimulatedController.this;
    }

    @Override
    public void addListener(Consumer<MetadataImage> listener) {
      throw new UnsupportedOperationException("the brokers get images from the quorum");
    }

    @Override
    public void close() {
      // nothing: the node's life ends with crash()
    }
  }

  /** A controller's answer: the value, or the error that stands for no value. */
  record Answer<T>(T value, Errors error, MetadataImage image) {}

  private <T> Answer<T> serve(Function<ClusterController, ControllerResult<T>> op) {
    try {
      return new Answer<>(quorum.commit(this, image -> op.apply(controller)), Errors.NONE, null);
    } catch (MetadataException e) {
      return new Answer<>(null, e.error().error(), null);
    }
  }

  /**
   * A broker registers (fenced) and learns its new epoch; {@code previousBrokerEpoch} is the epoch
   * of its last clean shutdown, or -1.
   */
  Answer<Long> register(int brokerId, Uuid incarnationId, long previousBrokerEpoch) {
    Answer<Long> answer =
        serve(
            c ->
                c.registerBrokerFenced(
                    brokerId,
                    incarnationId,
                    List.of(
                        new BrokerEndpoint("PLAINTEXT", "broker" + brokerId, 9092, "PLAINTEXT")),
                    Optional.empty(),
                    previousBrokerEpoch));
    if (answer.error() == Errors.NONE) {
      sessions.touch(brokerId);
    }
    return new Answer<>(answer.value(), answer.error(), quorum.image());
  }

  /**
   * A broker's heartbeat: keeps its session, unfences it once it has its registration; with {@code
   * wantShutDown}, fences it and moves its leaderships first (a controlled shutdown). The value
   * says whether the broker may stop now.
   */
  Answer<Boolean> heartbeat(
      int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown) {
    Answer<HeartbeatResult> answer =
        serve(c -> c.brokerHeartbeat(brokerId, brokerEpoch, metadataOffset, false, wantShutDown));
    if (answer.error() != Errors.NONE) {
      return new Answer<>(false, answer.error(), quorum.image());
    }
    sessions.touch(brokerId);
    HeartbeatResult result = answer.value();
    return new Answer<>(result.shouldShutDown(), result.error().error(), quorum.image());
  }

  /** The answer to an AlterPartition: the partition's state once committed, or an error. */
  record IsrAnswer(PartitionState state, Errors error) {}

  /** A leader's AlterPartition for one partition. */
  IsrAnswer alterPartition(
      int brokerId,
      long brokerEpoch,
      Uuid topicId,
      int partition,
      int leaderEpoch,
      int partitionEpoch,
      List<IsrChangeSender.Member> newIsr) {
    List<IsrChangeRequest.IsrMember> members =
        newIsr.stream()
            .map(m -> new IsrChangeRequest.IsrMember(m.brokerId(), m.brokerEpoch()))
            .toList();
    Answer<List<IsrChangeResult>> answer =
        serve(
            c ->
                c.alterPartition(
                    brokerId,
                    brokerEpoch,
                    List.of(
                        new IsrChangeRequest(
                            topicId, partition, leaderEpoch, partitionEpoch, members, (byte) 0))));
    if (answer.error() != Errors.NONE) {
      return new IsrAnswer(null, answer.error());
    }
    IsrChangeResult result = answer.value().get(0);
    if (result.error().error() != Errors.NONE) {
      return new IsrAnswer(null, result.error().error());
    }
    PartitionImage p = result.partition().orElseThrow();
    return new IsrAnswer(
        new PartitionState(p.leader(), p.leaderEpoch(), p.partitionEpoch(), p.replicas(), p.isr()),
        Errors.NONE);
  }

  /** Runs an operation of the tests' own (creating the topics) on this node. */
  <T> T submit(Function<ClusterController, ControllerResult<T>> op) {
    return quorum.commit(this, image -> op.apply(controller));
  }
}
