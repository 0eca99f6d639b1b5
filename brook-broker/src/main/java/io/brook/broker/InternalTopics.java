package io.brook.broker;

import org.apache.kafka.common.internals.Topic;

/**
 * The one place that knows which topics are internal: the coordinators' own topics, which clients
 * may read and describe but not write. Kafka's set ({@code __consumer_offsets}, {@code
 * __transaction_state}, {@code __share_group_state}), so Metadata reports {@code isInternal} as a
 * Kafka broker does; an internal topic Brook adds later is added here.
 */
public final class InternalTopics {
  /**
   * The client id of Kafka's admin utilities. As in Kafka, a Produce request carrying it may append
   * to internal topics (an operator repairing a coordinator partition); any other may not.
   */
  public static final String ADMIN_CLIENT_ID = "__admin_client";

  private InternalTopics() {}

  public static boolean isInternal(String topic) {
    return Topic.isInternal(topic);
  }

  /** Whether a Produce request from {@code clientId} may append to {@code topic}. */
  public static boolean clientMayAppend(String topic, String clientId) {
    return !isInternal(topic) || ADMIN_CLIENT_ID.equals(clientId);
  }
}
