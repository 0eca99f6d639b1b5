package io.brook.coordinator.service;

import io.brook.coordinator.InternalTopic;
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
 * The group coordinator as the broker's API layer calls it: one method per Kafka group API, taking
 * the decoded request body and {@link RequestInfo} and completing with the whole response body, in
 * the shape of the request's version. Coordinator errors (NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, ...) are answered inside the response; a future that fails anyway
 * is answered by the API layer with the API's generic error response for that failure.
 */
public interface GroupCoordinatorService {
  /**
   * The newest version of {@code api} this coordinator serves (the oldest is kafka-clients'
   * oldest); the broker advertises and accepts no more.
   */
  short maxVersion(ApiKeys api);

  /** The coordinator topic, {@code __consumer_offsets}, as FindCoordinator creates it. */
  InternalTopic offsetsTopic();

  /**
   * Whether the KIP-848 consumer protocol is enabled ({@code
   * group.coordinator.rebalance.protocols}).
   */
  boolean consumerProtocolEnabled();

  /** The {@code __consumer_offsets} partition that owns {@code groupId}. */
  int partitionFor(String groupId);

  CompletableFuture<JoinGroupResponseData> joinGroup(
      RequestInfo info, JoinGroupRequestData request);

  CompletableFuture<SyncGroupResponseData> syncGroup(
      RequestInfo info, SyncGroupRequestData request);

  CompletableFuture<HeartbeatResponseData> heartbeat(
      RequestInfo info, HeartbeatRequestData request);

  CompletableFuture<LeaveGroupResponseData> leaveGroup(
      RequestInfo info, LeaveGroupRequestData request);

  CompletableFuture<DescribeGroupsResponseData> describeGroups(
      RequestInfo info, DescribeGroupsRequestData request);

  CompletableFuture<ListGroupsResponseData> listGroups(
      RequestInfo info, ListGroupsRequestData request);

  CompletableFuture<DeleteGroupsResponseData> deleteGroups(
      RequestInfo info, DeleteGroupsRequestData request);

  CompletableFuture<OffsetCommitResponseData> commitOffsets(
      RequestInfo info, OffsetCommitRequestData request);

  CompletableFuture<TxnOffsetCommitResponseData> commitTransactionalOffsets(
      RequestInfo info, TxnOffsetCommitRequestData request);

  CompletableFuture<OffsetFetchResponseData> fetchOffsets(
      RequestInfo info, OffsetFetchRequestData request);

  CompletableFuture<OffsetDeleteResponseData> deleteOffsets(
      RequestInfo info, OffsetDeleteRequestData request);

  CompletableFuture<ConsumerGroupHeartbeatResponseData> consumerGroupHeartbeat(
      RequestInfo info, ConsumerGroupHeartbeatRequestData request);

  CompletableFuture<ConsumerGroupDescribeResponseData> consumerGroupDescribe(
      RequestInfo info, ConsumerGroupDescribeRequestData request);

  /**
   * ShareGroupHeartbeat (KIP-932); answers UNSUPPORTED_VERSION while the cluster's {@code
   * share.version} feature is 0, as Kafka does.
   */
  CompletableFuture<ShareGroupHeartbeatResponseData> shareGroupHeartbeat(
      RequestInfo info, ShareGroupHeartbeatRequestData request);

  CompletableFuture<ShareGroupDescribeResponseData> shareGroupDescribe(
      RequestInfo info, ShareGroupDescribeRequestData request);

  /**
   * DescribeShareGroupOffsets: the start offsets of a share group's share-partitions, read from
   * their share coordinators.
   */
  CompletableFuture<DescribeShareGroupOffsetsResponseData> describeShareGroupOffsets(
      RequestInfo info, DescribeShareGroupOffsetsRequestData request);

  /** AlterShareGroupOffsets: resets an empty share group's share-partitions. */
  CompletableFuture<AlterShareGroupOffsetsResponseData> alterShareGroupOffsets(
      RequestInfo info, AlterShareGroupOffsetsRequestData request);

  /** DeleteShareGroupOffsets: deletes an empty share group's state of whole topics. */
  CompletableFuture<DeleteShareGroupOffsetsResponseData> deleteShareGroupOffsets(
      RequestInfo info, DeleteShareGroupOffsetsRequestData request);

  /**
   * A client connection closed: the coordinator drops what was tied to it (a classic member whose
   * join is parked on it). Quick, never throws; called on the connection's event loop.
   */
  void onConnectionClosed(String connectionId);
}
