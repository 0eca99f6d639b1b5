package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupCoordinatorShard;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupDescribe (KIP-848): a group that is not a consumer group (or does not exist) answers
 * GROUP_ID_NOT_FOUND, upon which Kafka's Admin client falls back to DescribeGroups.
 */
public final class ConsumerGroupDescribeHandler extends GroupDescribeApi<DescribedGroup> {
  public ConsumerGroupDescribeHandler(GroupCoordinator coordinator) {
    super(ApiKeys.CONSUMER_GROUP_DESCRIBE, coordinator);
  }

  @Override
  List<String> groupIds(ApiMessage request) {
    return ((ConsumerGroupDescribeRequestData) request).groupIds();
  }

  @Override
  DescribedGroup describe(GroupCoordinatorShard shard, String groupId) {
    return shard.consumer().describe(groupId);
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
    return new ConsumerGroupDescribeResponseData().setGroups(groups);
  }
}
