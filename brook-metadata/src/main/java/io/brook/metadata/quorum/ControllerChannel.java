package io.brook.metadata.quorum;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The way from any node to the active controller for calls that are not metadata records: broker
 * registration and heartbeats, and admin requests a broker forwards. The payloads are opaque here;
 * the broker layer puts Kafka's own request and response messages in them.
 *
 * <p>A call reaches whichever node is the active controller when it arrives; if leadership moves
 * while it is in flight, it is retried on the new active controller or fails.
 */
public interface ControllerChannel {
  /**
   * Sends {@code request} to the active controller.
   *
   * @return the active controller's answer; fails if no controller answered within the quorum's
   *     request timeout
   */
  CompletableFuture<byte[]> call(byte[] request);

  /**
   * Installs what this node runs for calls while it is the active controller. Calls that arrive
   * before a handler is installed fail.
   */
  void serve(Function<byte[], CompletableFuture<byte[]>> handler);
}
