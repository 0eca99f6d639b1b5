package io.brook.coordinator.group.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.testing.FakeShardContext;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ShareGroupHeartbeat on a shard over a fake context: membership, epochs, timeouts, reload. */
class ShareGroupHeartbeatTest {
  private static final String GROUP = "queue-app";
  private static final Uuid ORDERS = new Uuid(1, 42);

  private final FakeShardContext context = new FakeShardContext(0, 1_000_000L);
  private final List<MetadataRecord> metadata = new ArrayList<>();
  private GroupCoordinatorShard shard;

  @BeforeEach
  void start() {
    shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);
    shard.onLoaded();
    metadata.add(new TopicRecord("orders", ORDERS));
    partitions(3);
  }

  private void partitions(int count) {
    int existing = (int) metadata.stream().filter(r -> r instanceof PartitionRecord).count();
    for (int p = existing; p < count; p++) {
      metadata.add(new PartitionRecord(ORDERS, p, List.of(1), List.of(1), 1, 0, 0));
    }
    MetadataImage image = MetadataImage.EMPTY.apply(List.copyOf(metadata), metadata.size() - 1L);
    context.setImage(image);
    shard.onMetadata(image);
  }

  private ShareGroupManager.HeartbeatOutcome send(String member, int epoch, List<String> topics) {
    return shard
        .share()
        .heartbeatAndInitialize(
            "client",
            "/127.0.0.1",
            new ShareGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setMemberEpoch(epoch)
                .setSubscribedTopicNames(topics))
        .join();
  }

  /** A heartbeat whose share-partitions to initialize all are, as the handler completes it. */
  private ShareGroupHeartbeatResponseData heartbeat(String member, int epoch, List<String> topics) {
    ShareGroupManager.HeartbeatOutcome outcome = send(member, epoch, topics);
    if (outcome.initialization() == null) {
      return outcome.response();
    }
    return shard
        .share()
        .completeInitialization(
            outcome.initialization(), ids(outcome.initialization()), Set.of(), outcome.response())
        .join();
  }

  private static Set<ShareGroup.PartitionId> ids(ShareGroupManager.Initialization init) {
    Set<ShareGroup.PartitionId> ids = new HashSet<>();
    init.partitions().forEach(p -> ids.add(new ShareGroup.PartitionId(p.topicId(), p.partition())));
    return ids;
  }

  private static List<Integer> partitionsOf(ShareGroupHeartbeatResponseData response) {
    return response.assignment().topicPartitions().get(0).partitions();
  }

  @Test
  void everyMemberGetsEveryPartitionAndTheEpochMovesWithMembership() {
    // Joining writes epoch 1; initializing the topic's share-partitions epoch 2.
    ShareGroupHeartbeatResponseData a = heartbeat("a", 0, List.of("orders"));
    assertThat(a.errorCode()).isZero();
    assertThat(a.memberEpoch()).isEqualTo(2);
    assertThat(partitionsOf(a)).containsExactly(0, 1, 2);

    ShareGroupHeartbeatResponseData b = heartbeat("b", 0, List.of("orders"));
    assertThat(b.memberEpoch()).isEqualTo(3);
    assertThat(partitionsOf(b)).containsExactly(0, 1, 2);

    // a is behind: it gets the new epoch and its assignment again; then nothing changes.
    ShareGroupHeartbeatResponseData again = heartbeat("a", 2, null);
    assertThat(again.memberEpoch()).isEqualTo(3);
    assertThat(again.assignment()).isNotNull();
    assertThat(heartbeat("a", 3, null).assignment()).isNull();

    // A grown topic moves the epoch (4); the new partition is initialized (5) and assigned.
    partitions(4);
    ShareGroupHeartbeatResponseData grown = heartbeat("a", 3, null);
    assertThat(grown.memberEpoch()).isEqualTo(5);
    assertThat(partitionsOf(grown)).containsExactly(0, 1, 2, 3);

    ShareGroup group = shard.share().group(GROUP).orElseThrow();
    assertThat(group.stateName()).isEqualTo("Stable");
    assertThat(shard.share().describe(GROUP).members()).hasSize(2);
  }

  @Test
  void kafkasErrors() {
    assertThat(heartbeat("", 0, List.of("orders")).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(heartbeat("a", 0, null).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(heartbeat("a", 3, null).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    heartbeat("a", 0, List.of("orders"));
    assertThat(heartbeat("z", 1, null).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    assertThat(heartbeat("a", 5, null).errorCode()).isEqualTo(Errors.FENCED_MEMBER_EPOCH.code());
  }

  @Test
  void leavingAndTimingOutRemoveMembersAndTheEmptyGroupCanBeDeleted() {
    heartbeat("a", 0, List.of("orders"));
    heartbeat("b", 0, List.of("orders"));

    assertThat(heartbeat("a", -1, null).memberEpoch()).isEqualTo(-1);
    assertThat(shard.share().group(GROUP).orElseThrow().members()).containsOnlyKeys("b");
    context.advance(GroupConfig.Share.defaults().sessionTimeoutMs());
    ShareGroup group = shard.share().group(GROUP).orElseThrow();
    assertThat(group.isEmpty()).isTrue();
    assertThat(group.stateName()).isEqualTo("Empty");
    // The group's epoch record and the record of its state partitions (what it was assigned).
    assertThat(group.tombstones())
        .extracting(r -> r.type())
        .containsExactlyInAnyOrder(
            ShareGroupRecords.STATE_PARTITIONS, ShareGroupRecords.GROUP_METADATA);
    assertThat(group.statePartitions().get(ORDERS).partitions()).containsExactlyInAnyOrder(0, 1, 2);
  }

  @Test
  void aReloadedShardHasTheGroupAndItsMembers() {
    heartbeat("a", 0, List.of("orders"));
    heartbeat("b", 0, List.of("orders"));
    heartbeat("b", -1, null);

    GroupCoordinatorShard fresh = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.replayInto(fresh);
    fresh.onLoaded();
    ShareGroup group = fresh.share().group(GROUP).orElseThrow();
    assertThat(group.groupEpoch()).isEqualTo(4);
    assertThat(group.members()).containsOnlyKeys("a");
    assertThat(group.member("a").orElseThrow().memberEpoch()).isEqualTo(4);
    assertThat(group.initialized().get(ORDERS).partitions()).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(group.initializing()).isEmpty();
    assertThat(group.member("a").orElseThrow().subscribedTopicNames()).containsExactly("orders");
  }

  @Test
  void shareStateIsInitializedBeforeAMemberIsGivenAPartition() {
    ShareGroupManager.HeartbeatOutcome joined = send("a", 0, List.of("orders"));
    // The member is given nothing yet: its partitions are initializing, recorded as such.
    assertThat(joined.response().assignment().topicPartitions()).isEmpty();
    ShareGroupManager.Initialization init = joined.initialization();
    assertThat(init.stateEpoch()).isEqualTo(1);
    // A topic new to the group: its leaders resolve share.auto.offset.reset (start offset -1).
    assertThat(init.partitions())
        .containsExactly(
            new ShareGroupManager.InitPartition(ORDERS, 0, -1),
            new ShareGroupManager.InitPartition(ORDERS, 1, -1),
            new ShareGroupManager.InitPartition(ORDERS, 2, -1));
    ShareGroup group = shard.share().group(GROUP).orElseThrow();
    assertThat(group.initializing().get(ORDERS).partitions()).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(group.statePartitions().get(ORDERS).partitions()).containsExactlyInAnyOrder(0, 1, 2);
    // Another heartbeat meanwhile does not start them again.
    assertThat(send("b", 0, List.of("orders")).initialization()).isNull();

    // Partition 1 failed: 0 and 2 are given to the member at a new epoch, 1 is tried again.
    ShareGroupHeartbeatResponseData answered =
        shard
            .share()
            .completeInitialization(
                init,
                Set.of(
                    new ShareGroup.PartitionId(ORDERS, 0), new ShareGroup.PartitionId(ORDERS, 2)),
                Set.of(new ShareGroup.PartitionId(ORDERS, 1)),
                joined.response())
            .join();
    assertThat(answered.memberEpoch()).isEqualTo(group.groupEpoch());
    assertThat(partitionsOf(answered)).containsExactly(0, 2);
    // (with the start offset it was first given)
    ShareGroupManager.HeartbeatOutcome retried = send("a", answered.memberEpoch(), null);
    assertThat(retried.initialization().partitions())
        .containsExactly(new ShareGroupManager.InitPartition(ORDERS, 1, -1));
    shard
        .share()
        .completeInitialization(
            retried.initialization(), ids(retried.initialization()), Set.of(), retried.response())
        .join();
    assertThat(group.initialized().get(ORDERS).partitions()).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(group.initializing()).isEmpty();

    // A partition added to a topic the group knows starts at offset 0: nothing written to it
    // before its leader's first fetch is skipped.
    partitions(4);
    int bEpoch = group.member("b").orElseThrow().memberEpoch();
    assertThat(send("b", bEpoch, null).initialization().partitions())
        .containsExactly(new ShareGroupManager.InitPartition(ORDERS, 3, 0));
  }

  @Test
  void anInitializationLostWithItsCoordinatorIsStartedAgainByTheNextOne() {
    ShareGroupManager.HeartbeatOutcome joined = send("a", 0, List.of("orders"));
    assertThat(joined.initialization()).isNotNull();

    // The coordinator moves before the share coordinators answered: the new one sees the
    // partitions as initializing since an unknown time, and starts them again.
    GroupCoordinatorShard fresh = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.replayInto(fresh);
    fresh.onLoaded();
    assertThat(fresh.share().group(GROUP).orElseThrow().initializing().get(ORDERS).partitions())
        .containsExactlyInAnyOrder(0, 1, 2);
    shard = fresh;
    context.attach(fresh);
    ShareGroupManager.HeartbeatOutcome again = send("a", 1, null);
    assertThat(again.initialization().partitions()).hasSize(3);
  }

  @Test
  void aConsumerGroupIdIsNotAShareGroup() {
    shard
        .consumer()
        .heartbeat(
            new io.brook.coordinator.group.consumer.HeartbeatClient("c", "/h", "conn", (short) 0),
            new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId("c1")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(5000)
                .setSubscribedTopicNames(List.of("orders"))
                .setTopicPartitions(List.of()))
        .join();
    assertThat(heartbeat("a", 0, List.of("orders")).errorCode())
        .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL.code());
  }
}
