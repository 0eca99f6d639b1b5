package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.AlterPartitionReassignmentsHandler;
import io.brook.broker.api.ListPartitionReassignmentsHandler;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ControllerConfig;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reassignment APIs through their handlers, with a second broker's replica manager following
 * the same metadata: it creates the log of a replica it is being added as, and deletes it when the
 * move is cancelled.
 */
class ReassignmentHandlersTest {
  private static final int OTHER = 2;
  private static final TopicPartition TP = new TopicPartition("moving", 0);

  @TempDir Path dir;
  private BrokerFixture broker;
  private LogManager otherLogs;
  private ReplicaManager other;
  private AlterPartitionReassignmentsHandler alter;
  private ListPartitionReassignmentsHandler list;

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(dir.resolve("one"));
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, broker.quorum::image, new Random(2));
    broker.quorum.submit(
        image ->
            controller.registerBroker(
                OTHER,
                Uuid.randomUuid(),
                List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9093, "PLAINTEXT")),
                Optional.empty()));
    otherLogs =
        LogManager.start(
            LogManagerConfig.defaults(List.of(Files.createDirectories(dir.resolve("two")))),
            topic -> LogConfig.defaults(),
            Time.SYSTEM,
            broker.scheduler);
    other =
        new ReplicaManager(OTHER, otherLogs, broker.delayed, (image, t) -> LogConfig.defaults());
    broker.quorum.addListener(other::applyMetadata);
    broker.admin.createTopic(TP.topic(), -1, (short) -1, Map.of(0, List.of(1)), Map.of(), false);
    alter = new AlterPartitionReassignmentsHandler(broker.admin);
    list = new ListPartitionReassignmentsHandler(broker.admin);
  }

  @AfterEach
  void stop() throws Exception {
    otherLogs.close();
    broker.close();
  }

  private AlterPartitionReassignmentsResponseData reassign(String topic, Integer... replicas)
      throws Exception {
    ReassignablePartition partition =
        new ReassignablePartition()
            .setPartitionIndex(0)
            .setReplicas(replicas == null ? null : Arrays.asList(replicas));
    AlterPartitionReassignmentsRequestData request =
        new AlterPartitionReassignmentsRequestData()
            .setTopics(
                List.of(new ReassignableTopic().setName(topic).setPartitions(List.of(partition))));
    return (AlterPartitionReassignmentsResponseData) BrokerFixture.call(alter, request);
  }

  private static ReassignablePartitionResponse only(AlterPartitionReassignmentsResponseData r) {
    assertThat(r.errorCode()).isZero();
    return r.responses().get(0).partitions().get(0);
  }

  private List<OngoingPartitionReassignment> listed() throws Exception {
    ListPartitionReassignmentsResponseData response =
        (ListPartitionReassignmentsResponseData)
            BrokerFixture.call(list, new ListPartitionReassignmentsRequestData().setTopics(null));
    return response.topics().stream().flatMap(t -> t.partitions().stream()).toList();
  }

  @Test
  void anAddedReplicaGetsItsLogAndLosesItWhenTheMoveIsCancelled() throws Exception {
    // Given the partition only on broker 1
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> broker.replicaManager.partition(TP).isPresent());
    assertThat(other.partition(TP)).isEmpty();

    // When broker 2 is added
    ReassignablePartitionResponse added = only(reassign(TP.topic(), 1, OTHER));

    // Then the move is listed, waits for 2 to be in sync, and broker 2 hosts a log for it
    assertThat(added.errorCode()).isZero();
    assertThat(added.errorMessage()).isNull();
    assertThat(listed())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.replicas()).containsExactly(1, OTHER);
              assertThat(p.addingReplicas()).containsExactly(OTHER);
              assertThat(p.removingReplicas()).isEmpty();
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> other.partition(TP).isPresent());

    // When the move is cancelled
    ReassignablePartitionResponse cancelled = only(reassign(TP.topic(), (Integer[]) null));

    // Then nothing is listed, and broker 2 has deleted its log; broker 1 keeps its own
    assertThat(cancelled.errorCode()).isZero();
    assertThat(listed()).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> other.partition(TP).isEmpty());
    assertThat(broker.replicaManager.partition(TP)).isPresent();
    MetadataImage image = broker.quorum.image();
    assertThat(image.partition(TP.topic(), 0).orElseThrow().replicas()).containsExactly(1);
  }

  @Test
  void errorsArePerPartition() throws Exception {
    // When
    ReassignablePartitionResponse unknownTopic = only(reassign("nope", 1));
    ReassignablePartitionResponse unknownBroker = only(reassign(TP.topic(), 1, 9));
    ReassignablePartitionResponse noMove = only(reassign(TP.topic(), (Integer[]) null));

    // Then
    assertThat(Errors.forCode(unknownTopic.errorCode()))
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(Errors.forCode(unknownBroker.errorCode()))
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(unknownBroker.errorMessage()).contains("broker 9");
    assertThat(Errors.forCode(noMove.errorCode())).isEqualTo(Errors.NO_REASSIGNMENT_IN_PROGRESS);
  }
}
