package io.brook.coordinator.group.classic;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The classic group record (type 2), laid out as Kafka's {@code GroupMetadataKey} (key version 2:
 * the group id) and {@code GroupMetadataValue} version 3, so Kafka's formatter can read it:
 *
 * <pre>
 * value := version:int16(3) protocol_type:string generation:int32 protocol:nullable_string
 *          leader:nullable_string current_state_timestamp:int64 members:[member]
 * member := member_id:string group_instance_id:nullable_string client_id:string
 *           client_host:string rebalance_timeout:int32 session_timeout:int32
 *           subscription:bytes assignment:bytes
 * </pre>
 *
 * A tombstone (null value) deletes the group. Reads are bounded by the record: every length prefix
 * is checked against the bytes that remain before anything is allocated (kafka-clients' {@code
 * Type.BYTES}/{@code ArrayOf} do this), so a corrupt record fails with a {@code SchemaException}
 * rather than a huge allocation.
 */
public final class ClassicGroupRecords {
  public static final short KEY_TYPE = 2;
  private static final short VALUE_VERSION = 3;

  private static final Schema KEY = new Schema(new Field("group", Type.STRING));
  private static final Schema MEMBER =
      new Schema(
          new Field("member_id", Type.STRING),
          new Field("group_instance_id", Type.NULLABLE_STRING),
          new Field("client_id", Type.STRING),
          new Field("client_host", Type.STRING),
          new Field("rebalance_timeout", Type.INT32),
          new Field("session_timeout", Type.INT32),
          new Field("subscription", Type.BYTES),
          new Field("assignment", Type.BYTES));
  private static final Schema VALUE =
      new Schema(
          new Field("protocol_type", Type.STRING),
          new Field("generation", Type.INT32),
          new Field("protocol", Type.NULLABLE_STRING),
          new Field("leader", Type.NULLABLE_STRING),
          new Field("current_state_timestamp", Type.INT64),
          new Field("members", new ArrayOf(MEMBER)));

  private ClassicGroupRecords() {}

  /** A member as persisted: the selected protocol's metadata and the assignment. */
  public record PersistedMember(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      byte[] subscription,
      byte[] assignment) {}

  /** A group generation as persisted. */
  public record PersistedGroup(
      String groupId,
      String protocolType,
      int generationId,
      String protocolName,
      String leaderId,
      long stateTimestampMs,
      List<PersistedMember> members) {
    public PersistedGroup {
      members = List.copyOf(members);
    }
  }

  public static boolean handles(short type) {
    return type == KEY_TYPE;
  }

  public static CoordinatorRecord record(PersistedGroup group) {
    Struct value = new Struct(VALUE);
    value.set("protocol_type", group.protocolType() == null ? "" : group.protocolType());
    value.set("generation", group.generationId());
    value.set("protocol", group.protocolName());
    value.set("leader", group.leaderId());
    value.set("current_state_timestamp", group.stateTimestampMs());
    List<Struct> members = new ArrayList<>();
    for (PersistedMember m : group.members()) {
      Struct member = new Struct(MEMBER);
      member.set("member_id", m.memberId());
      member.set("group_instance_id", m.groupInstanceId());
      member.set("client_id", m.clientId());
      member.set("client_host", m.clientHost());
      member.set("rebalance_timeout", m.rebalanceTimeoutMs());
      member.set("session_timeout", m.sessionTimeoutMs());
      member.set("subscription", ByteBuffer.wrap(m.subscription()));
      member.set("assignment", ByteBuffer.wrap(m.assignment()));
      members.add(member);
    }
    value.set("members", members.toArray());
    ByteBuffer bytes = ByteBuffer.allocate(2 + value.sizeOf());
    bytes.putShort(VALUE_VERSION);
    value.writeTo(bytes);
    bytes.flip();
    return new CoordinatorRecord(KEY_TYPE, key(group.groupId()), bytes);
  }

  public static CoordinatorRecord tombstone(String groupId) {
    return CoordinatorRecord.tombstone(KEY_TYPE, key(groupId));
  }

  private static ByteBuffer key(String groupId) {
    Struct key = new Struct(KEY);
    key.set("group", groupId);
    ByteBuffer bytes = ByteBuffer.allocate(key.sizeOf());
    key.writeTo(bytes);
    bytes.flip();
    return bytes;
  }

  /**
   * @throws org.apache.kafka.common.protocol.types.SchemaException if the key does not parse
   */
  public static String readGroupId(CoordinatorRecord record) {
    return KEY.read(record.key().duplicate()).getString("group");
  }

  /**
   * Reads a value of version 3.
   *
   * @throws IllegalArgumentException for another version
   * @throws org.apache.kafka.common.protocol.types.SchemaException if the bytes do not parse
   */
  public static PersistedGroup readValue(String groupId, CoordinatorRecord record) {
    ByteBuffer buffer = record.value().duplicate();
    short version = buffer.getShort();
    if (version != VALUE_VERSION) {
      throw new IllegalArgumentException("unsupported group metadata value version " + version);
    }
    Struct value = VALUE.read(buffer);
    List<PersistedMember> members = new ArrayList<>();
    for (Object o : value.getArray("members")) {
      Struct m = (Struct) o;
      members.add(
          new PersistedMember(
              m.getString("member_id"),
              m.getString("group_instance_id"),
              m.getString("client_id"),
              m.getString("client_host"),
              m.getInt("rebalance_timeout"),
              m.getInt("session_timeout"),
              bytes(m.getBytes("subscription")),
              bytes(m.getBytes("assignment"))));
    }
    return new PersistedGroup(
        groupId,
        value.getString("protocol_type"),
        value.getInt("generation"),
        value.getString("protocol"),
        value.getString("leader"),
        value.getLong("current_state_timestamp"),
        members);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }
}
