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
   * Sends a request that may take long on the controller (a CreateTopics of many topics is one Raft
   * round trip per topic), waiting up to {@link #LONG_CALL_TIMEOUT_MS}. Such a call is not retried
   * after a timeout by the quorum client, so it does not run twice.
   */
  CompletableFuture<byte[]> callLong(byte[] request);

  /** How long {@link #callLong} waits for the active controller's answer. */
  long LONG_CALL_TIMEOUT_MS = 60_000;

  /**
   * Installs what this node runs for calls while it is the active controller. Calls that arrive
   * before a handler is installed fail.
   */
  void serve(Function<byte[], CompletableFuture<byte[]>> handler);
}
