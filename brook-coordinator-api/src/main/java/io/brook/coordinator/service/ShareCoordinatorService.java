package io.brook.coordinator.service;

import io.brook.coordinator.InternalTopic;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;

/**
 * The share coordinator (KIP-932) as the broker calls it: the durable state of share-partitions in
 * {@code __share_group_state}. Partition leaders call it, over the network or directly when they
 * host the coordinator. Errors are answered per partition inside the response; the futures do not
 * fail.
 */
public interface ShareCoordinatorService {
  /** The coordinator topic, {@code __share_group_state}, as FindCoordinator creates it. */
  InternalTopic stateTopic();

  /** The {@code __share_group_state} partition that owns {@code key} ({@code group:topicId:p}). */
  int partitionFor(String key);

  CompletableFuture<InitializeShareGroupStateResponseData> initializeShareGroupState(
      RequestInfo info, InitializeShareGroupStateRequestData request);

  CompletableFuture<ReadShareGroupStateResponseData> readShareGroupState(
      RequestInfo info, ReadShareGroupStateRequestData request);

  CompletableFuture<WriteShareGroupStateResponseData> writeShareGroupState(
      RequestInfo info, WriteShareGroupStateRequestData request);

  CompletableFuture<DeleteShareGroupStateResponseData> deleteShareGroupState(
      RequestInfo info, DeleteShareGroupStateRequestData request);

  CompletableFuture<ReadShareGroupStateSummaryResponseData> readShareGroupStateSummary(
      RequestInfo info, ReadShareGroupStateSummaryRequestData request);
}
