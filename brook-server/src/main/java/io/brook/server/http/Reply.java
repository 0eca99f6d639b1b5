package io.brook.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What a route answers.
 *
 * @param throttleMs how long the caller's quotas hold the answer back (the HTTP form of Kafka's
 *     throttle: the client waits for its response rather than being told to wait)
 */
record Reply(HttpResponseStatus status, JsonNode body, int throttleMs) {
  static Reply ok(JsonNode body, int throttleMs) {
    return new Reply(HttpResponseStatus.OK, body, throttleMs);
  }

  /** This answer held back {@code more} milliseconds longer (an earlier request's throttle). */
  Reply plusThrottle(int more) {
    return more == 0 ? this : new Reply(status, body, throttleMs + more);
  }
}
