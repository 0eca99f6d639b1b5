package io.brook.coordinator.group.classic;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordType;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;

/**
 * The classic group record (type 2), written and read with Kafka's generated {@code
 * GroupMetadataKey} (the group id) and {@code GroupMetadataValue}: Brook writes value version 3
 * (protocol type, generation, protocol, leader, state timestamp, members with their instance id,
 * client id and host, timeouts, subscription and assignment), as Kafka does, and reads versions 3
 * and 4 (4 is the same fields in the flexible encoding). Older versions lack fields Brook relies on
 * and are refused as malformed. A tombstone (null value) deletes the group.
 */
public final class ClassicGroupRecords {
  public static final short KEY_TYPE = CoordinatorRecordType.GROUP_METADATA.id();
  private static final short VALUE_VERSION = 3;
  private static final short HIGHEST_VALUE_VERSION = 4;

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
    List<GroupMetadataValue.MemberMetadata> members = new ArrayList<>(group.members().size());
    for (PersistedMember m : group.members()) {
      members.add(
          new GroupMetadataValue.MemberMetadata()
              .setMemberId(m.memberId())
              .setGroupInstanceId(m.groupInstanceId())
              .setClientId(m.clientId())
              .setClientHost(m.clientHost())
              .setRebalanceTimeout(m.rebalanceTimeoutMs())
              .setSessionTimeout(m.sessionTimeoutMs())
              .setSubscription(m.subscription())
              .setAssignment(m.assignment()));
    }
    return GeneratedRecords.record(
        key(group.groupId()),
        VALUE_VERSION,
        new GroupMetadataValue()
            .setProtocolType(group.protocolType() == null ? "" : group.protocolType())
            .setGeneration(group.generationId())
            .setProtocol(group.protocolName())
            .setLeader(group.leaderId())
            .setCurrentStateTimestamp(group.stateTimestampMs())
            .setMembers(members));
  }

  public static CoordinatorRecord tombstone(String groupId) {
    return GeneratedRecords.tombstone(key(groupId));
  }

  private static GroupMetadataKey key(String groupId) {
    return new GroupMetadataKey().setGroup(groupId);
  }

  /**
   * @throws io.brook.coordinator.runtime.MalformedRecordException if the key does not parse
   */
  public static String readGroupId(CoordinatorRecord record) {
    return GeneratedRecords.readKey(record, GroupMetadataKey::new).group();
  }

  /**
   * Reads a value of version 3 or 4.
   *
   * @throws io.brook.coordinator.runtime.MalformedRecordException for another version or bytes that
   *     do not parse
   */
  public static PersistedGroup readValue(String groupId, CoordinatorRecord record) {
    GroupMetadataValue value =
        GeneratedRecords.readValue(
            record, VALUE_VERSION, HIGHEST_VALUE_VERSION, GroupMetadataValue::new);
    List<PersistedMember> members = new ArrayList<>(value.members().size());
    for (GroupMetadataValue.MemberMetadata m : value.members()) {
      members.add(
          new PersistedMember(
              m.memberId(),
              m.groupInstanceId(),
              m.clientId(),
              m.clientHost(),
              m.rebalanceTimeout(),
              m.sessionTimeout(),
              m.subscription(),
              m.assignment()));
    }
    return new PersistedGroup(
        groupId,
        value.protocolType(),
        value.generation(),
        value.protocol(),
        value.leader(),
        value.currentStateTimestamp(),
        members);
  }
}
