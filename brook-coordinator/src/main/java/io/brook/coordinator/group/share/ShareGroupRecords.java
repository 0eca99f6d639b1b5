package io.brook.coordinator.group.share;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataValue;

/**
 * The records of share groups (KIP-932) in {@code __consumer_offsets}, written and read with
 * Kafka's generated {@code ShareGroup*Key}/{@code *Value} classes at value version 0:
 *
 * <pre>
 * type key             value
 * 10   group, member   member metadata: rack, client id/host, subscribed names (tombstone: left)
 * 11   group           group epoch                                     (tombstone: group gone)
 * 15   group           the topic-partitions the group has share state for (tombstone: group gone)
 * </pre>
 *
 * Type 15 lists the topic-partitions the group has share state for, as Kafka's group coordinator
 * does: the initializing ones (the coordinator asked their share coordinators to initialize them)
 * and the initialized ones (they did, or an offset reset did; members are assigned only these).
 * Brook writes no deleting topics: it deletes the state before it takes a topic out.
 *
 * <p>Brook derives a share group's assignment from its members' subscriptions and the metadata
 * image (every member gets every partition of the topics it subscribes to), so it writes no
 * assignment records (Kafka's types 12 to 15); loading a partition Kafka wrote ignores them.
 */
public final class ShareGroupRecords {
  public static final short MEMBER_METADATA = 10;
  public static final short GROUP_METADATA = 11;
  public static final short STATE_PARTITIONS = 15;

  private static final short VALUE_VERSION = 0;

  private ShareGroupRecords() {}

  /** The decoded key; {@code memberId} is null for the group key. */
  public record Key(String groupId, String memberId) {}

  public static boolean handles(short type) {
    return type == MEMBER_METADATA || type == GROUP_METADATA || type == STATE_PARTITIONS;
  }

  public static CoordinatorRecord groupEpoch(String groupId, int epoch) {
    return GeneratedRecords.record(
        new ShareGroupMetadataKey().setGroupId(groupId),
        VALUE_VERSION,
        new ShareGroupMetadataValue().setEpoch(epoch));
  }

  public static CoordinatorRecord member(String groupId, ShareGroupMember member) {
    return GeneratedRecords.record(
        memberKey(groupId, member.memberId()),
        VALUE_VERSION,
        new ShareGroupMemberMetadataValue()
            .setRackId(member.rackId())
            .setClientId(member.clientId())
            .setClientHost(member.clientHost())
            .setSubscribedTopicNames(new ArrayList<>(member.subscribedTopicNames())));
  }

  public static CoordinatorRecord memberTombstone(String groupId, String memberId) {
    return GeneratedRecords.tombstone(memberKey(groupId, memberId));
  }

  /** The initialized topic-partitions, by topic id; none initializing. */
  public static CoordinatorRecord statePartitions(
      String groupId, Map<Uuid, ShareGroup.StateTopic> topics) {
    return statePartitions(groupId, topics, Map.of());
  }

  /** The initialized and the initializing topic-partitions, by topic id. */
  public static CoordinatorRecord statePartitions(
      String groupId,
      Map<Uuid, ShareGroup.StateTopic> initialized,
      Map<Uuid, ShareGroup.StateTopic> initializing) {
    ShareGroupStatePartitionMetadataValue value = new ShareGroupStatePartitionMetadataValue();
    value.setInitializedTopics(infos(initialized));
    value.setInitializingTopics(infos(initializing));
    return GeneratedRecords.record(
        new ShareGroupStatePartitionMetadataKey().setGroupId(groupId), VALUE_VERSION, value);
  }

  private static List<ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> infos(
      Map<Uuid, ShareGroup.StateTopic> topics) {
    List<ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> out = new ArrayList<>();
    topics.forEach(
        (id, topic) ->
            out.add(
                new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo()
                    .setTopicId(id)
                    .setTopicName(topic.name())
                    .setPartitions(new ArrayList<>(new TreeSet<>(topic.partitions())))));
    return out;
  }

  /** A type 15 record's initialized and initializing topic-partitions. */
  public record StatePartitions(
      Map<Uuid, ShareGroup.StateTopic> initialized,
      Map<Uuid, ShareGroup.StateTopic> initializing) {}

  public static CoordinatorRecord statePartitionsTombstone(String groupId) {
    return GeneratedRecords.tombstone(
        new ShareGroupStatePartitionMetadataKey().setGroupId(groupId));
  }

  /**
   * The topic-partitions of a type 15 record, initialized and initializing (deleting topics, which
   * only Kafka writes, are left out: Kafka deletes their state before it forgets them).
   */
  public static StatePartitions readStatePartitions(CoordinatorRecord record) {
    ShareGroupStatePartitionMetadataValue value =
        GeneratedRecords.readValue(
            record, VALUE_VERSION, VALUE_VERSION, ShareGroupStatePartitionMetadataValue::new);
    return new StatePartitions(
        topics(value.initializedTopics()), topics(value.initializingTopics()));
  }

  private static Map<Uuid, ShareGroup.StateTopic> topics(
      List<ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> infos) {
    Map<Uuid, ShareGroup.StateTopic> topics = new LinkedHashMap<>();
    for (ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo t : infos) {
      ShareGroup.StateTopic before = topics.get(t.topicId());
      Set<Integer> partitions = new TreeSet<>(t.partitions());
      if (before != null) {
        partitions.addAll(before.partitions());
      }
      topics.put(t.topicId(), new ShareGroup.StateTopic(t.topicName(), Set.copyOf(partitions)));
    }
    return topics;
  }

  public static CoordinatorRecord groupTombstone(String groupId) {
    return GeneratedRecords.tombstone(new ShareGroupMetadataKey().setGroupId(groupId));
  }

  private static ShareGroupMemberMetadataKey memberKey(String groupId, String memberId) {
    return new ShareGroupMemberMetadataKey().setGroupId(groupId).setMemberId(memberId);
  }

  public static Key readKey(CoordinatorRecord record) {
    if (record.type() == MEMBER_METADATA) {
      ShareGroupMemberMetadataKey key =
          GeneratedRecords.readKey(record, ShareGroupMemberMetadataKey::new);
      return new Key(key.groupId(), key.memberId());
    }
    if (record.type() == STATE_PARTITIONS) {
      return new Key(
          GeneratedRecords.readKey(record, ShareGroupStatePartitionMetadataKey::new).groupId(),
          null);
    }
    return new Key(GeneratedRecords.readKey(record, ShareGroupMetadataKey::new).groupId(), null);
  }

  public static int readEpoch(CoordinatorRecord record) {
    return GeneratedRecords.readValue(
            record, VALUE_VERSION, VALUE_VERSION, ShareGroupMetadataValue::new)
        .epoch();
  }

  /** The member of a member record; its epoch is the group's, set by the caller. */
  public static ShareGroupMember readMember(String memberId, CoordinatorRecord record) {
    ShareGroupMemberMetadataValue value =
        GeneratedRecords.readValue(
            record, VALUE_VERSION, VALUE_VERSION, ShareGroupMemberMetadataValue::new);
    return new ShareGroupMember(
        memberId,
        0,
        value.rackId(),
        value.clientId(),
        value.clientHost(),
        List.copyOf(value.subscribedTopicNames()));
  }
}
