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
    return send(apiKey, version, request, false);
  }

  /**
   * Sends a forwarded admin request, which may take long on the controller: waits up to {@link
   * ControllerChannel#LONG_CALL_TIMEOUT_MS} and is never sent twice after a timeout.
   */
  public CompletableFuture<ApiMessage> sendAdmin(
      ApiKeys apiKey, short version, ApiMessage request) {
    return sendAdmin(apiKey, version, request, ControllerEnvelope.Origin.NODE);
  }

  /** As {@link #sendAdmin(ApiKeys, short, ApiMessage)}, on behalf of a client ({@code origin}). */
  public CompletableFuture<ApiMessage> sendAdmin(
      ApiKeys apiKey, short version, ApiMessage request, ControllerEnvelope.Origin origin) {
    return send(apiKey, version, request, true, origin);
  }

  private CompletableFuture<ApiMessage> send(
      ApiKeys apiKey, short version, ApiMessage request, boolean longCall) {
    return send(apiKey, version, request, longCall, ControllerEnvelope.Origin.NODE);
  }

  private CompletableFuture<ApiMessage> send(
      ApiKeys apiKey,
      short version,
      ApiMessage request,
      boolean longCall,
      ControllerEnvelope.Origin origin) {
    byte[] bytes = ControllerEnvelope.encodeRequest(apiKey, version, request, origin);
    return (longCall ? channel.callLong(bytes) : channel.call(bytes))
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
