package io.brook.controller.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.replica.ReplicaManager;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ControllerConfig;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
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
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final DelayedOperations delayed = new DelayedOperations();
  private final InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum();
  private LogManager oneLogs;
  private ReplicaManager one;
  private LogManager otherLogs;
  private ReplicaManager other;
  private AlterPartitionReassignmentsHandler alter;
  private ListPartitionReassignmentsHandler list;

  @BeforeEach
  void start() throws Exception {
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(2));
    TopicAdmin admin = new TopicAdmin(quorum, controller, configs -> {});
    oneLogs = logs("one");
    one = new ReplicaManager(1, oneLogs, delayed, (image, t) -> LogConfig.defaults());
    quorum.addListener(one::applyMetadata);
    otherLogs = logs("two");
    other = new ReplicaManager(OTHER, otherLogs, delayed, (image, t) -> LogConfig.defaults());
    quorum.addListener(other::applyMetadata);
    for (int id : new int[] {1, OTHER}) {
      quorum.submit(
          image ->
              controller.registerBroker(
                  id,
                  Uuid.randomUuid(),
                  List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9091 + id, "PLAINTEXT")),
                  Optional.empty()));
    }
    admin.createTopic(TP.topic(), -1, (short) -1, Map.of(0, List.of(1)), Map.of(), false);
    alter = new AlterPartitionReassignmentsHandler(admin);
    list = new ListPartitionReassignmentsHandler(admin);
  }

  private LogManager logs(String name) throws Exception {
    return LogManager.start(
        LogManagerConfig.defaults(List.of(Files.createDirectories(dir.resolve(name)))),
        topic -> LogConfig.defaults(),
        Time.SYSTEM,
        scheduler);
  }

  @AfterEach
  void stop() throws Exception {
    delayed.close();
    otherLogs.close();
    oneLogs.close();
    quorum.close();
    scheduler.shutdownNow();
  }

  /** Calls a handler at its newest version and waits for the answer. */
  private static ApiMessage call(ApiHandler handler, ApiMessage request) throws Exception {
    RequestContext context =
        new RequestContext(
            new RequestHeader(handler.apiKey(), handler.maxVersion(), "test", 1),
            "PLAINTEXT",
            InetAddress.getLoopbackAddress(),
            "test-connection",
            System.nanoTime());
    return handler.handle(context, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
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
    return (AlterPartitionReassignmentsResponseData) call(alter, request);
  }

  private static ReassignablePartitionResponse only(AlterPartitionReassignmentsResponseData r) {
    assertThat(r.errorCode()).isZero();
    return r.responses().get(0).partitions().get(0);
  }

  private List<OngoingPartitionReassignment> listed() throws Exception {
    ListPartitionReassignmentsResponseData response =
        (ListPartitionReassignmentsResponseData)
            call(list, new ListPartitionReassignmentsRequestData().setTopics(null));
    return response.topics().stream().flatMap(t -> t.partitions().stream()).toList();
  }

  @Test
  void anAddedReplicaGetsItsLogAndLosesItWhenTheMoveIsCancelled() throws Exception {
    // Given the partition only on broker 1
    await().atMost(Duration.ofSeconds(10)).until(() -> one.partition(TP).isPresent());
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
    assertThat(one.partition(TP)).isPresent();
    MetadataImage image = quorum.image();
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
