package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller's answer to a broker heartbeat.
 *
 * @param error {@code NONE}, {@code BROKER_ID_NOT_REGISTERED} or {@code STALE_BROKER_EPOCH}
 * @param fenced whether the broker is fenced once the heartbeat's records are applied
 * @param shouldShutDown the broker asked to shut down and now leads nothing: it may stop
 */
public record HeartbeatResult(ApiError error, boolean fenced, boolean shouldShutDown) {
  static HeartbeatResult error(Errors error) {
    return new HeartbeatResult(ApiError.of(error), true, false);
  }
}
