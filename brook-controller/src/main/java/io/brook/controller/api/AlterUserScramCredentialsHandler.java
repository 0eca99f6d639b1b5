package io.brook.controller.api;

import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ScramControl;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterUserScramCredentials (KIP-554), decided by the active controller ({@link ScramControl}): a
 * broker forwards it there like the other admin APIs. Runs off the event loop (it waits for the
 * quorum).
 */
public final class AlterUserScramCredentialsHandler extends KafkaApi {
  private final MetadataQuorum quorum;

  public AlterUserScramCredentialsHandler(MetadataQuorum quorum) {
    super(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS);
    this.quorum = quorum;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    AlterUserScramCredentialsRequestData alter = (AlterUserScramCredentialsRequestData) request;
    return CompletableFuture.completedFuture(
        quorum.submit(image -> ScramControl.alter(image, alter)));
  }
}
