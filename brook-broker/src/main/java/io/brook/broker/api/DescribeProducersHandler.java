package io.brook.broker.api;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.storage.producer.ProducerStateEntry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** DescribeProducers: the idempotent producers a partition leader currently remembers. */
public final class DescribeProducersHandler extends KafkaApi {
  private final ReplicaManager replicaManager;

  public DescribeProducersHandler(ReplicaManager replicaManager) {
    super(ApiKeys.DESCRIBE_PRODUCERS);
    this.replicaManager = replicaManager;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeProducersRequestData request = (DescribeProducersRequestData) message;
    DescribeProducersResponseData response = new DescribeProducersResponseData();
    for (DescribeProducersRequestData.TopicRequest topic : request.topics()) {
      TopicResponse topicResponse = new TopicResponse().setName(topic.name());
      response.topics().add(topicResponse);
      for (int index : topic.partitionIndexes()) {
        PartitionResponse out = new PartitionResponse().setPartitionIndex(index);
        topicResponse.partitions().add(out);
        try {
          Partition partition =
              replicaManager.partitionOrThrow(new TopicPartition(topic.name(), index));
          partition.ensureLeader();
          for (ProducerStateEntry entry : partition.log().activeProducers().values()) {
            out.activeProducers()
                .add(
                    new ProducerState()
                        .setProducerId(entry.producerId())
                        .setProducerEpoch(entry.producerEpoch())
                        .setLastSequence(entry.lastSequence())
                        .setLastTimestamp(entry.lastTimestamp())
                        .setCoordinatorEpoch(entry.coordinatorEpoch())
                        .setCurrentTxnStartOffset(entry.currentTxnFirstOffset().orElse(-1L)));
          }
        } catch (RuntimeException e) {
          ApiFailure failure = ApiFailure.of(e);
          out.setErrorCode(failure.code()).setErrorMessage(failure.message());
        }
      }
    }
    return CompletableFuture.completedFuture(response);
  }
}
