package io.brook.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.QuorumState;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class DescribeQuorumHandlerTest {
  private static final QuorumState STATE =
      new QuorumState(
          2,
          7,
          120,
          List.of(
              new QuorumState.Replica(1, Uuid.ZERO_UUID, 118, 1_000, -1),
              new QuorumState.Replica(2, Uuid.ZERO_UUID, 120, -1, 2_000),
              new QuorumState.Replica(3, Uuid.ZERO_UUID, 120, 1_500, 1_500)),
          Map.of(
              1, InetSocketAddress.createUnresolved("10.0.0.1", 9093),
              2, InetSocketAddress.createUnresolved("10.0.0.2", 9093),
              3, InetSocketAddress.createUnresolved("10.0.0.3", 9093)),
          List.of());

  @Test
  void theLeaderDescribesEveryVoterAndItsControllerListener() throws Exception {
    // Given
    DescribeQuorumHandler handler =
        new DescribeQuorumHandler(
            () -> Optional.of(STATE), () -> MetadataImage.EMPTY, "CONTROLLER");

    // When
    DescribeQuorumResponseData response = call(handler, request("__cluster_metadata", 0));

    // Then
    assertThat(response.errorCode()).isZero();
    PartitionData partition = response.topics().get(0).partitions().get(0);
    assertThat(partition.leaderId()).isEqualTo(2);
    assertThat(partition.leaderEpoch()).isEqualTo(7);
    assertThat(partition.highWatermark()).isEqualTo(120);
    assertThat(partition.currentVoters())
        .extracting(v -> v.replicaId() + "@" + v.logEndOffset() + "/" + v.lastCaughtUpTimestamp())
        .containsExactly("1@118/-1", "2@120/2000", "3@120/1500");
    assertThat(partition.observers()).isEmpty();
    assertThat(response.nodes().find(3).listeners().find("CONTROLLER").port()).isEqualTo(9093);
  }

  @Test
  void aNodeThatIsNotTheLeaderSaysSo() throws Exception {
    DescribeQuorumHandler handler =
        new DescribeQuorumHandler(Optional::empty, () -> MetadataImage.EMPTY, "CONTROLLER");

    DescribeQuorumResponseData response = call(handler, request("__cluster_metadata", 0));

    assertThat(response.topics().get(0).partitions().get(0).errorCode())
        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
  }

  @Test
  void anyOtherTopicOrPartitionIsAnInvalidRequest() throws Exception {
    DescribeQuorumHandler handler =
        new DescribeQuorumHandler(
            () -> Optional.of(STATE), () -> MetadataImage.EMPTY, "CONTROLLER");

    assertThat(call(handler, request("orders", 0)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(call(handler, request("__cluster_metadata", 1)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
  }

  private static DescribeQuorumRequestData request(String topic, int partition) {
    DescribeQuorumRequestData request = new DescribeQuorumRequestData();
    DescribeQuorumRequestData.TopicData data =
        new DescribeQuorumRequestData.TopicData().setTopicName(topic);
    data.partitions()
        .add(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(partition));
    request.topics().add(data);
    return request;
  }

  private static DescribeQuorumResponseData call(
      DescribeQuorumHandler handler, DescribeQuorumRequestData request) throws Exception {
    RequestContext context =
        new RequestContext(
            new RequestHeader(ApiKeys.DESCRIBE_QUORUM, handler.maxVersion(), "test", 1),
            "PLAINTEXT",
            InetAddress.getLoopbackAddress(),
            "test-connection",
            System.nanoTime());
    return (DescribeQuorumResponseData)
        handler.handle(context, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
