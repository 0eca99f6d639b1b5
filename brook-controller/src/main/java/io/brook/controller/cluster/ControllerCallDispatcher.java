package io.brook.controller.cluster;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.cluster.ControllerEnvelope;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import io.brook.protocol.codec.ErrorResponses;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The active controller's side of the controller channel: decodes a {@link ControllerEnvelope},
 * runs the controller handler for its API on {@code executor} (the handlers wait for the quorum,
 * which must never happen on a Ratis or Netty thread) and encodes the answer. A handler failure is
 * answered with the API's own error response, as on a client connection.
 */
public final class ControllerCallDispatcher implements Function<byte[], CompletableFuture<byte[]>> {
  private final Map<ApiKeys, ApiHandler> handlers;
  private final Executor executor;

  public ControllerCallDispatcher(List<ApiHandler> handlers, Executor executor) {
    this.handlers =
        handlers.stream().collect(Collectors.toUnmodifiableMap(ApiHandler::apiKey, h -> h));
    this.executor = executor;
  }

  @Override
  public CompletableFuture<byte[]> apply(byte[] bytes) {
    ControllerEnvelope.Request request;
    try {
      request = ControllerEnvelope.decodeRequest(bytes);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    ApiHandler handler = handlers.get(request.apiKey());
    String clientId = request.origin().clientId();
    RequestHeader header =
        new RequestHeader(
            request.apiKey(),
            request.version(),
            clientId != null ? clientId : "brook-controller-channel",
            0);
    if (handler == null) {
      return CompletableFuture.completedFuture(
          error(header, request, new InvalidRequestException("not a controller API")));
    }
    RequestContext context;
    try {
      context = context(header, request.origin());
    } catch (UnknownHostException e) {
      return CompletableFuture.completedFuture(
          error(header, request, new InvalidRequestException("bad client address")));
    }
    return CompletableFuture.supplyAsync(() -> handler.handle(context, request.body()), executor)
        .thenCompose(stage -> stage)
        .handle(
            (response, failure) ->
                failure != null
                    ? error(header, request, failure)
                    : ControllerEnvelope.encodeResponse(response, request.version()));
  }

  /**
   * A forwarded request runs as its client (principal and address), so the controller's handler
   * authorizes it as the receiving broker would; a node's own call runs as {@link
   * RequestAuthorizer#CLUSTER_INTERNAL}, allowed everything (only the cluster's nodes reach this
   * channel).
   */
  private static RequestContext context(RequestHeader header, ControllerEnvelope.Origin origin)
      throws UnknownHostException {
    InetAddress client =
        origin.isNode()
            ? InetAddress.getLoopbackAddress()
            // An address literal: parsed, never looked up.
            : InetAddress.getByName(origin.clientHost());
    return new RequestContext(
        header,
        "CONTROLLER",
        client,
        "controller-channel",
        System.nanoTime(),
        () -> {},
        origin.isNode() ? RequestAuthorizer.CLUSTER_INTERNAL : origin.principal());
  }

  private static byte[] error(
      RequestHeader header, ControllerEnvelope.Request request, Throwable failure) {
    Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
    ApiMessage response = ErrorResponses.forError(header, request.bodyBytes(), cause).orElseThrow();
    return ControllerEnvelope.encodeResponse(response, request.version());
  }
}
