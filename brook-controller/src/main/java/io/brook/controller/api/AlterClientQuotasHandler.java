package io.brook.controller.api;

import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ClientQuotaControl;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterClientQuotas (KIP-546), decided by the active controller ({@link ClientQuotaControl}): a
 * broker forwards it there like the other admin APIs, and every broker applies the records from its
 * metadata image. Runs off the event loop (it waits for the quorum).
 */
public final class AlterClientQuotasHandler extends KafkaApi {
  private final MetadataQuorum quorum;

  public AlterClientQuotasHandler(MetadataQuorum quorum) {
    super(ApiKeys.ALTER_CLIENT_QUOTAS);
    this.quorum = quorum;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    AlterClientQuotasRequestData alter = (AlterClientQuotasRequestData) request;
    return CompletableFuture.completedFuture(
        quorum.submit(image -> ClientQuotaControl.alter(alter)));
  }
}
