package io.brook.coordinator.group.share;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataValue;

/**
 * The records of share groups (KIP-932) in {@code __consumer_offsets}, written and read with
 * Kafka's generated {@code ShareGroup*Key}/{@code *Value} classes at value version 0:
 *
 * <pre>
 * type key             value
 * 10   group, member   member metadata: rack, client id/host, subscribed names (tombstone: left)
 * 11   group           group epoch                                     (tombstone: group gone)
 * </pre>
 *
 * Brook derives a share group's assignment from its members' subscriptions and the metadata image
 * (every member gets every partition of the topics it subscribes to), so it writes no assignment
 * records (Kafka's types 12 to 15); loading a partition Kafka wrote ignores them.
 */
public final class ShareGroupRecords {
  public static final short MEMBER_METADATA = 10;
  public static final short GROUP_METADATA = 11;

  private static final short VALUE_VERSION = 0;

  private ShareGroupRecords() {}

  /** The decoded key; {@code memberId} is null for the group key. */
  public record Key(String groupId, String memberId) {}

  public static boolean handles(short type) {
    return type == MEMBER_METADATA || type == GROUP_METADATA;
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
