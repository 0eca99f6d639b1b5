package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * EndTxn: commits or aborts the producer's transaction. Answered once PrepareCommit/PrepareAbort is
 * durable; the markers follow. Version 5 is transaction protocol V2 (KIP-890 part 2): the epoch is
 * bumped with every end and the answer carries the producer id and epoch to continue with.
 */
public final class EndTxnHandler extends GroupApi {
  private static final short MAX_VERSION = 5;
  private static final short V2_VERSION = 5;

  private final TransactionCoordinator coordinator;

  public EndTxnHandler(TransactionCoordinator coordinator) {
    super(ApiKeys.END_TXN);
    this.coordinator = coordinator;
  }

  @Override
  public short maxVersion() {
    return MAX_VERSION;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    EndTxnRequestData request = (EndTxnRequestData) message;
    if (request.transactionalId() == null || request.transactionalId().isEmpty()) {
      return CompletableFuture.completedFuture(response(Errors.INVALID_REQUEST));
    }
    if (context.apiVersion() >= V2_VERSION) {
      return coordinator
          .endTxnV2(
              request.transactionalId(),
              request.producerId(),
              request.producerEpoch(),
              request.committed())
          .handle(
              (result, failure) ->
                  failure != null
                      ? response(errorOf(failure))
                      : new EndTxnResponseData()
                          .setErrorCode(result.error().code())
                          .setProducerId(result.producerId())
                          .setProducerEpoch(result.producerEpoch()));
    }
    return coordinator
        .run(
            request.transactionalId(),
            shard ->
                shard.endTxn(
                    request.transactionalId(),
                    request.producerId(),
                    request.producerEpoch(),
                    request.committed()))
        .handle((error, failure) -> response(failure != null ? errorOf(failure) : error));
  }

  private static ApiMessage response(Errors error) {
    return new EndTxnResponseData().setErrorCode(error.code());
  }
}
