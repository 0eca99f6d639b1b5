package io.brook.broker.api;

import io.brook.broker.admin.ProducerIdManager;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for idempotent producers: a fresh producer id with epoch 0, unique across
 * restarts. Transactional ids go to the transaction coordinator, which Brook does not run yet:
 * FindCoordinator is not advertised, so clients fail fast with an unsupported-version error, and a
 * transactional request reaching this handler is refused with COORDINATOR_NOT_AVAILABLE.
 */
public final class InitProducerIdHandler extends KafkaApi {
  private final ProducerIdManager producerIds;

  public InitProducerIdHandler(ProducerIdManager producerIds) {
    super(ApiKeys.INIT_PRODUCER_ID);
    this.producerIds = producerIds;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    InitProducerIdRequestData request = (InitProducerIdRequestData) message;
    InitProducerIdResponseData response = new InitProducerIdResponseData();
    if (request.transactionalId() != null) {
      return CompletableFuture.completedFuture(
          response
              .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
              .setProducerId(-1L)
              .setProducerEpoch((short) -1));
    }
    try {
      response.setProducerId(producerIds.nextProducerId()).setProducerEpoch((short) 0);
    } catch (RuntimeException e) {
      response
          .setErrorCode(ApiFailure.of(e).code())
          .setProducerId(-1L)
          .setProducerEpoch((short) -1);
    }
    return CompletableFuture.completedFuture(response);
  }
}
