package io.brook.server.http;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How the HTTP API reaches the broker that serves a partition or a group when that is not this one:
 * this node's metadata (who leads, topic ids) and its inter-broker connections. A request is only
 * forwarded after this broker's own handler refused it with NOT_LEADER_OR_FOLLOWER or
 * NOT_COORDINATOR, answers Kafka gives once the request is validated and the caller authorized; the
 * other broker then serves it as a request of this node (its inter-broker principal).
 */
public interface Forwarder extends AutoCloseable {
  /** The leader of {@code topic}'s {@code partition} in this node's metadata, or -1. */
  int leader(String topic, int partition);

  /** The id of {@code topic} in this node's metadata, or {@link Uuid#ZERO_UUID}. */
  Uuid topicId(String topic);

  /** The name of the topic with {@code id} in this node's metadata, or null. */
  String topicName(Uuid id);

  /**
   * Sends {@code request} to {@code nodeId}'s inter-broker listener, at the newest version both
   * speak; the request must be valid at any of them (topic names and ids both set).
   *
   * @param timeoutMs from now until the answer
   * @param longPoll whether the request may be parked by the peer (a fetch): those go on their own
   *     connection, so a parked fetch does not hold back other forwarded answers
   * @return the response body; fails with the transport's error when the node cannot be reached
   */
  CompletableFuture<ApiMessage> send(
      int nodeId, ApiKeys key, ApiMessage request, int timeoutMs, boolean longPoll);

  @Override
  void close();
}
