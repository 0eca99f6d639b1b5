package io.brook.broker.cluster;

import io.brook.metadata.quorum.ControllerChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Sends Kafka requests to the active controller over the quorum's {@link ControllerChannel} and
 * decodes the answers. A call that reaches no controller fails with {@link NotControllerException},
 * which Kafka's clients retry.
 */
public final class ControllerClient {
  private final ControllerChannel channel;

  public ControllerClient(ControllerChannel channel) {
    this.channel = channel;
  }

  /** Sends {@code request} at the newest version kafka-clients knows. */
  public CompletableFuture<ApiMessage> send(ApiKeys apiKey, ApiMessage request) {
    return send(apiKey, apiKey.latestVersion(), request);
  }

  public CompletableFuture<ApiMessage> send(ApiKeys apiKey, short version, ApiMessage request) {
    byte[] bytes = ControllerEnvelope.encodeRequest(apiKey, version, request);
    return channel
        .call(bytes)
        .handle(
            (answer, failure) -> {
              if (failure != null) {
                NotControllerException e =
                    new NotControllerException("no active controller answered: " + failure);
                e.initCause(failure);
                throw new CompletionException(e);
              }
              return ControllerEnvelope.decodeResponse(apiKey, version, answer);
            });
  }
}
