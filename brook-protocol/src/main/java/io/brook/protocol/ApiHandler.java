package io.brook.protocol;

import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Serves one Kafka API. The network layer decodes the request body with kafka-clients' generated
 * message class for {@link #apiKey()} and hands it here; the handler answers with the generated
 * response message. Handlers run on Netty event loops and must never block: anything that waits
 * (acks=all, fetch long-polls) completes the returned stage later.
 */
public interface ApiHandler {
  ApiKeys apiKey();

  /** Oldest request version served; requests below it get UNSUPPORTED_VERSION. */
  short minVersion();

  /** Newest request version served; advertised in ApiVersions. */
  short maxVersion();

  /**
   * Handles one request.
   *
   * @param request the decoded body, an instance of the {@code *RequestData} class of {@link
   *     #apiKey()}
   * @return the response body ({@code *ResponseData}), or a stage completing with {@code null} for
   *     a request that gets no response (Produce with acks=0). A stage completing exceptionally is
   *     answered with the API's generic error response for that exception.
   */
  CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request);
}
