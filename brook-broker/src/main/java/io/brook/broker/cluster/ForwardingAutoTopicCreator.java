package io.brook.broker.cluster;

import io.brook.broker.admin.AutoTopicCreator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Auto-creation in a cluster, as Kafka does it: the Metadata request that names an unknown topic
 * sends a CreateTopics to the active controller and answers at once with {@code
 * LEADER_NOT_AVAILABLE}; the client asks again and finds the topic. Never waits, so it is safe on
 * an event loop. At most {@link #MAX_IN_FLIGHT} creations are in flight.
 */
public final class ForwardingAutoTopicCreator implements AutoTopicCreator {
  static final int MAX_IN_FLIGHT = 256;

  private final ControllerClient controller;
  private final boolean enabled;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

  public ForwardingAutoTopicCreator(ControllerClient controller, boolean enabled) {
    this.controller = controller;
    this.enabled = enabled;
  }

  @Override
  public Errors createIfAllowed(String topic) {
    if (!enabled) {
      return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (inFlight.size() < MAX_IN_FLIGHT && inFlight.add(topic)) {
      CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
      request
          .topics()
          .add(
              new CreateTopicsRequestData.CreatableTopic()
                  .setName(topic)
                  .setNumPartitions(-1)
                  .setReplicationFactor((short) -1));
      controller
          .sendAdmin(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), request)
          .whenComplete((response, failure) -> inFlight.remove(topic));
    }
    return Errors.LEADER_NOT_AVAILABLE;
  }
}
