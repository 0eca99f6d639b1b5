package io.brook.coordinator.group.share;

import java.util.List;

/**
 * A member of a share group.
 *
 * @param memberEpoch the group epoch whose assignment the member was last given; not persisted
 *     (after a load every member is at the loaded group epoch)
 */
public record ShareGroupMember(
    String memberId,
    int memberEpoch,
    String rackId,
    String clientId,
    String clientHost,
    List<String> subscribedTopicNames) {

  public ShareGroupMember {
    subscribedTopicNames = List.copyOf(subscribedTopicNames);
  }

  ShareGroupMember withEpoch(int epoch) {
    return new ShareGroupMember(
        memberId, epoch, rackId, clientId, clientHost, subscribedTopicNames);
  }

  /** Whether the persisted part (everything but the epoch) equals {@code other}'s. */
  boolean sameMetadata(ShareGroupMember other) {
    return java.util.Objects.equals(rackId, other.rackId)
        && clientId.equals(other.clientId)
        && clientHost.equals(other.clientHost)
        && subscribedTopicNames.equals(other.subscribedTopicNames);
  }
}
