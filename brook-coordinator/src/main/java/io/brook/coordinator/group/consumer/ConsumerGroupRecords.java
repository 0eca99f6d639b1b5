package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The records of KIP-848 consumer groups in {@code __consumer_offsets}, numbered like Kafka's key
 * versions. Keys name the group (and member), so compaction keeps the latest of each:
 *
 * <pre>
 * type key             value (version 0)
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
 * Values start with a 2-byte version (0), then the fields in kafka-clients' protocol encoding
 * (strings and arrays length-prefixed). Reading checks every length against the bytes left, so a
 * corrupt record fails with a {@link org.apache.kafka.common.protocol.types.SchemaException}
 * instead of allocating what its prefix claims. The layout follows Kafka's in spirit but is not
 * byte-compatible with it.
 */
public final class ConsumerGroupRecords {
  public static final short GROUP_METADATA = 3;
  public static final short PARTITION_METADATA = 4;
  public static final short MEMBER_METADATA = 5;
  public static final short TARGET_ASSIGNMENT_METADATA = 6;
  public static final short TARGET_ASSIGNMENT_MEMBER = 7;
  public static final short CURRENT_MEMBER_ASSIGNMENT = 8;

  private static final short VALUE_VERSION = 0;

  private static final Schema GROUP_KEY = new Schema(new Field("group", Type.STRING));
  private static final Schema MEMBER_KEY =
      new Schema(new Field("group", Type.STRING), new Field("member", Type.STRING));
  private static final Schema EPOCH = new Schema(new Field("epoch", Type.INT32));
  private static final Schema TOPIC =
      new Schema(
          new Field("topic_id", Type.UUID),
          new Field("topic_name", Type.STRING),
          new Field("num_partitions", Type.INT32));
  private static final Schema PARTITION_METADATA_VALUE =
      new Schema(new Field("topics", new ArrayOf(TOPIC)));
  private static final Schema MEMBER_METADATA_VALUE =
      new Schema(
          new Field("instance_id", Type.NULLABLE_STRING),
          new Field("rack_id", Type.NULLABLE_STRING),
          new Field("client_id", Type.STRING),
          new Field("client_host", Type.STRING),
          new Field("subscribed_topic_names", new ArrayOf(Type.STRING)),
          new Field("subscribed_topic_regex", Type.NULLABLE_STRING),
          new Field("rebalance_timeout_ms", Type.INT32),
          new Field("server_assignor", Type.NULLABLE_STRING));
  private static final Schema TOPIC_PARTITIONS =
      new Schema(
          new Field("topic_id", Type.UUID), new Field("partitions", new ArrayOf(Type.INT32)));
  private static final Schema TARGET_MEMBER_VALUE =
      new Schema(new Field("partitions", new ArrayOf(TOPIC_PARTITIONS)));
  private static final Schema CURRENT_ASSIGNMENT_VALUE =
      new Schema(
          new Field("member_epoch", Type.INT32),
          new Field("previous_member_epoch", Type.INT32),
          new Field("state", Type.INT8),
          new Field("assigned", new ArrayOf(TOPIC_PARTITIONS)),
          new Field("pending_revocation", new ArrayOf(TOPIC_PARTITIONS)));

  private ConsumerGroupRecords() {}

  /** The decoded key of a consumer group record; {@code memberId} is null for group keys. */
  public record Key(String groupId, String memberId) {}

  public static boolean handles(short type) {
    return type >= GROUP_METADATA && type <= CURRENT_MEMBER_ASSIGNMENT;
  }

  private static boolean isMemberKey(short type) {
    return type == MEMBER_METADATA
        || type == TARGET_ASSIGNMENT_MEMBER
        || type == CURRENT_MEMBER_ASSIGNMENT;
  }

  // ---- writing

  public static CoordinatorRecord groupEpoch(String groupId, int epoch) {
    return new CoordinatorRecord(GROUP_METADATA, groupKey(groupId), epochValue(epoch));
  }

  public static CoordinatorRecord partitionMetadata(
      String groupId, Collection<TopicMetadata> topics) {
    Struct value = new Struct(PARTITION_METADATA_VALUE);
    List<Struct> out = new ArrayList<>();
    for (TopicMetadata topic : topics) {
      Struct t = value.instance("topics");
      t.set("topic_id", topic.id());
      t.set("topic_name", topic.name());
      t.set("num_partitions", topic.numPartitions());
      out.add(t);
    }
    value.set("topics", out.toArray());
    return new CoordinatorRecord(PARTITION_METADATA, groupKey(groupId), encode(value));
  }

  public static CoordinatorRecord memberMetadata(
      String groupId, String memberId, MemberSubscription subscription) {
    Struct value = new Struct(MEMBER_METADATA_VALUE);
    value.set("instance_id", subscription.instanceId());
    value.set("rack_id", subscription.rackId());
    value.set("client_id", subscription.clientId());
    value.set("client_host", subscription.clientHost());
    value.set("subscribed_topic_names", subscription.subscribedTopicNames().toArray());
    value.set("subscribed_topic_regex", subscription.subscribedTopicRegex());
    value.set("rebalance_timeout_ms", subscription.rebalanceTimeoutMs());
    value.set("server_assignor", subscription.serverAssignor());
    return new CoordinatorRecord(MEMBER_METADATA, memberKey(groupId, memberId), encode(value));
  }

  public static CoordinatorRecord targetAssignmentEpoch(String groupId, int epoch) {
    return new CoordinatorRecord(TARGET_ASSIGNMENT_METADATA, groupKey(groupId), epochValue(epoch));
  }

  public static CoordinatorRecord targetAssignment(
      String groupId, String memberId, SortedSet<TopicIdPartition> partitions) {
    Struct value = new Struct(TARGET_MEMBER_VALUE);
    value.set("partitions", topicPartitions(value, "partitions", partitions));
    return new CoordinatorRecord(
        TARGET_ASSIGNMENT_MEMBER, memberKey(groupId, memberId), encode(value));
  }

  public static CoordinatorRecord currentAssignment(
      String groupId, String memberId, MemberAssignment assignment) {
    Struct value = new Struct(CURRENT_ASSIGNMENT_VALUE);
    value.set("member_epoch", assignment.memberEpoch());
    value.set("previous_member_epoch", assignment.previousMemberEpoch());
    value.set("state", assignment.state().code());
    value.set("assigned", topicPartitions(value, "assigned", assignment.assigned()));
    value.set(
        "pending_revocation",
        topicPartitions(value, "pending_revocation", assignment.pendingRevocation()));
    return new CoordinatorRecord(
        CURRENT_MEMBER_ASSIGNMENT, memberKey(groupId, memberId), encode(value));
  }

  /** The tombstones that delete one member: current assignment, target, then metadata. */
  public static List<CoordinatorRecord> memberTombstones(String groupId, String memberId) {
    ByteBuffer key = memberKey(groupId, memberId);
    return List.of(
        CoordinatorRecord.tombstone(CURRENT_MEMBER_ASSIGNMENT, key.duplicate()),
        CoordinatorRecord.tombstone(TARGET_ASSIGNMENT_MEMBER, key.duplicate()),
        CoordinatorRecord.tombstone(MEMBER_METADATA, key.duplicate()));
  }

  /** The tombstones of the group-level records, group epoch last. */
  public static List<CoordinatorRecord> groupTombstones(String groupId) {
    ByteBuffer key = groupKey(groupId);
    return List.of(
        CoordinatorRecord.tombstone(TARGET_ASSIGNMENT_METADATA, key.duplicate()),
        CoordinatorRecord.tombstone(PARTITION_METADATA, key.duplicate()),
        CoordinatorRecord.tombstone(GROUP_METADATA, key.duplicate()));
  }

  private static Object[] topicPartitions(
      Struct parent, String field, SortedSet<TopicIdPartition> partitions) {
    Map<Uuid, List<Integer>> byTopic = new LinkedHashMap<>();
    for (TopicIdPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topicId(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<Struct> out = new ArrayList<>();
    byTopic.forEach(
        (topic, ids) -> {
          Struct s = parent.instance(field);
          s.set("topic_id", topic);
          s.set("partitions", ids.toArray());
          out.add(s);
        });
    return out.toArray();
  }

  private static ByteBuffer groupKey(String groupId) {
    Struct key = new Struct(GROUP_KEY);
    key.set("group", groupId);
    return encodeBare(key);
  }

  private static ByteBuffer memberKey(String groupId, String memberId) {
    Struct key = new Struct(MEMBER_KEY);
    key.set("group", groupId);
    key.set("member", memberId);
    return encodeBare(key);
  }

  private static ByteBuffer epochValue(int epoch) {
    Struct value = new Struct(EPOCH);
    value.set("epoch", epoch);
    return encode(value);
  }

  private static ByteBuffer encodeBare(Struct struct) {
    ByteBuffer bytes = ByteBuffer.allocate(struct.sizeOf());
    struct.writeTo(bytes);
    return bytes.flip();
  }

  private static ByteBuffer encode(Struct struct) {
    ByteBuffer bytes = ByteBuffer.allocate(2 + struct.sizeOf());
    bytes.putShort(VALUE_VERSION);
    struct.writeTo(bytes);
    return bytes.flip();
  }

  // ---- reading

  /**
   * Decodes the key of a record of types 3 to 8.
   *
   * @throws org.apache.kafka.common.protocol.types.SchemaException if the key does not parse
   */
  public static Key readKey(CoordinatorRecord record) {
    if (isMemberKey(record.type())) {
      Struct key = MEMBER_KEY.read(record.key().duplicate());
      return new Key(key.getString("group"), key.getString("member"));
    }
    return new Key(GROUP_KEY.read(record.key().duplicate()).getString("group"), null);
  }

  public static int readEpoch(CoordinatorRecord record) {
    return read(EPOCH, record).getInt("epoch");
  }

  public static List<TopicMetadata> readPartitionMetadata(CoordinatorRecord record) {
    List<TopicMetadata> topics = new ArrayList<>();
    for (Object o : read(PARTITION_METADATA_VALUE, record).getArray("topics")) {
      Struct t = (Struct) o;
      topics.add(
          new TopicMetadata(
              (Uuid) t.get("topic_id"), t.getString("topic_name"), t.getInt("num_partitions")));
    }
    return topics;
  }

  public static MemberSubscription readMemberMetadata(CoordinatorRecord record) {
    Struct v = read(MEMBER_METADATA_VALUE, record);
    List<String> names = new ArrayList<>();
    for (Object o : v.getArray("subscribed_topic_names")) {
      names.add((String) o);
    }
    return new MemberSubscription(
        v.getString("instance_id"),
        v.getString("rack_id"),
        v.getString("client_id"),
        v.getString("client_host"),
        names,
        v.getString("subscribed_topic_regex"),
        v.getInt("rebalance_timeout_ms"),
        v.getString("server_assignor"));
  }

  public static SortedSet<TopicIdPartition> readTargetAssignment(CoordinatorRecord record) {
    return readTopicPartitions(read(TARGET_MEMBER_VALUE, record).getArray("partitions"));
  }

  public static MemberAssignment readCurrentAssignment(CoordinatorRecord record) {
    Struct v = read(CURRENT_ASSIGNMENT_VALUE, record);
    return new MemberAssignment(
        v.getInt("member_epoch"),
        v.getInt("previous_member_epoch"),
        MemberState.fromCode((Byte) v.get("state")),
        readTopicPartitions(v.getArray("assigned")),
        readTopicPartitions(v.getArray("pending_revocation")));
  }

  private static SortedSet<TopicIdPartition> readTopicPartitions(Object[] topics) {
    SortedSet<TopicIdPartition> out = new TreeSet<>();
    for (Object o : topics) {
      Struct t = (Struct) o;
      Uuid topic = (Uuid) t.get("topic_id");
      for (Object p : t.getArray("partitions")) {
        out.add(new TopicIdPartition(topic, (Integer) p));
      }
    }
    return out;
  }

  private static Struct read(Schema schema, CoordinatorRecord record) {
    ByteBuffer buffer = record.value().duplicate();
    short version = buffer.getShort();
    if (version != VALUE_VERSION) {
      throw new IllegalArgumentException(
          "unsupported consumer group record version " + version + " of type " + record.type());
    }
    return schema.read(buffer);
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
