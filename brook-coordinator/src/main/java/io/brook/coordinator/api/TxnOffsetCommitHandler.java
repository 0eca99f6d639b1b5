package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.group.offsets.TransactionalOffsetCommits.TxnCommitRequest;
import io.brook.coordinator.service.RequestInfo;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit: checks every partition exists, then has the group's coordinator validate the
 * committer and write the offsets as part of the producer's transaction; answers once they are
 * durable in {@code __consumer_offsets}, where they wait for the transaction's marker.
 *
 * <p>Not done here (as Kafka 3.x+ does): verifying with the transaction coordinator that the
 * producer added the group's partition to its transaction (KIP-890 verification); the producer's
 * AddOffsetsToTxn is trusted.
 */
public final class TxnOffsetCommitHandler extends GroupApi {
  /** Topics are given by id from this version on (KIP-1319). */
  private static final short TOPIC_ID_VERSION = 6;

  private final GroupCoordinator coordinator;

  public TxnOffsetCommitHandler(GroupCoordinator coordinator) {
    super(ApiKeys.TXN_OFFSET_COMMIT);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    TxnOffsetCommitRequestData request = (TxnOffsetCommitRequestData) message;
    boolean byId = context.apiVersion() >= TOPIC_ID_VERSION;
    TopicResolver resolver = new TopicResolver(coordinator.image());
    ResolvedOffsetCommits<TxnOffsetCommitRequestTopic> resolved =
        ResolvedOffsetCommits.resolve(
            resolver,
            byId,
            request.topics(),
            TxnOffsetCommitRequestTopic::name,
            TxnOffsetCommitRequestTopic::topicId,
            TxnOffsetCommitRequestTopic::partitions,
            TxnOffsetCommitRequestPartition::partitionIndex,
            p ->
                new PartitionCommit(
                    p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata()));
    Map<TopicPartition, PartitionCommit> offsets = resolved.offsets();
    return commit(request, context.apiVersion(), offsets)
        .thenApply(errors -> response(request, resolved, errors));
  }

  private CompletableFuture<Map<TopicPartition, Errors>> commit(
      TxnOffsetCommitRequestData request,
      short apiVersion,
      Map<TopicPartition, PartitionCommit> offsets) {
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          ResolvedOffsetCommits.allFailed(offsets, Errors.INVALID_GROUP_ID));
    }
    if (offsets.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    TxnCommitRequest commit =
        new TxnCommitRequest(
            request.transactionalId(),
            request.groupId(),
            request.producerId(),
            request.producerEpoch(),
            request.memberId(),
            request.groupInstanceId(),
            request.generationIdOrMemberEpoch(),
            apiVersion,
            offsets);
    return coordinator
        .run(request.groupId(), shard -> shard.transactionalOffsets().commit(commit))
        .exceptionally(failure -> ResolvedOffsetCommits.allFailed(offsets, errorOf(failure)));
  }

  private static ApiMessage response(
      TxnOffsetCommitRequestData request,
      ResolvedOffsetCommits<TxnOffsetCommitRequestTopic> resolved,
      Map<TopicPartition, Errors> written) {
    TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
    for (TxnOffsetCommitRequestTopic topic : request.topics()) {
      TxnOffsetCommitResponseTopic out =
          new TxnOffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
      response.topics().add(out);
      for (TxnOffsetCommitRequestPartition p : topic.partitions()) {
        Errors error = resolved.outcome(topic, p.partitionIndex(), written);
        out.partitions()
            .add(
                new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.code()));
      }
    }
    return response;
  }
}
