package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AllocateProducerIds, a controller API: hands a broker a block of producer ids recorded in the
 * metadata log, so ids stay unique across brokers and restarts.
 */
public final class AllocateProducerIdsHandler extends KafkaApi {
  private final TopicAdmin admin;

  public AllocateProducerIdsHandler(TopicAdmin admin) {
    super(ApiKeys.ALLOCATE_PRODUCER_IDS);
    this.admin = admin;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AllocateProducerIdsRequestData request = (AllocateProducerIdsRequestData) message;
    AllocateProducerIdsResponseData response = new AllocateProducerIdsResponseData();
    try {
      var block = admin.allocateProducerIds(request.brokerId(), request.brokerEpoch());
      response.setProducerIdStart(block.firstProducerId()).setProducerIdLen(block.size());
    } catch (RuntimeException e) {
      response.setErrorCode(ApiFailure.of(e).code());
    }
    return CompletableFuture.completedFuture(response);
  }
}
