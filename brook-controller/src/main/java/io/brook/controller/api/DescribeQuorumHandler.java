package io.brook.controller.api;

import io.brook.broker.api.KafkaApi;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.QuorumState;
import io.brook.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.ReplicaState;
import org.apache.kafka.common.message.DescribeQuorumResponseData.TopicData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeQuorum ({@code kafka-metadata-quorum describe --status | --replication}): the metadata
 * quorum's leader, epoch, high watermark and each voter's progress, answered by the quorum's leader
 * (in a cluster brokers forward it there). Brook's quorum log is not a Kafka topic, but it answers
 * under Kafka's name for it, {@code __cluster_metadata} partition 0, which is what the tools ask
 * for. Voters carry their directory ids (KIP-853). Observers are the controllers that follow the
 * log without voting yet, then the broker-only nodes, whose log positions are not tracked (-1).
 */
public final class DescribeQuorumHandler extends KafkaApi {
  /** The name Kafka's tools use for the metadata log. */
  public static final String METADATA_TOPIC = "__cluster_metadata";

  private final Supplier<Optional<QuorumState>> state;
  private final Supplier<MetadataImage> image;
  private final String controllerListener;

  /**
   * @param state the quorum as its leader sees it; empty when this node is not the leader
   * @param image the metadata image, for the observers
   * @param controllerListener the name of the controllers' listener ({@code
   *     controller.listener.names})
   */
  public DescribeQuorumHandler(
      Supplier<Optional<QuorumState>> state,
      Supplier<MetadataImage> image,
      String controllerListener) {
    super(ApiKeys.DESCRIBE_QUORUM);
    this.state = state;
    this.image = image;
    this.controllerListener = controllerListener;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeQuorumRequestData request = (DescribeQuorumRequestData) message;
    return CompletableFuture.completedFuture(describe(request));
  }

  private DescribeQuorumResponseData describe(DescribeQuorumRequestData request) {
    DescribeQuorumResponseData response = new DescribeQuorumResponseData();
    if (request.topics().size() != 1
        || !request.topics().get(0).topicName().equals(METADATA_TOPIC)
        || request.topics().get(0).partitions().size() != 1
        || request.topics().get(0).partitions().get(0).partitionIndex() != 0) {
      return response
          .setErrorCode(Errors.INVALID_REQUEST.code())
          .setErrorMessage("only " + METADATA_TOPIC + " partition 0 can be described");
    }
    Optional<QuorumState> current = state.get();
    PartitionData partition = new PartitionData().setPartitionIndex(0);
    response.topics().add(new TopicData().setTopicName(METADATA_TOPIC));
    response.topics().get(0).partitions().add(partition);
    if (current.isEmpty()) {
      // As Kafka answers on a voter that is not the leader: an error for the partition.
      partition.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
      return response;
    }
    QuorumState quorum = current.get();
    partition
        .setLeaderId(quorum.leaderId())
        .setLeaderEpoch((int) Math.min(Integer.MAX_VALUE, quorum.leaderEpoch()))
        .setHighWatermark(quorum.highWatermark());
    for (QuorumState.Replica voter : quorum.voters()) {
      partition.currentVoters().add(replicaState(voter));
    }
    java.util.Set<Integer> listed = new java.util.HashSet<>(quorum.voterEndpoints().keySet());
    for (QuorumState.Replica observer : quorum.observers()) {
      // Controllers that follow the log but do not vote yet (KIP-853).
      partition.observers().add(replicaState(observer));
      listed.add(observer.replicaId());
    }
    for (int brokerId : image.get().brokers().keySet()) {
      if (!listed.contains(brokerId)) {
        partition.observers().add(replicaState(QuorumState.Replica.untracked(brokerId)));
      }
    }
    for (Map.Entry<Integer, InetSocketAddress> voter : quorum.voterEndpoints().entrySet()) {
      DescribeQuorumResponseData.Node node =
          new DescribeQuorumResponseData.Node().setNodeId(voter.getKey());
      node.listeners()
          .add(
              new DescribeQuorumResponseData.Listener()
                  .setName(controllerListener)
                  .setHost(voter.getValue().getHostString())
                  .setPort(voter.getValue().getPort()));
      response.nodes().add(node);
    }
    return response;
  }

  private static ReplicaState replicaState(QuorumState.Replica replica) {
    return new ReplicaState()
        .setReplicaId(replica.replicaId())
        // Zero for a voter known by node id alone (controller.quorum.voters), as in Kafka.
        .setReplicaDirectoryId(replica.directoryId())
        .setLogEndOffset(replica.logEndOffset())
        .setLastFetchTimestamp(replica.lastFetchTimestamp())
        .setLastCaughtUpTimestamp(replica.lastCaughtUpTimestamp());
  }
}
