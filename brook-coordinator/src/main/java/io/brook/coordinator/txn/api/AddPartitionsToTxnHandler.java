package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddPartitionsToTxn: the producer's form (versions 0 to 3, one transaction) adds partitions; the
 * batched form (4+) carries several transactions, each adding or, for brokers (KIP-890), only
 * verifying that its partitions are in the transaction; a broker's add (verifyOnly false) is the
 * implicit add of a transaction protocol V2 producer's first write to a partition. A partition of
 * an unknown topic fails the whole transaction's request: UNKNOWN_TOPIC_OR_PARTITION for it,
 * OPERATION_NOT_ATTEMPTED for the rest, as Kafka answers.
 */
public final class AddPartitionsToTxnHandler extends GroupApi {
  private static final short BATCHED_VERSION = 4;

  private final TransactionCoordinator coordinator;

  public AddPartitionsToTxnHandler(TransactionCoordinator coordinator) {
    super(ApiKeys.ADD_PARTITIONS_TO_TXN);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    AddPartitionsToTxnRequestData request = (AddPartitionsToTxnRequestData) message;
    if (context.apiVersion() < BATCHED_VERSION) {
      return serve(
              request.v3AndBelowTransactionalId(),
              request.v3AndBelowProducerId(),
              request.v3AndBelowProducerEpoch(),
              false,
              false,
              request.v3AndBelowTopics())
          .thenApply(
              errors ->
                  new AddPartitionsToTxnResponseData()
                      .setResultsByTopicV3AndBelow(
                          AddPartitionsResults.byTopic(errors).topicResults()));
    }
    List<CompletableFuture<AddPartitionsToTxnResult>> results = new ArrayList<>();
    for (AddPartitionsToTxnTransaction txn : request.transactions()) {
      results.add(
          serve(
                  txn.transactionalId(),
                  txn.producerId(),
                  txn.producerEpoch(),
                  txn.verifyOnly(),
                  true,
                  txn.topics())
              .thenApply(
                  errors ->
                      AddPartitionsResults.byTopic(errors)
                          .setTransactionalId(txn.transactionalId())));
    }
    return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
              results.forEach(r -> response.resultsByTransaction().add(r.join()));
              return response;
            });
  }

  /** One transaction's partitions and their errors; never fails. */
  private CompletableFuture<Map<TopicPartition, Errors>> serve(
      String id,
      long producerId,
      short producerEpoch,
      boolean verifyOnly,
      boolean batched,
      AddPartitionsToTxnTopicCollection topics) {
    Set<TopicPartition> partitions = new LinkedHashSet<>();
    for (AddPartitionsToTxnTopic topic : topics) {
      for (int p : topic.partitions()) {
        partitions.add(new TopicPartition(topic.name(), p));
      }
    }
    if (id == null || id.isEmpty()) {
      return CompletableFuture.completedFuture(all(partitions, Errors.INVALID_REQUEST));
    }
    Map<TopicPartition, Errors> unknown = unknownPartitions(partitions);
    if (!unknown.isEmpty()) {
      return CompletableFuture.completedFuture(unknown);
    }
    CompletableFuture<Map<TopicPartition, Errors>> result =
        coordinator.run(
            id,
            shard ->
                verifyOnly
                    ? CompletableFuture.completedFuture(
                        shard.verifyPartitions(id, producerId, producerEpoch, partitions))
                    : (batched
                            ? shard.addPartitionsV2(id, producerId, producerEpoch, partitions)
                            : shard.addPartitions(id, producerId, producerEpoch, partitions))
                        .thenApply(error -> all(partitions, error)));
    return result.exceptionally(failure -> all(partitions, errorOf(failure)));
  }

  private Map<TopicPartition, Errors> unknownPartitions(Set<TopicPartition> partitions) {
    MetadataImage image = coordinator.image();
    Map<TopicPartition, Errors> errors = new HashMap<>();
    boolean anyUnknown = false;
    for (TopicPartition tp : partitions) {
      boolean known = image.partition(tp.topic(), tp.partition()).isPresent();
      anyUnknown |= !known;
      errors.put(tp, known ? Errors.OPERATION_NOT_ATTEMPTED : Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return anyUnknown ? errors : Map.of();
  }

  private static Map<TopicPartition, Errors> all(Set<TopicPartition> partitions, Errors error) {
    Map<TopicPartition, Errors> errors = new HashMap<>();
    partitions.forEach(tp -> errors.put(tp, error));
    return errors;
  }
}
