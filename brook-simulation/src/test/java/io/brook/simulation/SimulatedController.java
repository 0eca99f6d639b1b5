package io.brook.simulation;

import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.time.ManualScheduler;
import io.brook.controller.cluster.BrokerFencer;
import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.ControllerConfig;
import io.brook.controller.state.HeartbeatResult;
import io.brook.controller.state.IsrChangeRequest;
import io.brook.controller.state.IsrChangeResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.BrokerEndpoint;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller node: Brook's real {@link ClusterController} and {@link BrokerFencer} over the
 * {@link SimulatedQuorum}. Brokers reach it only through the network (registration, heartbeats,
 * AlterPartition); it pushes every new image to every broker, and answers each heartbeat with the
 * latest image too, so a broker that missed a push catches up as it would by fetching the metadata
 * log.
 */
final class SimulatedController implements Endpoint {
  static final int NODE_ID = 0;

  private final SimulatedNetwork network;
  private final SimulatedQuorum quorum = new SimulatedQuorum();
  private final ClusterController controller;
  private final BrokerSessions sessions;
  private final BrokerFencer fencer;

  SimulatedController(
      SimulatedNetwork network,
      ManualScheduler scheduler,
      Random random,
      long sessionTimeoutMs,
      long fenceCheckMs) {
    this.network = network;
    this.controller = new ClusterController(ControllerConfig.DEFAULT, quorum::image, random);
    this.sessions =
        new BrokerSessions(sessionTimeoutMs, () -> scheduler.time().nanoseconds() / 1_000_000);
    this.fencer = new BrokerFencer(quorum, controller, sessions);
    // A paused controller does not fence anyone either: its clock-driven work stops too.
    scheduler.schedulePeriodic(
        "broker-fencer",
        () -> {
          if (!network.isPaused(NODE_ID)) {
            fencer.run();
          }
        },
        fenceCheckMs,
        fenceCheckMs);
  }

  @Override
  public int nodeId() {
    return NODE_ID;
  }

  @Override
  public boolean alive() {
    return true;
  }

  MetadataImage image() {
    return quorum.image();
  }

  /** Every image published from now on goes to {@code broker} through the network. */
  void pushImagesTo(Consumer<MetadataImage> listener) {
    quorum.addListener(listener);
  }

  /** The topic the workload writes to, with its replicas on the given brokers. */
  Uuid createTopic(String name, List<Integer> replicas) {
    quorum.submit(
        image ->
            controller.createTopic(
                name,
                -1,
                (short) -1,
                Map.of(0, replicas),
                Map.of("min.insync.replicas", "2"),
                false,
                ConfigValidator.NONE));
    return quorum.image().topic(name).orElseThrow().id();
  }

  /** A broker registers (fenced) and learns its new epoch. */
  long register(int brokerId, Uuid incarnationId) {
    sessions.touch(brokerId);
    return quorum.submit(
        image ->
            controller.registerBrokerFenced(
                brokerId,
                incarnationId,
                List.of(new BrokerEndpoint("PLAINTEXT", "broker" + brokerId, 9092, "PLAINTEXT")),
                Optional.empty()));
  }

  /** A broker's heartbeat: keeps its session, unfences it once it has its registration. */
  HeartbeatResult heartbeat(int brokerId, long brokerEpoch, long metadataOffset) {
    sessions.touch(brokerId);
    return quorum.submit(
        image -> controller.brokerHeartbeat(brokerId, brokerEpoch, metadataOffset, false, false));
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
    List<IsrChangeResult> results;
    try {
      results =
          quorum.submit(
              image ->
                  controller.alterPartition(
                      brokerId,
                      brokerEpoch,
                      List.of(
                          new IsrChangeRequest(
                              topicId,
                              partition,
                              leaderEpoch,
                              partitionEpoch,
                              members,
                              (byte) 0))));
    } catch (MetadataException e) {
      return new IsrAnswer(null, e.error().error());
    }
    IsrChangeResult result = results.get(0);
    if (result.error().error() != Errors.NONE) {
      return new IsrAnswer(null, result.error().error());
    }
    PartitionImage p = result.partition().orElseThrow();
    return new IsrAnswer(
        new PartitionState(p.leader(), p.leaderEpoch(), p.partitionEpoch(), p.replicas(), p.isr()),
        Errors.NONE);
  }
}
