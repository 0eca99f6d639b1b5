package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.TransactionCoordinator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddOffsetsToTxn: adds the group's {@code __consumer_offsets} partition to the transaction, so its
 * markers make the transaction's offset commits visible (or drop them).
 */
public final class AddOffsetsToTxnHandler extends GroupApi {
  static final String OFFSETS_TOPIC = "__consumer_offsets";

  private final TransactionCoordinator coordinator;
  private final ToIntFunction<String> groupPartition;

  /**
   * @param groupPartition the {@code __consumer_offsets} partition of a group id
   */
  public AddOffsetsToTxnHandler(
      TransactionCoordinator coordinator, ToIntFunction<String> groupPartition) {
    super(ApiKeys.ADD_OFFSETS_TO_TXN);
    this.coordinator = coordinator;
    this.groupPartition = groupPartition;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    AddOffsetsToTxnRequestData request = (AddOffsetsToTxnRequestData) message;
    String id = request.transactionalId();
    if (id == null || id.isEmpty() || !isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(response(Errors.INVALID_REQUEST));
    }
    TopicPartition offsets =
        new TopicPartition(OFFSETS_TOPIC, groupPartition.applyAsInt(request.groupId()));
    return coordinator
        .run(
            id,
            shard ->
                shard.addPartitions(
                    id, request.producerId(), request.producerEpoch(), Set.of(offsets)))
        .handle((error, failure) -> response(failure != null ? errorOf(failure) : error));
  }

  private static ApiMessage response(Errors error) {
    return new AddOffsetsToTxnResponseData().setErrorCode(error.code());
  }
}
