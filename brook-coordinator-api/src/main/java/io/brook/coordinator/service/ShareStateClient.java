package io.brook.coordinator.service;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Reaches the share coordinator of any share-partition (KIP-932), wherever it runs: how the group
 * coordinator reads, resets and deletes a share group's durable state for the share-group admin
 * APIs. Each call concerns one share-partition ({@code groupId:topicId:partition}); the futures do
 * not fail, an unreachable coordinator answers COORDINATOR_NOT_AVAILABLE.
 */
public interface ShareStateClient {
  /** The share-partition's state summary: start offset -1 when it was never initialized. */
  CompletableFuture<ReadShareGroupStateSummaryResponseData.PartitionResult> readSummary(
      String groupId, Uuid topicId, int partition);

  /** Starts the share-partition's state over at {@code startOffset} with {@code stateEpoch}. */
  CompletableFuture<Errors> initialize(
      String groupId, Uuid topicId, int partition, int stateEpoch, long startOffset);

  /** Deletes the share-partition's state (NONE when there was none). */
  CompletableFuture<Errors> delete(String groupId, Uuid topicId, int partition);
}
