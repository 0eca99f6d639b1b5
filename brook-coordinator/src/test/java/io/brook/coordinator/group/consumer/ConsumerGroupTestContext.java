package io.brook.coordinator.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.testing.FakeShardContext;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;

/** A shard on a fake context with topics, and helpers to drive consumer group members. */
final class ConsumerGroupTestContext {
  static final String GROUP = "orders-app";

  final FakeShardContext context = new FakeShardContext(0, 1_000_000L);
  final GroupConfig config;
  GroupCoordinatorShard shard;
  private final Map<String, Uuid> topicIds = new HashMap<>();
  private final List<MetadataRecord> metadata = new ArrayList<>();

  ConsumerGroupTestContext() {
    this(GroupConfig.defaults());
  }

  ConsumerGroupTestContext(GroupConfig config) {
    this.config = config;
    this.shard = new GroupCoordinatorShard(context, config);
    context.attach(shard);
    shard.onLoaded();
  }

  /** Creates a topic, or adds partitions to it, and tells the shard. */
  ConsumerGroupTestContext topic(String name, int partitions) {
    Uuid id = topicIds.computeIfAbsent(name, n -> new Uuid(n.hashCode(), 42L));
    int existing =
        (int)
            metadata.stream()
                .filter(r -> r instanceof PartitionRecord p && p.topicId().equals(id))
                .count();
    if (existing == 0) {
      metadata.add(new TopicRecord(name, id));
    }
    for (int p = existing; p < partitions; p++) {
      metadata.add(new PartitionRecord(id, p, List.of(1), List.of(1), 1, 0, 0));
    }
    MetadataImage image = MetadataImage.EMPTY.apply(List.copyOf(metadata), metadata.size() - 1L);
    context.setImage(image);
    shard.onMetadata(image);
    return this;
  }

  Uuid topicId(String name) {
    return topicIds.get(name);
  }

  TopicIdPartition tp(String topic, int partition) {
    return new TopicIdPartition(topicId(topic), partition);
  }

  ConsumerGroupManager consumer() {
    return shard.consumer();
  }

  ConsumerGroup group() {
    return consumer().group(GROUP).orElseThrow();
  }

  ConsumerGroupMember member(String memberId) {
    return group().member(memberId).orElseThrow();
  }

  ConsumerGroupHeartbeatResponseData heartbeat(ConsumerGroupHeartbeatRequestData request) {
    return consumer()
        .heartbeat(
            new HeartbeatClient(
                "client-" + request.memberId(),
                "/127.0.0.1",
                "conn-" + request.memberId(),
                (short) 1),
            request)
        .join();
  }

  static ConsumerGroupHeartbeatRequestData join(String memberId, String... topics) {
    return new ConsumerGroupHeartbeatRequestData()
        .setGroupId(GROUP)
        .setMemberId(memberId)
        .setMemberEpoch(0)
        .setRebalanceTimeoutMs(300_000)
        .setSubscribedTopicNames(List.of(topics))
        .setTopicPartitions(new ArrayList<>());
  }

  /** A heartbeat reporting what the member owns now (its assignment in the last response). */
  ConsumerGroupHeartbeatRequestData beat(String memberId, int epoch, Set<TopicIdPartition> owned) {
    List<ConsumerGroupHeartbeatRequestData.TopicPartitions> partitions =
        owned == null ? null : new ArrayList<>();
    ConsumerGroupRecords.byTopic(owned == null ? Set.of() : owned)
        .forEach(
            (topic, ids) ->
                partitions.add(
                    new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                        .setTopicId(topic)
                        .setPartitions(ids)));
    return new ConsumerGroupHeartbeatRequestData()
        .setGroupId(GROUP)
        .setMemberId(memberId)
        .setMemberEpoch(epoch)
        .setTopicPartitions(partitions);
  }

  static Set<TopicIdPartition> partitions(ConsumerGroupHeartbeatResponseData response) {
    Set<TopicIdPartition> out = new TreeSet<>();
    if (response.assignment() != null) {
      for (ConsumerGroupHeartbeatResponseData.TopicPartitions tp :
          response.assignment().topicPartitions()) {
        tp.partitions().forEach(p -> out.add(new TopicIdPartition(tp.topicId(), p)));
      }
    }
    return out;
  }

  /** No partition is owned (assigned or being revoked) by two members. */
  void assertSingleOwners() {
    Map<TopicIdPartition, String> owners = new HashMap<>();
    for (ConsumerGroupMember member : group().members().values()) {
      Set<TopicIdPartition> all = new TreeSet<>(member.assignment().assigned());
      all.addAll(member.assignment().pendingRevocation());
      for (TopicIdPartition tp : all) {
        assertThat(owners.put(tp, member.memberId())).as("%s owned twice", tp).isNull();
      }
    }
  }

  /** Replays everything written into a fresh shard and checks it rebuilt the same groups. */
  void assertReplayRebuildsSameState() {
    FakeShardContext freshContext = new FakeShardContext(0, context.nowMs());
    freshContext.setImage(context.image());
    GroupCoordinatorShard fresh = new GroupCoordinatorShard(freshContext, config);
    freshContext.attach(fresh);
    context.replayInto(fresh);
    assertThat(fresh.consumer().group(GROUP).map(ConsumerGroup::snapshot))
        .isEqualTo(consumer().group(GROUP).map(ConsumerGroup::snapshot));
  }
}
