package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.InternalTopics;
import io.brook.broker.admin.AutoTopicCreator;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata: the brokers (at their addresses for the listener the client connected to), and for each
 * topic asked about its id and partitions with leader, leader epoch, replicas and ISR. Any broker
 * answers from its metadata image. Unknown topics are created when the client allows it and {@code
 * auto.create.topics.enable} is on.
 *
 * <p>Authorization as in Kafka: a listing of all topics shows only those the principal may
 * DESCRIBE; a topic asked for by name or id without DESCRIBE is TOPIC_AUTHORIZATION_FAILED (with no
 * id, or no name); creating a missing topic needs CREATE on the cluster or on the topic.
 */
public final class MetadataHandler extends KafkaApi {
  /** "Authorized operations not requested", as Kafka sends it. */
  private static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

  private final BrokerIdentity identity;
  private final ReplicaManager replicaManager;
  private final AutoTopicCreator autoTopicCreator;
  private final RequestAuthorizer authorizer;

  public MetadataHandler(
      BrokerIdentity identity, ReplicaManager replicaManager, AutoTopicCreator autoTopicCreator) {
    this(identity, replicaManager, autoTopicCreator, RequestAuthorizer.ALLOW_ALL);
  }

  public MetadataHandler(
      BrokerIdentity identity,
      ReplicaManager replicaManager,
      AutoTopicCreator autoTopicCreator,
      RequestAuthorizer authorizer) {
    super(ApiKeys.METADATA);
    this.identity = identity;
    this.replicaManager = replicaManager;
    this.autoTopicCreator = autoTopicCreator;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    MetadataRequestData request = (MetadataRequestData) message;
    MetadataResponseData response =
        new MetadataResponseData()
            .setClusterId(identity.clusterId())
            .setControllerId(identity.controllerId())
            .setClusterAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
    MetadataImage image = replicaManager.image();
    for (BrokerRegistration broker : image.brokers().values()) {
      if (broker.fenced()) {
        continue;
      }
      endpointFor(broker, context.listenerName())
          .ifPresent(
              endpoint ->
                  response
                      .brokers()
                      .add(
                          new MetadataResponseBroker()
                              .setNodeId(broker.id())
                              .setHost(endpoint.host())
                              .setPort(endpoint.port())
                              .setRack(broker.rack().orElse(null))));
    }
    // Version 0 asks for every topic with an empty list; later versions with null.
    boolean allTopics =
        request.topics() == null || (context.apiVersion() == 0 && request.topics().isEmpty());
    if (allTopics) {
      for (TopicImage topic : image.topics()) {
        if (authorizer.authorizeQuietly(
            context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name())) {
          response.topics().add(describe(topic, image));
        }
      }
    } else {
      for (MetadataRequestData.MetadataRequestTopic wanted : request.topics()) {
        response.topics().add(describeRequested(context, wanted, request.allowAutoTopicCreation()));
      }
    }
    return CompletableFuture.completedFuture(response);
  }

  private MetadataResponseTopic describeRequested(
      RequestContext context,
      MetadataRequestData.MetadataRequestTopic wanted,
      boolean allowAutoCreation) {
    MetadataImage image = replicaManager.image();
    // Lookups by id carry a null name (or an empty one, as kafka-clients 4.4 sends when it
    // resolves the topic ids of a KIP-848 assignment).
    boolean byId =
        wanted.name() == null
            || (wanted.name().isEmpty() && !Uuid.ZERO_UUID.equals(wanted.topicId()));
    if (byId) {
      Uuid id = wanted.topicId();
      return image
          .topic(id)
          .map(
              topic ->
                  mayDescribe(context, topic.name())
                      ? describe(topic, image)
                      : error(null, id, Errors.TOPIC_AUTHORIZATION_FAILED))
          .orElseGet(() -> error(null, id, Errors.UNKNOWN_TOPIC_ID));
    }
    String name = wanted.name();
    if (!mayDescribe(context, name)) {
      return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    Optional<TopicImage> topic = image.topic(name);
    if (topic.isPresent()) {
      return describe(topic.get(), image);
    }
    try {
      Topic.validate(name);
    } catch (org.apache.kafka.common.errors.InvalidTopicException e) {
      return error(name, Uuid.ZERO_UUID, Errors.INVALID_TOPIC_EXCEPTION);
    }
    if (!allowAutoCreation) {
      return error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (!authorizer.authorizeClusterQuietly(context, AclOperation.CREATE)
        && !authorizer.authorize(context, AclOperation.CREATE, ResourceType.TOPIC, name)) {
      return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    Errors created = autoTopicCreator.createIfAllowed(name);
    if (created != Errors.NONE) {
      return error(name, Uuid.ZERO_UUID, created);
    }
    MetadataImage after = replicaManager.image();
    return after
        .topic(name)
        .map(t -> describe(t, after))
        .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.LEADER_NOT_AVAILABLE));
  }

  private boolean mayDescribe(RequestContext context, String topic) {
    return authorizer.authorize(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
  }

  private static MetadataResponseTopic error(String name, Uuid id, Errors error) {
    return new MetadataResponseTopic()
        .setName(name)
        .setTopicId(id)
        .setErrorCode(error.code())
        .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
  }

  private static MetadataResponseTopic describe(TopicImage topic, MetadataImage image) {
    MetadataResponseTopic out =
        new MetadataResponseTopic()
            .setName(topic.name())
            .setTopicId(topic.id())
            .setIsInternal(InternalTopics.isInternal(topic.name()))
            .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
    for (Map.Entry<Integer, PartitionImage> entry : topic.partitions().entrySet()) {
      PartitionImage p = entry.getValue();
      List<Integer> offline = offlineReplicas(image, p);
      out.partitions()
          .add(
              new MetadataResponsePartition()
                  .setPartitionIndex(entry.getKey())
                  .setErrorCode(
                      p.leader() < 0 ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code())
                  .setLeaderId(p.leader())
                  .setLeaderEpoch(p.leaderEpoch())
                  .setReplicaNodes(new ArrayList<>(p.replicas()))
                  .setIsrNodes(new ArrayList<>(p.isr()))
                  .setOfflineReplicas(offline));
    }
    out.partitions()
        .sort(java.util.Comparator.comparingInt(MetadataResponsePartition::partitionIndex));
    return out;
  }

  /** The replicas whose broker is fenced or gone, as Kafka reports them. */
  static List<Integer> offlineReplicas(MetadataImage image, PartitionImage p) {
    List<Integer> offline = new ArrayList<>();
    for (int replica : p.replicas()) {
      BrokerRegistration broker = image.brokers().get(replica);
      if (broker == null || broker.fenced()) {
        offline.add(replica);
      }
    }
    return offline;
  }

  private static Optional<BrokerEndpoint> endpointFor(BrokerRegistration broker, String listener) {
    for (BrokerEndpoint endpoint : broker.endpoints()) {
      if (endpoint.listenerName().equals(listener)) {
        return Optional.of(endpoint);
      }
    }
    return Optional.empty();
  }
}
