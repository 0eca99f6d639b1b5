package io.brook.broker.api.group;

import io.brook.broker.api.txn.TxnOffsetCommitAdd;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.InternalTopicCreator;
import io.brook.coordinator.service.GroupCoordinatorService;
import io.brook.protocol.ApiHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/** The Kafka APIs the group coordinator serves, and FindCoordinator for every coordinator. */
public final class GroupApis {
  private GroupApis() {}

  /**
   * @param transactionTopic where transactional ids' coordinators live, for FindCoordinator
   * @param shareStateTopic where share-partitions' coordinators live, for FindCoordinator
   * @param txnVerifier adds the offsets partition to a transaction protocol V2 producer's
   *     transaction before its TxnOffsetCommit (version 5+)
   */
  public static List<ApiHandler> handlers(
      GroupCoordinatorService groups,
      ReplicaManager replicaManager,
      InternalTopicCreator topicCreator,
      InternalTopic transactionTopic,
      InternalTopic shareStateTopic,
      TxnPartitionVerifier txnVerifier) {
    List<ApiHandler> handlers = new ArrayList<>();
    handlers.add(
        new FindCoordinatorHandler(
            replicaManager,
            topicCreator,
            Map.of(
                CoordinatorType.GROUP,
                groups.offsetsTopic(),
                CoordinatorType.TRANSACTION,
                transactionTopic,
                CoordinatorType.SHARE,
                shareStateTopic)));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.OFFSET_COMMIT,
            groups.maxVersion(ApiKeys.OFFSET_COMMIT),
            OffsetCommitRequestData.class,
            groups::commitOffsets));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.TXN_OFFSET_COMMIT,
            groups.maxVersion(ApiKeys.TXN_OFFSET_COMMIT),
            TxnOffsetCommitRequestData.class,
            TxnOffsetCommitAdd.wrap(groups, txnVerifier, groups::commitTransactionalOffsets)));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.OFFSET_FETCH,
            groups.maxVersion(ApiKeys.OFFSET_FETCH),
            OffsetFetchRequestData.class,
            groups::fetchOffsets));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.OFFSET_DELETE,
            groups.maxVersion(ApiKeys.OFFSET_DELETE),
            OffsetDeleteRequestData.class,
            groups::deleteOffsets));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.LIST_GROUPS,
            groups.maxVersion(ApiKeys.LIST_GROUPS),
            ListGroupsRequestData.class,
            groups::listGroups));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.DELETE_GROUPS,
            groups.maxVersion(ApiKeys.DELETE_GROUPS),
            DeleteGroupsRequestData.class,
            groups::deleteGroups));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.JOIN_GROUP,
            groups.maxVersion(ApiKeys.JOIN_GROUP),
            JoinGroupRequestData.class,
            groups::joinGroup));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.SYNC_GROUP,
            groups.maxVersion(ApiKeys.SYNC_GROUP),
            SyncGroupRequestData.class,
            groups::syncGroup));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.HEARTBEAT,
            groups.maxVersion(ApiKeys.HEARTBEAT),
            HeartbeatRequestData.class,
            groups::heartbeat));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.LEAVE_GROUP,
            groups.maxVersion(ApiKeys.LEAVE_GROUP),
            LeaveGroupRequestData.class,
            groups::leaveGroup));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.DESCRIBE_GROUPS,
            groups.maxVersion(ApiKeys.DESCRIBE_GROUPS),
            DescribeGroupsRequestData.class,
            groups::describeGroups));
    if (groups.consumerProtocolEnabled()) {
      handlers.add(
          new CoordinatorApi<>(
              ApiKeys.CONSUMER_GROUP_HEARTBEAT,
              groups.maxVersion(ApiKeys.CONSUMER_GROUP_HEARTBEAT),
              ConsumerGroupHeartbeatRequestData.class,
              groups::consumerGroupHeartbeat));
      handlers.add(
          new CoordinatorApi<>(
              ApiKeys.CONSUMER_GROUP_DESCRIBE,
              groups.maxVersion(ApiKeys.CONSUMER_GROUP_DESCRIBE),
              ConsumerGroupDescribeRequestData.class,
              groups::consumerGroupDescribe));
    }
    // Share groups (KIP-932): served while the cluster's share.version feature is 1 or more.
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.SHARE_GROUP_HEARTBEAT,
            groups.maxVersion(ApiKeys.SHARE_GROUP_HEARTBEAT),
            ShareGroupHeartbeatRequestData.class,
            groups::shareGroupHeartbeat));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.SHARE_GROUP_DESCRIBE,
            groups.maxVersion(ApiKeys.SHARE_GROUP_DESCRIBE),
            ShareGroupDescribeRequestData.class,
            groups::shareGroupDescribe));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
            groups.maxVersion(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS),
            DescribeShareGroupOffsetsRequestData.class,
            groups::describeShareGroupOffsets));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
            groups.maxVersion(ApiKeys.ALTER_SHARE_GROUP_OFFSETS),
            AlterShareGroupOffsetsRequestData.class,
            groups::alterShareGroupOffsets));
    handlers.add(
        new CoordinatorApi<>(
            ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
            groups.maxVersion(ApiKeys.DELETE_SHARE_GROUP_OFFSETS),
            DeleteShareGroupOffsetsRequestData.class,
            groups::deleteShareGroupOffsets));
    return handlers;
  }
}
