package io.brook.coordinator.api;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.api.classic.DescribeGroupsHandler;
import io.brook.coordinator.api.classic.HeartbeatHandler;
import io.brook.coordinator.api.classic.JoinGroupHandler;
import io.brook.coordinator.api.classic.LeaveGroupHandler;
import io.brook.coordinator.api.classic.SyncGroupHandler;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.service.GroupCoordinatorService;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.ShareStateClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The group coordinator's service: each Kafka group API served by its {@link GroupApi}, which turns
 * the request into work on the owning shard and the shard's answer into the response of the
 * request's version.
 */
public final class GroupService implements GroupCoordinatorService {
  private final GroupCoordinator coordinator;
  private final GroupApi join;
  private final GroupApi sync;
  private final GroupApi heartbeat;
  private final GroupApi leave;
  private final GroupApi describe;
  private final GroupApi list;
  private final GroupApi delete;
  private final GroupApi commit;
  private final GroupApi txnCommit;
  private final GroupApi fetch;
  private final GroupApi deleteOffsets;
  private final GroupApi consumerHeartbeat;
  private final GroupApi consumerDescribe;
  private final GroupApi shareHeartbeat;
  private final GroupApi shareDescribe;
  private final GroupApi shareDescribeOffsets;
  private final GroupApi shareAlterOffsets;
  private final GroupApi shareDeleteOffsets;
  private final ServedApis served;

  /**
   * @param shareStates reaches the share coordinators, for the share-group admin APIs and for
   *     deleting a share group's state
   */
  public GroupService(GroupCoordinator coordinator, ShareStateClient shareStates) {
    this.coordinator = coordinator;
    ShareAdmin shareAdmin = new ShareAdmin(coordinator, shareStates);
    this.join = new JoinGroupHandler(coordinator);
    this.sync = new SyncGroupHandler(coordinator);
    this.heartbeat = new HeartbeatHandler(coordinator);
    this.leave = new LeaveGroupHandler(coordinator);
    this.describe = new DescribeGroupsHandler(coordinator);
    this.list = new ListGroupsHandler(coordinator);
    this.delete = new DeleteGroupsHandler(shareAdmin);
    this.commit = new OffsetCommitHandler(coordinator);
    this.txnCommit = new TxnOffsetCommitHandler(coordinator);
    this.fetch = new OffsetFetchHandler(coordinator);
    this.deleteOffsets = new OffsetDeleteHandler(coordinator);
    this.consumerHeartbeat = new ConsumerGroupHeartbeatHandler(coordinator);
    this.consumerDescribe = new ConsumerGroupDescribeHandler(coordinator);
    this.shareHeartbeat = new ShareGroupHeartbeatHandler(coordinator, shareStates);
    this.shareDescribe = new ShareGroupDescribeHandler(coordinator);
    this.shareDescribeOffsets = new DescribeShareGroupOffsetsHandler(shareAdmin);
    this.shareAlterOffsets = new AlterShareGroupOffsetsHandler(shareAdmin);
    this.shareDeleteOffsets = new DeleteShareGroupOffsetsHandler(shareAdmin);
    this.served =
        new ServedApis(
            join,
            sync,
            heartbeat,
            leave,
            describe,
            list,
            delete,
            commit,
            txnCommit,
            fetch,
            deleteOffsets,
            consumerHeartbeat,
            consumerDescribe,
            shareHeartbeat,
            shareDescribe,
            shareDescribeOffsets,
            shareAlterOffsets,
            shareDeleteOffsets);
  }

  @Override
  public short maxVersion(ApiKeys api) {
    return served.maxVersion(api);
  }

  @Override
  public InternalTopic offsetsTopic() {
    return coordinator.offsetsTopic();
  }

  @Override
  public boolean consumerProtocolEnabled() {
    return coordinator.config().rebalanceProtocols().contains("consumer");
  }

  @Override
  public int partitionFor(String groupId) {
    return coordinator.partitionFor(groupId);
  }

  @Override
  public CompletableFuture<JoinGroupResponseData> joinGroup(
      RequestInfo info, JoinGroupRequestData request) {
    return join.serve(info, request, JoinGroupResponseData.class);
  }

  @Override
  public CompletableFuture<SyncGroupResponseData> syncGroup(
      RequestInfo info, SyncGroupRequestData request) {
    return sync.serve(info, request, SyncGroupResponseData.class);
  }

  @Override
  public CompletableFuture<HeartbeatResponseData> heartbeat(
      RequestInfo info, HeartbeatRequestData request) {
    return heartbeat.serve(info, request, HeartbeatResponseData.class);
  }

  @Override
  public CompletableFuture<LeaveGroupResponseData> leaveGroup(
      RequestInfo info, LeaveGroupRequestData request) {
    return leave.serve(info, request, LeaveGroupResponseData.class);
  }

  @Override
  public CompletableFuture<DescribeGroupsResponseData> describeGroups(
      RequestInfo info, DescribeGroupsRequestData request) {
    return describe.serve(info, request, DescribeGroupsResponseData.class);
  }

  @Override
  public CompletableFuture<ListGroupsResponseData> listGroups(
      RequestInfo info, ListGroupsRequestData request) {
    return list.serve(info, request, ListGroupsResponseData.class);
  }

  @Override
  public CompletableFuture<DeleteGroupsResponseData> deleteGroups(
      RequestInfo info, DeleteGroupsRequestData request) {
    return delete.serve(info, request, DeleteGroupsResponseData.class);
  }

  @Override
  public CompletableFuture<OffsetCommitResponseData> commitOffsets(
      RequestInfo info, OffsetCommitRequestData request) {
    return commit.serve(info, request, OffsetCommitResponseData.class);
  }

  @Override
  public CompletableFuture<TxnOffsetCommitResponseData> commitTransactionalOffsets(
      RequestInfo info, TxnOffsetCommitRequestData request) {
    return txnCommit.serve(info, request, TxnOffsetCommitResponseData.class);
  }

  @Override
  public CompletableFuture<OffsetFetchResponseData> fetchOffsets(
      RequestInfo info, OffsetFetchRequestData request) {
    return fetch.serve(info, request, OffsetFetchResponseData.class);
  }

  @Override
  public CompletableFuture<OffsetDeleteResponseData> deleteOffsets(
      RequestInfo info, OffsetDeleteRequestData request) {
    return deleteOffsets.serve(info, request, OffsetDeleteResponseData.class);
  }

  @Override
  public CompletableFuture<ConsumerGroupHeartbeatResponseData> consumerGroupHeartbeat(
      RequestInfo info, ConsumerGroupHeartbeatRequestData request) {
    return consumerHeartbeat.serve(info, request, ConsumerGroupHeartbeatResponseData.class);
  }

  @Override
  public CompletableFuture<ConsumerGroupDescribeResponseData> consumerGroupDescribe(
      RequestInfo info, ConsumerGroupDescribeRequestData request) {
    return consumerDescribe.serve(info, request, ConsumerGroupDescribeResponseData.class);
  }

  @Override
  public CompletableFuture<ShareGroupHeartbeatResponseData> shareGroupHeartbeat(
      RequestInfo info, ShareGroupHeartbeatRequestData request) {
    return shareHeartbeat.serve(info, request, ShareGroupHeartbeatResponseData.class);
  }

  @Override
  public CompletableFuture<ShareGroupDescribeResponseData> shareGroupDescribe(
      RequestInfo info, ShareGroupDescribeRequestData request) {
    return shareDescribe.serve(info, request, ShareGroupDescribeResponseData.class);
  }

  @Override
  public CompletableFuture<DescribeShareGroupOffsetsResponseData> describeShareGroupOffsets(
      RequestInfo info, DescribeShareGroupOffsetsRequestData request) {
    return shareDescribeOffsets.serve(info, request, DescribeShareGroupOffsetsResponseData.class);
  }

  @Override
  public CompletableFuture<AlterShareGroupOffsetsResponseData> alterShareGroupOffsets(
      RequestInfo info, AlterShareGroupOffsetsRequestData request) {
    return shareAlterOffsets.serve(info, request, AlterShareGroupOffsetsResponseData.class);
  }

  @Override
  public CompletableFuture<DeleteShareGroupOffsetsResponseData> deleteShareGroupOffsets(
      RequestInfo info, DeleteShareGroupOffsetsRequestData request) {
    return shareDeleteOffsets.serve(info, request, DeleteShareGroupOffsetsResponseData.class);
  }

  @Override
  public void onConnectionClosed(String connectionId) {
    coordinator.onConnectionClosed(connectionId);
  }
}
