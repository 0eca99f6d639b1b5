package io.brook.broker.api;

import io.brook.broker.InternalTopics;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTopicPartitions (KIP-966), what Kafka 4.x's {@code Admin.describeTopics} and {@code
 * kafka-topics --describe} use: per partition the leader, ISR, eligible leader replicas, last known
 * ELR and offline replicas, from this broker's metadata image.
 *
 * <p>Paginated as Kafka does: topics in name order (every topic when the request names none),
 * starting at the request's cursor (topic name and partition index); at most {@code
 * ResponsePartitionLimit} partitions, capped by {@value #MAX_PARTITIONS} (Kafka's default {@code
 * max.request.partition.size.limit}); when partitions are left over, {@code NextCursor} names the
 * first of them. Unknown topics are answered with {@code UNKNOWN_TOPIC_OR_PARTITION} and cost no
 * partitions.
 *
 * <p>Needs DESCRIBE on each topic, as Metadata: a topic the request names is otherwise {@code
 * TOPIC_AUTHORIZATION_FAILED} (whether it exists or not), and a listing of every topic leaves it
 * out.
 */
public final class DescribeTopicPartitionsHandler extends KafkaApi {
  static final int MAX_PARTITIONS = 2000;

  /** "Authorized operations not requested", as Kafka sends it. */
  private static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

  private final ReplicaManager replicaManager;
  private final RequestAuthorizer authorizer;

  public DescribeTopicPartitionsHandler(
      ReplicaManager replicaManager, RequestAuthorizer authorizer) {
    super(ApiKeys.DESCRIBE_TOPIC_PARTITIONS);
    this.replicaManager = replicaManager;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeTopicPartitionsRequestData request = (DescribeTopicPartitionsRequestData) message;
    boolean listing = request.topics().isEmpty();
    return CompletableFuture.completedFuture(
        describe(
            replicaManager.image(),
            request,
            name ->
                listing
                    ? authorizer.authorizeQuietly(
                        context, AclOperation.DESCRIBE, ResourceType.TOPIC, name)
                    : authorizer.authorize(
                        context, AclOperation.DESCRIBE, ResourceType.TOPIC, name)));
  }

  static DescribeTopicPartitionsResponseData describe(
      MetadataImage image, DescribeTopicPartitionsRequestData request) {
    return describe(image, request, name -> true);
  }

  /**
   * @param mayDescribe whether the request may see a topic
   */
  static DescribeTopicPartitionsResponseData describe(
      MetadataImage image,
      DescribeTopicPartitionsRequestData request,
      Predicate<String> mayDescribe) {
    DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData();
    Optional<DescribeTopicPartitionsRequestData.Cursor> cursor =
        Optional.ofNullable(request.cursor());
    String firstTopic = cursor.map(DescribeTopicPartitionsRequestData.Cursor::topicName).orElse("");
    int firstPartition =
        cursor.map(DescribeTopicPartitionsRequestData.Cursor::partitionIndex).orElse(0);
    if (firstPartition < 0) {
      firstPartition = 0;
    }
    TreeSet<String> names = new TreeSet<>();
    if (request.topics().isEmpty()) {
      names.addAll(image.topicNames());
    } else {
      request.topics().forEach(t -> names.add(t.name()));
    }
    int budget = Math.max(1, Math.min(request.responsePartitionLimit(), MAX_PARTITIONS));
    boolean listing = request.topics().isEmpty();
    for (String name : names.tailSet(firstTopic, true)) {
      if (!mayDescribe.test(name)) {
        if (!listing) {
          response.topics().add(error(name, Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        continue;
      }
      Optional<TopicImage> topic = image.topic(name);
      if (topic.isEmpty()) {
        response.topics().add(error(name, unknownOrInvalid(name)));
        continue;
      }
      int from = name.equals(firstTopic) ? firstPartition : 0;
      int partitions = topic.get().numPartitions();
      if (budget == 0) {
        response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(from));
        break;
      }
      int to = Math.min(partitions, from + budget);
      response.topics().add(describe(image, topic.get(), from, to));
      budget -= Math.max(0, to - from);
      if (to < partitions) {
        response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(to));
        break;
      }
    }
    return response;
  }

  private static Errors unknownOrInvalid(String name) {
    try {
      Topic.validate(name);
      return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    } catch (InvalidTopicException e) {
      return Errors.INVALID_TOPIC_EXCEPTION;
    }
  }

  private static DescribeTopicPartitionsResponseTopic error(String name, Errors error) {
    return new DescribeTopicPartitionsResponseTopic()
        .setName(name)
        .setErrorCode(error.code())
        .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
  }

  private static DescribeTopicPartitionsResponseTopic describe(
      MetadataImage image, TopicImage topic, int from, int to) {
    DescribeTopicPartitionsResponseTopic out =
        new DescribeTopicPartitionsResponseTopic()
            .setName(topic.name())
            .setTopicId(topic.id())
            .setIsInternal(InternalTopics.isInternal(topic.name()))
            .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
    for (int id = from; id < to; id++) {
      PartitionImage p = topic.partitions().get(id);
      out.partitions()
          .add(
              new DescribeTopicPartitionsResponsePartition()
                  .setPartitionIndex(id)
                  .setErrorCode(
                      p.hasLeader() ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                  .setLeaderId(p.leader())
                  .setLeaderEpoch(p.leaderEpoch())
                  .setReplicaNodes(new ArrayList<>(p.replicas()))
                  .setIsrNodes(new ArrayList<>(p.isr()))
                  .setEligibleLeaderReplicas(new ArrayList<>(p.eligibleLeaderReplicas()))
                  .setLastKnownElr(new ArrayList<>(p.lastKnownElr()))
                  .setOfflineReplicas(MetadataHandler.offlineReplicas(image, p)));
    }
    return out;
  }
}
