package io.brook.broker.api;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.storage.epoch.EpochEndOffset;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * OffsetForLeaderEpoch (KIP-101, KIP-320): the end offset of a leader epoch as this leader knows
 * it, so a returning replica or a consumer after a leader change can find where its log diverged.
 */
public final class OffsetForLeaderEpochHandler extends KafkaApi {
  private final ReplicaManager replicaManager;

  public OffsetForLeaderEpochHandler(ReplicaManager replicaManager) {
    super(ApiKeys.OFFSET_FOR_LEADER_EPOCH);
    this.replicaManager = replicaManager;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    OffsetForLeaderEpochRequestData request = (OffsetForLeaderEpochRequestData) message;
    OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
    for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.topics()) {
      OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(topic.topic());
      response.topics().add(result);
      for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : topic.partitions()) {
        OffsetForLeaderEpochResponseData.EpochEndOffset out =
            new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(p.partition())
                .setLeaderEpoch(-1)
                .setEndOffset(-1L);
        result.partitions().add(out);
        try {
          Partition partition =
              replicaManager.partitionOrThrow(new TopicPartition(topic.topic(), p.partition()));
          partition.checkLeaderEpoch(
              p.currentLeaderEpoch() < 0 ? Optional.empty() : Optional.of(p.currentLeaderEpoch()));
          partition.ensureLeader();
          EpochEndOffset end = partition.log().endOffsetForEpoch(p.leaderEpoch());
          out.setLeaderEpoch(end.epoch()).setEndOffset(end.endOffset());
        } catch (RuntimeException e) {
          out.setErrorCode(ApiFailure.of(e).code());
        }
      }
    }
    return CompletableFuture.completedFuture(response);
  }
}
