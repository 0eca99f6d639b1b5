package io.brook.server.http;

import io.brook.broker.api.InProcessApis;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A request answered by this broker's handler, or, when the handler says another broker serves it
 * (NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR: errors Kafka gives only to a valid, authorized
 * request), by that broker through the {@link Forwarder}. The forwarded answer carries the local
 * answer's throttle: quotas are charged where the HTTP request came in.
 */
final class AtLeader {
  /** How long a forwarded request may take beyond what it waits for itself (a long poll). */
  static final int FORWARD_TIMEOUT_MS = 30_000;

  private final Forwarder forwarder;
  private final int nodeId;

  /**
   * @param forwarder null when this node forwards nothing (local errors are answered as they are)
   */
  AtLeader(Forwarder forwarder, int nodeId) {
    this.forwarder = forwarder;
    this.nodeId = nodeId;
  }

  /** The node to send a partition's request to instead, or -1 to answer the local error. */
  int leaderElsewhere(String topic, int partition) {
    if (forwarder == null) {
      return -1;
    }
    int leader = forwarder.leader(topic, partition);
    return leader == nodeId ? -1 : leader;
  }

  /** Whether requests can go to {@code node}: another broker, when this node forwards. */
  boolean elsewhere(int node) {
    return forwarder != null && node >= 0 && node != nodeId;
  }

  /** The topic's id, for requests that name topics by id at newer versions. */
  Uuid topicId(String topic) {
    return forwarder == null ? Uuid.ZERO_UUID : forwarder.topicId(topic);
  }

  /**
   * {@code name} when a response gave it, else the name of topic {@code id} (responses of newer
   * versions name topics by id only).
   */
  String topicName(String name, Uuid id) {
    if ((name != null && !name.isEmpty()) || forwarder == null || Uuid.ZERO_UUID.equals(id)) {
      return name;
    }
    String known = forwarder.topicName(id);
    return known == null ? id.toString() : known;
  }

  /**
   * {@code local}'s answer, unless {@code misdirected} says the partition's leader is another
   * broker: then {@code request} (built anew: the local handler may have trimmed its copy) sent
   * there.
   */
  <T extends ApiMessage> CompletableFuture<InProcessApis.Answer<T>> partition(
      String topic,
      int partition,
      CompletableFuture<InProcessApis.Answer<T>> local,
      Predicate<T> misdirected,
      ApiKeys key,
      Supplier<ApiMessage> request,
      int waitMs,
      boolean longPoll) {
    return local.thenCompose(
        answer -> {
          if (answer.response() == null || !misdirected.test(answer.response())) {
            return CompletableFuture.completedFuture(answer);
          }
          int leader = leaderElsewhere(topic, partition);
          if (leader < 0) {
            return CompletableFuture.completedFuture(answer);
          }
          return node(leader, key, request.get(), waitMs, longPoll, answer.throttleMs());
        });
  }

  /** {@code request} sent to {@code node}, answered with {@code throttleMs}. */
  @SuppressWarnings("unchecked")
  <T extends ApiMessage> CompletableFuture<InProcessApis.Answer<T>> node(
      int node, ApiKeys key, ApiMessage request, int waitMs, boolean longPoll, int throttleMs) {
    return forwarder
        .send(node, key, request, waitMs + FORWARD_TIMEOUT_MS, longPoll)
        .thenApply(response -> new InProcessApis.Answer<>((T) response, throttleMs));
  }
}
