package io.brook.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.ShareStateClient;
import io.brook.coordinator.share.ShareCoordinator;
import io.brook.coordinator.share.ShareStateConfig;
import io.brook.coordinator.testing.CoordinatorFixture;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.record.FeatureLevelRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share-group admin APIs through the group coordinator's service, with a real group coordinator
 * and share coordinator on real {@code __consumer_offsets} and {@code __share_group_state} logs:
 * DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets and DeleteGroups of a
 * share group.
 */
class ShareGroupOffsetsTest {
  private static final String GROUP = "queue-app";
  private static final String TOPIC = "orders";
  private static final RequestInfo INFO = new RequestInfo((short) 0, "test", "/127.0.0.1", "c1");

  @TempDir Path dir;
  private CoordinatorFixture fixture;
  private GroupCoordinator groups;
  private ShareCoordinator shares;
  private GroupService service;
  private Uuid topicId;

  @BeforeEach
  void setUp() throws Exception {
    fixture = new CoordinatorFixture(dir);
    fixture.quorum.submit(
        image ->
            ControllerResult.of(List.of(new FeatureLevelRecord("share.version", (short) 1)), null));
    topicId = fixture.quorum.createTopic(TOPIC, 2, CoordinatorFixture.BROKER_ID, Map.of());
    fixture.createTopic(GroupConfig.OFFSETS_TOPIC, 1, Map.of());
    fixture.createTopic(ShareStateConfig.TOPIC, 1, Map.of());
    groups =
        new GroupCoordinator(
            GroupConfig.defaults(),
            fixture.logs,
            fixture.partitionEnds,
            fixture.replicaManager::image,
            Time.SYSTEM);
    shares =
        new ShareCoordinator(
            new ShareStateConfig(1, (short) 1, 100 * 1024 * 1024, 1, 5 * 1024 * 1024, 5_000, 1),
            fixture.logs,
            fixture.replicaManager::image,
            Time.SYSTEM);
    fixture.quorum.addListener(groups::onMetadata);
    fixture.quorum.addListener(shares::onMetadata);
    service = new GroupService(groups, new LocalShareStates(shares));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                groups
                        .run(GROUP, s -> CompletableFuture.completedFuture(1))
                        .handle((v, e) -> e)
                        .join()
                    == null);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> summary(0).errorCode() == Errors.NONE.code());
  }

  @AfterEach
  void tearDown() throws Exception {
    groups.close();
    shares.close();
    fixture.close();
  }

  // ---- the group and the leaders, as the members and partition leaders would act

  private ShareGroupHeartbeatResponseData heartbeat(String member, int epoch) {
    return service
        .shareGroupHeartbeat(
            INFO,
            new ShareGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setMemberEpoch(epoch)
                .setSubscribedTopicNames(epoch == 0 ? List.of(TOPIC) : null))
        .join();
  }

  /**
   * A leader's first fetch: the share-partition's state (which the group coordinator initialized
   * without a start offset) initialized at {@code start}, at the state epoch it read.
   */
  private void leaderInitializes(int partition, long start) {
    int stateEpoch = Math.max(0, summary(partition).stateEpoch());
    InitializeShareGroupStateRequestData request =
        new InitializeShareGroupStateRequestData()
            .setGroupId(GROUP)
            .setTopics(
                List.of(
                    new InitializeShareGroupStateRequestData.InitializeStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new InitializeShareGroupStateRequestData.PartitionData()
                                    .setPartition(partition)
                                    .setStateEpoch(stateEpoch)
                                    .setStartOffset(start)))));
    assertThat(
            shares
                .initializeShareGroupState(INFO, request)
                .join()
                .results()
                .get(0)
                .partitions()
                .get(0)
                .errorCode())
        .isZero();
  }

  private ReadShareGroupStateSummaryResponseData.PartitionResult summary(int partition) {
    return new LocalShareStates(shares).readSummary(GROUP, topicId, partition).join();
  }

  private DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup describe(
      List<DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic> topics) {
    return service
        .describeShareGroupOffsets(
            INFO,
            new DescribeShareGroupOffsetsRequestData()
                .setGroups(
                    List.of(
                        new DescribeShareGroupOffsetsRequestData
                                .DescribeShareGroupOffsetsRequestGroup()
                            .setGroupId(GROUP)
                            .setTopics(topics))))
        .join()
        .groups()
        .get(0);
  }

  private AlterShareGroupOffsetsResponseData alter(String topic, int partition, long offset) {
    AlterShareGroupOffsetsRequestData request = new AlterShareGroupOffsetsRequestData();
    request.setGroupId(GROUP);
    request
        .topics()
        .add(
            new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic()
                .setTopicName(topic)
                .setPartitions(
                    List.of(
                        new AlterShareGroupOffsetsRequestData
                                .AlterShareGroupOffsetsRequestPartition()
                            .setPartitionIndex(partition)
                            .setStartOffset(offset))));
    return service.alterShareGroupOffsets(INFO, request).join();
  }

  private static long startOffsetOf(
      DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup group,
      int partition) {
    return group.topics().get(0).partitions().stream()
        .filter(p -> p.partitionIndex() == partition)
        .findFirst()
        .orElseThrow()
        .startOffset();
  }

  // ---- tests

  @Test
  void describeShowsTheStartOffsetOfEveryAssignedSharePartition() {
    assertThat(heartbeat("a", 0).errorCode()).isZero();
    leaderInitializes(0, 5);

    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup all =
        describe(null);
    assertThat(all.errorCode()).isZero();
    assertThat(all.topics()).hasSize(1);
    assertThat(all.topics().get(0).topicName()).isEqualTo(TOPIC);
    assertThat(all.topics().get(0).topicId()).isEqualTo(topicId);
    // Partition 1 was assigned but no leader fetched it yet: no state, start offset -1.
    assertThat(startOffsetOf(all, 0)).isEqualTo(5);
    assertThat(startOffsetOf(all, 1)).isEqualTo(-1);

    // Named topics: an unknown one answers per partition.
    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup named =
        describe(
            List.of(
                new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic()
                    .setTopicName(TOPIC)
                    .setPartitions(List.of(0)),
                new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic()
                    .setTopicName("nope")
                    .setPartitions(List.of(0))));
    assertThat(startOffsetOf(named, 0)).isEqualTo(5);
    assertThat(named.topics().get(1).partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }

  @Test
  void describeOfAGroupThatIsNotAShareGroupIsNotFound() {
    assertThat(describe(null).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    ConsumerGroupHeartbeatResponseData consumer =
        service
            .consumerGroupHeartbeat(
                INFO,
                new ConsumerGroupHeartbeatRequestData()
                    .setGroupId(GROUP)
                    .setMemberId("m")
                    .setMemberEpoch(0)
                    .setRebalanceTimeoutMs(10_000)
                    .setSubscribedTopicNames(List.of(TOPIC))
                    .setTopicPartitions(List.of()))
            .join();
    assertThat(consumer.errorCode()).isZero();
    assertThat(describe(null).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(alter(TOPIC, 0, 0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
  }

  @Test
  void anOffsetResetNeedsAnEmptyGroupAndStartsTheStateOverWithTheNextStateEpoch() {
    heartbeat("a", 0);
    leaderInitializes(0, 5);
    assertThat(alter(TOPIC, 0, 1).errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());
    assertThat(summary(0).startOffset()).isEqualTo(5);

    heartbeat("a", -1);
    AlterShareGroupOffsetsResponseData altered = alter(TOPIC, 0, 1);
    assertThat(altered.errorCode()).isZero();
    assertThat(altered.responses().find(TOPIC).partitions().get(0).errorCode()).isZero();
    assertThat(summary(0).startOffset()).isEqualTo(1);
    // The group coordinator initialized it at the group epoch (1); the reset is the next epoch.
    assertThat(summary(0).stateEpoch()).isEqualTo(2);
    assertThat(startOffsetOf(describe(null), 0)).isEqualTo(1);

    // A leader still holding the old state is fenced on its next write, and reads again.
    WriteShareGroupStateRequestData stale =
        new WriteShareGroupStateRequestData()
            .setGroupId(GROUP)
            .setTopics(
                List.of(
                    new WriteShareGroupStateRequestData.WriteStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new WriteShareGroupStateRequestData.PartitionData()
                                    .setPartition(0)
                                    .setStateEpoch(0)
                                    .setLeaderEpoch(0)
                                    .setStartOffset(9)))));
    assertThat(
            shares
                .writeShareGroupState(INFO, stale)
                .join()
                .results()
                .get(0)
                .partitions()
                .get(0)
                .errorCode())
        .isEqualTo(Errors.FENCED_STATE_EPOCH.code());

    // Unknown partitions and negative offsets are answered alone.
    AlterShareGroupOffsetsResponseData bad = alter(TOPIC, 7, 0);
    assertThat(bad.errorCode()).isZero();
    assertThat(bad.responses().find(TOPIC).partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(alter(TOPIC, 1, -2).responses().find(TOPIC).partitions().get(0).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
  }

  @Test
  void aResetOfAGroupThatDoesNotExistCreatesItEmpty() {
    assertThat(alter(TOPIC, 1, 3).errorCode()).isZero();
    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup described =
        describe(null);
    assertThat(described.errorCode()).isZero();
    assertThat(described.topics().get(0).partitions()).hasSize(1);
    assertThat(startOffsetOf(described, 1)).isEqualTo(3);
  }

  @Test
  void deletingOffsetsDeletesTheTopicsStateAndForgetsTheTopic() {
    heartbeat("a", 0);
    leaderInitializes(0, 5);
    leaderInitializes(1, 6);
    DeleteShareGroupOffsetsRequestData request =
        new DeleteShareGroupOffsetsRequestData()
            .setGroupId(GROUP)
            .setTopics(
                List.of(
                    new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                        .setTopicName(TOPIC),
                    new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                        .setTopicName("nope")));
    assertThat(service.deleteShareGroupOffsets(INFO, request).join().errorCode())
        .isEqualTo(Errors.NON_EMPTY_GROUP.code());

    heartbeat("a", -1);
    DeleteShareGroupOffsetsResponseData deleted =
        service.deleteShareGroupOffsets(INFO, request).join();
    assertThat(deleted.errorCode()).isZero();
    assertThat(deleted.responses().get(0).errorCode()).isZero();
    assertThat(deleted.responses().get(0).topicId()).isEqualTo(topicId);
    assertThat(deleted.responses().get(1).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(summary(0).startOffset()).isEqualTo(-1);
    assertThat(summary(1).startOffset()).isEqualTo(-1);
    assertThat(describe(null).topics()).isEmpty();
  }

  @Test
  void deletingAShareGroupDeletesItsStateSoARecreatedGroupStartsFresh() {
    heartbeat("a", 0);
    leaderInitializes(0, 5);
    DeleteGroupsRequestData request = new DeleteGroupsRequestData().setGroupsNames(List.of(GROUP));
    assertThat(service.deleteGroups(INFO, request).join().results().find(GROUP).errorCode())
        .isEqualTo(Errors.NON_EMPTY_GROUP.code());
    assertThat(summary(0).startOffset()).isEqualTo(5);

    heartbeat("a", -1);
    assertThat(service.deleteGroups(INFO, request).join().results().find(GROUP).errorCode())
        .isZero();
    assertThat(summary(0).startOffset()).isEqualTo(-1);
    assertThat(describe(null).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());

    // Recreated: the assignment is recorded again, with no state until a leader initializes it.
    heartbeat("b", 0);
    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup fresh =
        describe(null);
    assertThat(startOffsetOf(fresh, 0)).isEqualTo(-1);
  }

  @Test
  void theRecordedStatePartitionsSurviveACoordinatorReload() throws Exception {
    heartbeat("a", 0);
    heartbeat("a", -1);
    leaderInitializes(1, 4);
    groups.close();
    groups =
        new GroupCoordinator(
            GroupConfig.defaults(),
            fixture.logs,
            fixture.partitionEnds,
            fixture.replicaManager::image,
            Time.SYSTEM);
    groups.onMetadata(fixture.replicaManager.image());
    service = new GroupService(groups, new LocalShareStates(shares));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> describe(null).errorCode() == Errors.NONE.code());
    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup reloaded =
        describe(null);
    assertThat(reloaded.topics().get(0).partitions()).hasSize(2);
    assertThat(startOffsetOf(reloaded, 1)).isEqualTo(4);
  }

  /** The share coordinator of this one broker, called directly as a leader hosting it does. */
  private static final class LocalShareStates implements ShareStateClient {
    private final ShareCoordinator coordinator;

    LocalShareStates(ShareCoordinator coordinator) {
      this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<ReadShareGroupStateSummaryResponseData.PartitionResult> readSummary(
        String groupId, Uuid topicId, int partition) {
      return coordinator
          .readShareGroupStateSummary(
              INFO,
              new ReadShareGroupStateSummaryRequestData()
                  .setGroupId(groupId)
                  .setTopics(
                      List.of(
                          new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                              .setTopicId(topicId)
                              .setPartitions(
                                  List.of(
                                      new ReadShareGroupStateSummaryRequestData.PartitionData()
                                          .setPartition(partition))))))
          .thenApply(r -> r.results().get(0).partitions().get(0));
    }

    @Override
    public CompletableFuture<Errors> initialize(
        String groupId, Uuid topicId, int partition, int stateEpoch, long startOffset) {
      return coordinator
          .initializeShareGroupState(
              INFO,
              new InitializeShareGroupStateRequestData()
                  .setGroupId(groupId)
                  .setTopics(
                      List.of(
                          new InitializeShareGroupStateRequestData.InitializeStateData()
                              .setTopicId(topicId)
                              .setPartitions(
                                  List.of(
                                      new InitializeShareGroupStateRequestData.PartitionData()
                                          .setPartition(partition)
                                          .setStateEpoch(stateEpoch)
                                          .setStartOffset(startOffset))))))
          .thenApply(r -> Errors.forCode(r.results().get(0).partitions().get(0).errorCode()));
    }

    @Override
    public CompletableFuture<Errors> delete(String groupId, Uuid topicId, int partition) {
      return coordinator
          .deleteShareGroupState(
              INFO,
              new DeleteShareGroupStateRequestData()
                  .setGroupId(groupId)
                  .setTopics(
                      List.of(
                          new DeleteShareGroupStateRequestData.DeleteStateData()
                              .setTopicId(topicId)
                              .setPartitions(
                                  List.of(
                                      new DeleteShareGroupStateRequestData.PartitionData()
                                          .setPartition(partition))))))
          .thenApply(r -> Errors.forCode(r.results().get(0).partitions().get(0).errorCode()));
    }
  }
}
