package io.brook.broker.replica.fetcher;

/**
 * How followers fetch from leaders, with Kafka's config names.
 *
 * @param numFetchers {@code num.replica.fetchers}: fetcher threads (and connections) per leader
 * @param fetchMaxBytes {@code replica.fetch.max.bytes}, per partition
 * @param fetchResponseMaxBytes {@code replica.fetch.response.max.bytes}, per fetch
 * @param fetchMinBytes {@code replica.fetch.min.bytes}
 * @param fetchWaitMaxMs {@code replica.fetch.wait.max.ms}
 * @param fetchBackoffMs {@code replica.fetch.backoff.ms}: pause after a failed fetch
 * @param socketTimeoutMs {@code replica.socket.timeout.ms}: the longest a fetch may go unanswered
 * @param fetchStallTimeoutMs {@code brook.replica.fetch.stall.timeout.ms}: how long past {@code
 *     replica.fetch.wait.max.ms} an unanswered fetch is given up and the connection reopened,
 *     doubled after each consecutive stall, never beyond {@code socketTimeoutMs}
 * @param socketReceiveBufferBytes {@code replica.socket.receive.buffer.bytes}
 * @param listenerName the inter-broker listener, whose advertised endpoint followers connect to
 */
public record ReplicaFetchConfig(
    int numFetchers,
    int fetchMaxBytes,
    int fetchResponseMaxBytes,
    int fetchMinBytes,
    int fetchWaitMaxMs,
    int fetchBackoffMs,
    int socketTimeoutMs,
    int fetchStallTimeoutMs,
    int socketReceiveBufferBytes,
    String listenerName) {
  public ReplicaFetchConfig {
    if (numFetchers < 1) {
      throw new IllegalArgumentException("num.replica.fetchers must be at least 1");
    }
    if (fetchStallTimeoutMs < 1) {
      throw new IllegalArgumentException("the fetch stall timeout must be positive");
    }
  }

  /** Kafka's defaults (and Brook's stall timeout, 3 s), on the given listener. */
  public static ReplicaFetchConfig defaults(String listenerName) {
    return new ReplicaFetchConfig(
        1, 1_048_576, 10_485_760, 1, 500, 1_000, 30_000, 3_000, 65_536, listenerName);
  }
}
