package io.brook.broker.api.group;

import io.brook.broker.api.KafkaApi;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.InternalTopicCreator;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FindCoordinator: the coordinator of a group or transactional id is the leader of partition {@code
 * abs(hash(key)) % partitions} of the internal topic, at its address on the listener the client
 * used. The internal topic is created on first use; until its partition has a leader the answer is
 * COORDINATOR_NOT_AVAILABLE and the client asks again.
 */
public final class FindCoordinatorHandler extends KafkaApi {
  private static final Logger log = LoggerFactory.getLogger(FindCoordinatorHandler.class);

  /** Versions 4+ carry a batch of keys. */
  private static final short BATCHED_VERSION = 4;

  private final ReplicaManager replicaManager;
  private final InternalTopicCreator topicCreator;
  private final Map<CoordinatorType, InternalTopic> topics;

  /**
   * @param topics the internal topic of each coordinator type served (GROUP, TRANSACTION, SHARE)
   */
  public FindCoordinatorHandler(
      ReplicaManager replicaManager,
      InternalTopicCreator topicCreator,
      Map<CoordinatorType, InternalTopic> topics) {
    super(ApiKeys.FIND_COORDINATOR);
    this.replicaManager = replicaManager;
    this.topicCreator = topicCreator;
    this.topics = Map.copyOf(topics);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    FindCoordinatorRequestData request = (FindCoordinatorRequestData) message;
    boolean batched = context.apiVersion() >= BATCHED_VERSION;
    List<String> keys = batched ? request.coordinatorKeys() : List.of(request.key());
    List<Coordinator> coordinators = new ArrayList<>();
    for (String key : keys) {
      coordinators.add(find(context, request.keyType(), key));
    }
    FindCoordinatorResponseData response = new FindCoordinatorResponseData();
    if (batched) {
      response.setCoordinators(coordinators);
    } else {
      Coordinator only = coordinators.get(0);
      response
          .setErrorCode(only.errorCode())
          .setErrorMessage(only.errorMessage())
          .setNodeId(only.nodeId())
          .setHost(only.host())
          .setPort(only.port());
    }
    return CompletableFuture.completedFuture(response);
  }

  private Coordinator find(RequestContext context, byte keyType, String key) {
    Coordinator out = new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1);
    CoordinatorType type;
    try {
      type = CoordinatorType.forId(keyType);
    } catch (IllegalArgumentException e) {
      return error(out, Errors.INVALID_REQUEST, "unknown key type " + keyType);
    }
    InternalTopic topic = topics.get(type);
    if (topic == null) {
      return error(out, Errors.INVALID_REQUEST, "coordinator type " + type + " is not served");
    }
    if (key == null || key.isEmpty()) {
      return error(
          out, Errors.INVALID_REQUEST, "an empty " + type.name().toLowerCase() + " key is invalid");
    }
    if (type == CoordinatorType.SHARE && !isShareKey(key)) {
      return error(out, Errors.INVALID_REQUEST, "a share key is groupId:topicId:partition");
    }
    MetadataImage image = replicaManager.image();
    Optional<TopicImage> topicImage = image.topic(topic.name());
    if (topicImage.isEmpty()) {
      createInternalTopic(image, topicCreator, topic);
      return error(out, Errors.COORDINATOR_NOT_AVAILABLE, topic.name() + " is being created");
    }
    int partitions = topicImage.get().numPartitions();
    if (partitions == 0) {
      return error(out, Errors.COORDINATOR_NOT_AVAILABLE, topic.name() + " has no partitions yet");
    }
    int partition = InternalTopic.partitionFor(key, partitions);
    PartitionImage p = topicImage.get().partitions().get(partition);
    Optional<BrokerEndpoint> endpoint =
        p == null || !p.hasLeader()
            ? Optional.empty()
            : image
                .broker(p.leader())
                .filter(b -> !b.fenced())
                .flatMap(b -> endpointOf(b, context.listenerName()));
    if (endpoint.isEmpty()) {
      return error(
          out,
          Errors.COORDINATOR_NOT_AVAILABLE,
          "partition " + partition + " of " + topic.name() + " has no reachable leader");
    }
    return out.setNodeId(p.leader())
        .setHost(endpoint.get().host())
        .setPort(endpoint.get().port())
        .setErrorCode(Errors.NONE.code());
  }

  /**
   * Asks for {@code topic} to be created, its replication factor and min.insync.replicas capped by
   * the live brokers; the outcome is only logged (whoever needs the topic asks again).
   */
  public static void createInternalTopic(
      MetadataImage image, InternalTopicCreator topicCreator, InternalTopic topic) {
    long liveBrokers = image.brokers().values().stream().filter(b -> !b.fenced()).count();
    short replicationFactor =
        (short) Math.max(1, Math.min(topic.replicationFactor(), Math.max(1, liveBrokers)));
    InternalTopic capped =
        new InternalTopic(
            topic.name(),
            topic.partitions(),
            replicationFactor,
            cappedMinIsr(topic.configs(), replicationFactor));
    CompletionStage<Errors> created;
    try {
      created = topicCreator.create(capped);
    } catch (RuntimeException e) {
      // As a failed creation: the client asks again (COORDINATOR_NOT_AVAILABLE), as Kafka's does
      // when its auto-creation fails, instead of taking an unknown server error as final.
      log.warn("Creating internal topic failed topic={}", topic.name(), e);
      return;
    }
    created.whenComplete(
        (error, failure) -> {
          if (failure != null) {
            log.warn("Creating internal topic failed topic={}", topic.name(), failure);
          } else if (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS) {
            log.warn("Creating internal topic failed topic={} error={}", topic.name(), error);
          } else if (error == Errors.NONE) {
            log.info(
                "Created internal topic topic={} partitions={} replicationFactor={}",
                topic.name(),
                topic.partitions(),
                replicationFactor);
          }
        });
  }

  /**
   * A min.insync.replicas above the (capped) replication factor would refuse every write, so a
   * single node started with Kafka's defaults ({@code transaction.state.log.min.isr=2}) could never
   * run a transaction: it is capped like the replication factor.
   */
  private static Map<String, String> cappedMinIsr(Map<String, String> configs, short rf) {
    String minIsr = configs.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
    if (minIsr == null || Integer.parseInt(minIsr) <= rf) {
      return configs;
    }
    Map<String, String> capped = new HashMap<>(configs);
    capped.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Short.toString(rf));
    return capped;
  }

  /** As Kafka checks a share coordinator key: a group id, a topic id and a partition. */
  private static boolean isShareKey(String key) {
    String[] parts = key.split(":");
    if (parts.length != 3 || parts[0].isEmpty()) {
      return false;
    }
    try {
      Uuid.fromString(parts[1]);
      return Integer.parseInt(parts[2]) >= 0;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static Optional<BrokerEndpoint> endpointOf(BrokerRegistration broker, String listener) {
    return broker.endpoint(listener);
  }

  private static Coordinator error(Coordinator out, Errors error, String message) {
    return out.setErrorCode(error.code()).setErrorMessage(message);
  }
}
