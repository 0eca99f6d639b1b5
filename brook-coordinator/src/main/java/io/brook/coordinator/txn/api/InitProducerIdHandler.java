package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.InitProducerIdResult;
import io.brook.coordinator.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for both kinds of producer: an idempotent producer gets a fresh producer id at
 * epoch 0 (unique across brokers and restarts, from controller-allocated blocks); a transactional
 * one is served by its transaction coordinator, which bumps the epoch of a known id.
 */
public final class InitProducerIdHandler extends GroupApi {
  private final TransactionCoordinator coordinator;

  public InitProducerIdHandler(TransactionCoordinator coordinator) {
    super(ApiKeys.INIT_PRODUCER_ID);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    InitProducerIdRequestData request = (InitProducerIdRequestData) message;
    String transactionalId = request.transactionalId();
    if (transactionalId == null) {
      return coordinator
          .allocateProducerId()
          .handle(
              (producerId, failure) ->
                  failure != null
                      ? error(errorOf(failure))
                      : response(InitProducerIdResult.ok(producerId, (short) 0)));
    }
    if (transactionalId.isEmpty()) {
      return CompletableFuture.completedFuture(error(Errors.INVALID_REQUEST));
    }
    if (request.enable2Pc()) {
      // KIP-939 two-phase commit is not offered (transaction.two.phase.commit.enable=false).
      return CompletableFuture.completedFuture(error(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
    }
    int timeoutMs = request.transactionTimeoutMs();
    if (timeoutMs <= 0 || timeoutMs > coordinator.config().maxTimeoutMs()) {
      return CompletableFuture.completedFuture(error(Errors.INVALID_TRANSACTION_TIMEOUT));
    }
    return coordinator
        .initProducerId(transactionalId, timeoutMs, request.producerId(), request.producerEpoch())
        .handle((result, failure) -> failure != null ? error(errorOf(failure)) : response(result));
  }

  private static ApiMessage response(InitProducerIdResult result) {
    return new InitProducerIdResponseData()
        .setErrorCode(result.error().code())
        .setProducerId(result.producerId())
        .setProducerEpoch(result.producerEpoch());
  }

  private static ApiMessage error(Errors error) {
    return response(InitProducerIdResult.error(error));
  }
}
