package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.offsets.OffsetService.CommitRequest;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.service.RequestInfo;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit: checks every partition exists, then has the group's coordinator validate the
 * committer and write the offsets; answers once they are durable in {@code __consumer_offsets}.
 */
public final class OffsetCommitHandler extends GroupApi {
  /** Topics are given by id from this version on. */
  private static final short TOPIC_ID_VERSION = 10;

  private final GroupCoordinator coordinator;

  public OffsetCommitHandler(GroupCoordinator coordinator) {
    super(ApiKeys.OFFSET_COMMIT);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    OffsetCommitRequestData request = (OffsetCommitRequestData) message;
    boolean byId = context.apiVersion() >= TOPIC_ID_VERSION;
    TopicResolver resolver = new TopicResolver(coordinator.image());
    ResolvedOffsetCommits<OffsetCommitRequestTopic> resolved =
        ResolvedOffsetCommits.resolve(
            resolver,
            byId,
            request.topics(),
            OffsetCommitRequestTopic::name,
            OffsetCommitRequestTopic::topicId,
            OffsetCommitRequestTopic::partitions,
            OffsetCommitRequestPartition::partitionIndex,
            p ->
                new PartitionCommit(
                    p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata()));
    Map<TopicPartition, PartitionCommit> offsets = resolved.offsets();
    CompletableFuture<Map<TopicPartition, Errors>> result;
    if (!isValidGroupId(request.groupId())) {
      result =
          CompletableFuture.completedFuture(
              ResolvedOffsetCommits.allFailed(offsets, Errors.INVALID_GROUP_ID));
    } else if (offsets.isEmpty()) {
      result = CompletableFuture.completedFuture(Map.of());
    } else {
      CommitRequest commit =
          new CommitRequest(
              request.groupId(),
              request.memberId(),
              request.groupInstanceId(),
              request.generationIdOrMemberEpoch(),
              context.apiVersion(),
              offsets);
      result =
          coordinator
              .run(request.groupId(), shard -> shard.offsetService().commit(commit))
              .exceptionally(failure -> ResolvedOffsetCommits.allFailed(offsets, errorOf(failure)));
    }
    return result.thenApply(errors -> response(request, resolved, errors));
  }

  private static ApiMessage response(
      OffsetCommitRequestData request,
      ResolvedOffsetCommits<OffsetCommitRequestTopic> resolved,
      Map<TopicPartition, Errors> written) {
    OffsetCommitResponseData response = new OffsetCommitResponseData();
    for (OffsetCommitRequestTopic topic : request.topics()) {
      OffsetCommitResponseTopic out =
          new OffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
      response.topics().add(out);
      for (OffsetCommitRequestPartition p : topic.partitions()) {
        Errors error = resolved.outcome(topic, p.partitionIndex(), written);
        out.partitions()
            .add(
                new OffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.code()));
      }
    }
    return response;
  }
}
