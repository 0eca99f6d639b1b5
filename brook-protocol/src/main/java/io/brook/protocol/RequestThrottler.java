package io.brook.protocol;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Client quotas as the network layer sees them (KIP-13, KIP-124, KIP-219): told about every
 * answered request, it records what the request used and answers how long its client is throttled.
 * The network layer then puts that time in the response's {@code throttle_time_ms}, sends the
 * response, and stops reading from the connection for that long, so a client over its quota is
 * slowed, never refused.
 */
public interface RequestThrottler {
  /** No quotas: never throttles. */
  RequestThrottler NONE = (context, request, requestBytes, response, handlerNanos) -> 0;

  /**
   * Records one answered request and returns its client's throttle time. Called on the connection's
   * event loop: must not block, and should cost a sensor record or two.
   *
   * @param context who sent the request
   * @param request the decoded request body
   * @param requestBytes the size of the request frame
   * @param response the response about to be sent
   * @param handlerNanos time spent handling the request on this thread
   * @return milliseconds the client is throttled, 0 if it is within its quotas
   */
  int onAnswered(
      RequestContext context,
      ApiMessage request,
      int requestBytes,
      ApiMessage response,
      long handlerNanos);
}
