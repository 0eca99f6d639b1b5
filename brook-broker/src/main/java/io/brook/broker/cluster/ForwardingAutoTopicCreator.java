package io.brook.broker.cluster;

import io.brook.broker.admin.AutoTopicCreator;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Auto-creation as Kafka does it: the Metadata request that names an unknown topic starts the
 * creation elsewhere (a CreateTopics to the active controller in a cluster; the metadata journal
 * write on the disk pool on a single node) and answers at once with {@code LEADER_NOT_AVAILABLE};
 * the client asks again and finds the topic. Never waits, so it is safe on an event loop. At most
 * {@link #MAX_IN_FLIGHT} creations are in flight.
 */
public final class ForwardingAutoTopicCreator implements AutoTopicCreator {
  static final int MAX_IN_FLIGHT = 256;

  private final Function<String, CompletionStage<?>> create;
  private final boolean enabled;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

  /** Forwards creations to the active controller. */
  public ForwardingAutoTopicCreator(ControllerClient controller, boolean enabled) {
    this(topic -> controller.sendAdmin(ApiKeys.CREATE_TOPICS, latest(), request(topic)), enabled);
  }

  /**
   * @param create starts creating a topic with the broker's defaults and completes when done
   */
  public ForwardingAutoTopicCreator(Function<String, CompletionStage<?>> create, boolean enabled) {
    this.create = create;
    this.enabled = enabled;
  }

  @Override
  public Errors createIfAllowed(String topic) {
    if (!enabled) {
      return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (inFlight.size() < MAX_IN_FLIGHT && inFlight.add(topic)) {
      create.apply(topic).whenComplete((response, failure) -> inFlight.remove(topic));
    }
    return Errors.LEADER_NOT_AVAILABLE;
  }

  private static short latest() {
    return ApiKeys.CREATE_TOPICS.latestVersion();
  }

  private static CreateTopicsRequestData request(String topic) {
    CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(30_000);
    request
        .topics()
        .add(
            new CreateTopicsRequestData.CreatableTopic()
                .setName(topic)
                .setNumPartitions(-1)
                .setReplicationFactor((short) -1));
    return request;
  }
}
