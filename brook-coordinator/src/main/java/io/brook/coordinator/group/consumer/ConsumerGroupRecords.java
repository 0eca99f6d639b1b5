package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataValue;

/**
 * The records of KIP-848 consumer groups in {@code __consumer_offsets}, written and read with
 * Kafka's generated {@code ConsumerGroup*Key}/{@code *Value} classes (value version 0), so they are
 * Kafka's bytes for the same content. Keys name the group (and member), so compaction keeps the
 * latest of each:
 *
 * <pre>
 * type key             value
 * 3    group           group epoch                                       (tombstone: group gone)
 * 4    group           subscribed topics: [id, name, partition count]
 * 5    group, member   member metadata: instance id, rack, client id/host, subscribed names,
 *                      regex, rebalance timeout, server assignor      (tombstone: member gone)
 * 6    group           target assignment epoch
 * 7    group, member   the member's target partitions: [topic id, [partition]]
 * 8    group, member   current assignment: epoch, previous epoch, state, assigned, pending
 *                      revocation
 * </pre>
 *
 * Brook leaves out what it does not track: per-partition racks in type 4 and the metadata hash
 * (tagged) in type 3; type 5 has no classic member metadata (tagged), as Brook's members all speak
 * the consumer protocol. Kafka's type-16 regex records are not written.
 */
public final class ConsumerGroupRecords {
  // Kafka's CoordinatorRecordType ids; constants so that replay can switch on them.
  public static final short GROUP_METADATA = 3;
  public static final short PARTITION_METADATA = 4;
  public static final short MEMBER_METADATA = 5;
  public static final short TARGET_ASSIGNMENT_METADATA = 6;
  public static final short TARGET_ASSIGNMENT_MEMBER = 7;
  public static final short CURRENT_MEMBER_ASSIGNMENT = 8;

  private static final short VALUE_VERSION = 0;

  private ConsumerGroupRecords() {}

  /** The decoded key of a consumer group record; {@code memberId} is null for group keys. */
  public record Key(String groupId, String memberId) {}

  public static boolean handles(short type) {
    return type >= GROUP_METADATA && type <= CURRENT_MEMBER_ASSIGNMENT;
  }

  // ---- writing

  public static CoordinatorRecord groupEpoch(String groupId, int epoch) {
    return GeneratedRecords.record(
        new ConsumerGroupMetadataKey().setGroupId(groupId),
        VALUE_VERSION,
        new ConsumerGroupMetadataValue().setEpoch(epoch));
  }

  public static CoordinatorRecord partitionMetadata(
      String groupId, Collection<TopicMetadata> topics) {
    List<ConsumerGroupPartitionMetadataValue.TopicMetadata> out = new ArrayList<>(topics.size());
    for (TopicMetadata topic : topics) {
      out.add(
          new ConsumerGroupPartitionMetadataValue.TopicMetadata()
              .setTopicId(topic.id())
              .setTopicName(topic.name())
              .setNumPartitions(topic.numPartitions()));
    }
    return GeneratedRecords.record(
        new ConsumerGroupPartitionMetadataKey().setGroupId(groupId),
        VALUE_VERSION,
        new ConsumerGroupPartitionMetadataValue().setTopics(out));
  }

  public static CoordinatorRecord memberMetadata(
      String groupId, String memberId, MemberSubscription subscription) {
    return GeneratedRecords.record(
        new ConsumerGroupMemberMetadataKey().setGroupId(groupId).setMemberId(memberId),
        VALUE_VERSION,
        new ConsumerGroupMemberMetadataValue()
            .setInstanceId(subscription.instanceId())
            .setRackId(subscription.rackId())
            .setClientId(subscription.clientId())
            .setClientHost(subscription.clientHost())
            .setSubscribedTopicNames(subscription.subscribedTopicNames())
            .setSubscribedTopicRegex(subscription.subscribedTopicRegex())
            .setRebalanceTimeoutMs(subscription.rebalanceTimeoutMs())
            .setServerAssignor(subscription.serverAssignor())
            // a member of the consumer protocol: no classic protocols (the default is an empty
            // set of them, which would mark it a classic member)
            .setClassicMemberMetadata(null));
  }

  public static CoordinatorRecord targetAssignmentEpoch(String groupId, int epoch) {
    return GeneratedRecords.record(
        new ConsumerGroupTargetAssignmentMetadataKey().setGroupId(groupId),
        VALUE_VERSION,
        new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(epoch));
  }

  public static CoordinatorRecord targetAssignment(
      String groupId, String memberId, SortedSet<TopicIdPartition> partitions) {
    return GeneratedRecords.record(
        new ConsumerGroupTargetAssignmentMemberKey().setGroupId(groupId).setMemberId(memberId),
        VALUE_VERSION,
        new ConsumerGroupTargetAssignmentMemberValue()
            .setTopicPartitions(
                grouped(
                    partitions,
                    (topic, ids) ->
                        new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                            .setTopicId(topic)
                            .setPartitions(ids))));
  }

  public static CoordinatorRecord currentAssignment(
      String groupId, String memberId, MemberAssignment assignment) {
    return GeneratedRecords.record(
        currentAssignmentKey(groupId, memberId),
        VALUE_VERSION,
        new ConsumerGroupCurrentMemberAssignmentValue()
            .setMemberEpoch(assignment.memberEpoch())
            .setPreviousMemberEpoch(assignment.previousMemberEpoch())
            .setState(assignment.state().code())
            .setAssignedPartitions(
                grouped(assignment.assigned(), ConsumerGroupRecords::assignedTopic))
            .setPartitionsPendingRevocation(
                grouped(assignment.pendingRevocation(), ConsumerGroupRecords::assignedTopic)));
  }

  private static ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions assignedTopic(
      Uuid topic, List<Integer> ids) {
    return new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
        .setTopicId(topic)
        .setPartitions(ids);
  }

  private static ConsumerGroupCurrentMemberAssignmentKey currentAssignmentKey(
      String groupId, String memberId) {
    return new ConsumerGroupCurrentMemberAssignmentKey().setGroupId(groupId).setMemberId(memberId);
  }

  /** The tombstones that delete one member: current assignment, target, then metadata. */
  public static List<CoordinatorRecord> memberTombstones(String groupId, String memberId) {
    return List.of(
        GeneratedRecords.tombstone(currentAssignmentKey(groupId, memberId)),
        GeneratedRecords.tombstone(
            new ConsumerGroupTargetAssignmentMemberKey().setGroupId(groupId).setMemberId(memberId)),
        GeneratedRecords.tombstone(
            new ConsumerGroupMemberMetadataKey().setGroupId(groupId).setMemberId(memberId)));
  }

  /** The tombstones of the group-level records, group epoch last. */
  public static List<CoordinatorRecord> groupTombstones(String groupId) {
    return List.of(
        GeneratedRecords.tombstone(
            new ConsumerGroupTargetAssignmentMetadataKey().setGroupId(groupId)),
        GeneratedRecords.tombstone(new ConsumerGroupPartitionMetadataKey().setGroupId(groupId)),
        GeneratedRecords.tombstone(new ConsumerGroupMetadataKey().setGroupId(groupId)));
  }

  /** Partitions grouped by topic, in the set's order: one entry per topic. */
  private static <T> List<T> grouped(
      SortedSet<TopicIdPartition> partitions, BiFunction<Uuid, List<Integer>, T> entry) {
    Map<Uuid, List<Integer>> byTopic = new LinkedHashMap<>();
    for (TopicIdPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topicId(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<T> out = new ArrayList<>(byTopic.size());
    byTopic.forEach((topic, ids) -> out.add(entry.apply(topic, ids)));
    return out;
  }

  // ---- reading

  /**
   * Decodes the key of a record of types 3 to 8.
   *
   * @throws io.brook.coordinator.runtime.MalformedRecordException if the key does not parse
   */
  public static Key readKey(CoordinatorRecord record) {
    return switch (record.type()) {
      case MEMBER_METADATA -> {
        ConsumerGroupMemberMetadataKey k =
            GeneratedRecords.readKey(record, ConsumerGroupMemberMetadataKey::new);
        yield new Key(k.groupId(), k.memberId());
      }
      case TARGET_ASSIGNMENT_MEMBER -> {
        ConsumerGroupTargetAssignmentMemberKey k =
            GeneratedRecords.readKey(record, ConsumerGroupTargetAssignmentMemberKey::new);
        yield new Key(k.groupId(), k.memberId());
      }
      case CURRENT_MEMBER_ASSIGNMENT -> {
        ConsumerGroupCurrentMemberAssignmentKey k =
            GeneratedRecords.readKey(record, ConsumerGroupCurrentMemberAssignmentKey::new);
        yield new Key(k.groupId(), k.memberId());
      }
      case PARTITION_METADATA ->
          new Key(
              GeneratedRecords.readKey(record, ConsumerGroupPartitionMetadataKey::new).groupId(),
              null);
      case TARGET_ASSIGNMENT_METADATA ->
          new Key(
              GeneratedRecords.readKey(record, ConsumerGroupTargetAssignmentMetadataKey::new)
                  .groupId(),
              null);
      default ->
          new Key(GeneratedRecords.readKey(record, ConsumerGroupMetadataKey::new).groupId(), null);
    };
  }

  /** The epoch of a group metadata (type 3) or target assignment metadata (type 6) record. */
  public static int readEpoch(CoordinatorRecord record) {
    if (record.type() == TARGET_ASSIGNMENT_METADATA) {
      return read(record, ConsumerGroupTargetAssignmentMetadataValue::new).assignmentEpoch();
    }
    return read(record, ConsumerGroupMetadataValue::new).epoch();
  }

  public static List<TopicMetadata> readPartitionMetadata(CoordinatorRecord record) {
    List<TopicMetadata> topics = new ArrayList<>();
    for (ConsumerGroupPartitionMetadataValue.TopicMetadata t :
        read(record, ConsumerGroupPartitionMetadataValue::new).topics()) {
      topics.add(new TopicMetadata(t.topicId(), t.topicName(), t.numPartitions()));
    }
    return topics;
  }

  public static MemberSubscription readMemberMetadata(CoordinatorRecord record) {
    ConsumerGroupMemberMetadataValue v = read(record, ConsumerGroupMemberMetadataValue::new);
    return new MemberSubscription(
        v.instanceId(),
        v.rackId(),
        v.clientId(),
        v.clientHost(),
        v.subscribedTopicNames(),
        v.subscribedTopicRegex(),
        v.rebalanceTimeoutMs(),
        v.serverAssignor());
  }

  public static SortedSet<TopicIdPartition> readTargetAssignment(CoordinatorRecord record) {
    SortedSet<TopicIdPartition> out = new TreeSet<>();
    for (ConsumerGroupTargetAssignmentMemberValue.TopicPartition t :
        read(record, ConsumerGroupTargetAssignmentMemberValue::new).topicPartitions()) {
      addAll(out, t.topicId(), t.partitions());
    }
    return out;
  }

  /**
   * @throws IllegalArgumentException for an unknown member state
   */
  public static MemberAssignment readCurrentAssignment(CoordinatorRecord record) {
    ConsumerGroupCurrentMemberAssignmentValue v =
        read(record, ConsumerGroupCurrentMemberAssignmentValue::new);
    return new MemberAssignment(
        v.memberEpoch(),
        v.previousMemberEpoch(),
        MemberState.fromCode(v.state()),
        partitions(v.assignedPartitions()),
        partitions(v.partitionsPendingRevocation()));
  }

  private static SortedSet<TopicIdPartition> partitions(
      List<ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> topics) {
    SortedSet<TopicIdPartition> out = new TreeSet<>();
    for (ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions t : topics) {
      addAll(out, t.topicId(), t.partitions());
    }
    return out;
  }

  private static void addAll(SortedSet<TopicIdPartition> out, Uuid topic, List<Integer> ids) {
    for (int partition : ids) {
      out.add(new TopicIdPartition(topic, partition));
    }
  }

  private static <T> T read(CoordinatorRecord record, GeneratedRecords.Reader<T> reader) {
    return GeneratedRecords.readValue(record, VALUE_VERSION, VALUE_VERSION, reader);
  }

  /** Groups partitions by topic, in order; for responses. */
  public static Map<Uuid, List<Integer>> byTopic(Collection<TopicIdPartition> partitions) {
    Map<Uuid, List<Integer>> byTopic = new TreeMap<>();
    for (TopicIdPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topicId(), t -> new ArrayList<>()).add(tp.partition());
    }
    return byTopic;
  }
}
