package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupCoordinatorShard;
import java.util.List;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupDescribe (KIP-932): a group that is not a share group (or does not exist) answers
 * GROUP_ID_NOT_FOUND.
 */
public final class ShareGroupDescribeHandler extends GroupDescribeApi<DescribedGroup> {
  public ShareGroupDescribeHandler(GroupCoordinator coordinator) {
    super(ApiKeys.SHARE_GROUP_DESCRIBE, coordinator);
  }

  @Override
  List<String> groupIds(ApiMessage request) {
    return ((ShareGroupDescribeRequestData) request).groupIds();
  }

  @Override
  DescribedGroup describe(GroupCoordinatorShard shard, String groupId) {
    return shard.share().describe(groupId);
  }

  @Override
  DescribedGroup failed(String groupId, Errors error, String message) {
    return new DescribedGroup()
        .setGroupId(groupId)
        .setErrorCode(error.code())
        .setErrorMessage(message);
  }

  @Override
  ApiMessage respond(List<DescribedGroup> groups) {
    return new ShareGroupDescribeResponseData().setGroups(groups);
  }
}
