package io.brook.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.ControllerConfig;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** auto.leader.rebalance.enable on an in-memory quorum. */
class LeaderRebalancerTest {
  private InMemoryMetadataQuorum quorum;

  @AfterEach
  void close() {
    if (quorum != null) {
      quorum.close();
    }
  }

  @Test
  void leadersReturnToTheirPreferredReplicaOnlyWhenImbalanced() throws Exception {
    // Given two brokers and a partition led by its second replica, the first still in sync
    quorum = new InMemoryMetadataQuorum();
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(7));
    for (int id : List.of(1, 2)) {
      quorum.submit(
          image -> controller.registerBroker(id, Uuid.randomUuid(), List.of(), Optional.empty()));
    }
    quorum.submit(
        image ->
            controller.createTopic(
                "t", 1, (short) 2, Map.of(), Map.of(), false, ConfigValidator.NONE));
    PartitionImage created = quorum.image().partition("t", 0).orElseThrow();
    int preferred = created.replicas().get(0);
    Uuid topicId = quorum.image().topic("t").orElseThrow().id();
    List<MetadataRecord> moveAway =
        List.of(
            new PartitionChangeRecord(
                topicId, 0, Optional.empty(), Optional.of(created.replicas().get(1))));
    quorum.submit(image -> ControllerResult.of(moveAway, null));
    LeaderRebalancer rebalancer = new LeaderRebalancer(quorum, controller);

    // When the periodic check runs
    rebalancer.run();

    // Then the preferred replica leads again, and a second check changes nothing
    assertThat(quorum.image().partition("t", 0).orElseThrow().leader()).isEqualTo(preferred);
    long offset = quorum.image().offset();
    rebalancer.run();
    assertThat(quorum.image().offset()).isEqualTo(offset);
  }
}
