package io.brook.server.http;

import static io.brook.broker.api.InProcessApis.mutable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Kafka requests the HTTP API and the console both send to the broker's own handlers for the
 * same operation, built in one place so both ask the same thing (a request is new on every call:
 * the handlers may keep it), and the reading of an answer both read alike.
 */
public final class KafkaRequests {
  private KafkaRequests() {}

  /** DescribeConfigs of one topic's configs, all of them, without synonyms or documentation. */
  public static DescribeConfigsRequestData describeTopicConfigs(String topic) {
    return new DescribeConfigsRequestData()
        .setIncludeSynonyms(false)
        .setIncludeDocumentation(false)
        .setResources(
            mutable(
                new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType(ConfigResource.Type.TOPIC.id())
                    .setResourceName(topic)
                    .setConfigurationKeys(null)));
  }

  /** CreateTopics of one topic (its configs added by the caller, which validates them). */
  public static CreateTopicsRequestData createTopic(
      CreateTopicsRequestData.CreatableTopic topic, int timeoutMs) {
    CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(timeoutMs);
    request.topics().add(topic);
    return request;
  }

  /** The topic part of a CreateTopics request; -1 takes the broker's default. */
  public static CreateTopicsRequestData.CreatableTopic creatableTopic(
      String name, int partitions, short replicationFactor) {
    return new CreateTopicsRequestData.CreatableTopic()
        .setName(name)
        .setNumPartitions(partitions)
        .setReplicationFactor(replicationFactor);
  }

  /** DeleteTopics of one topic by name. */
  public static DeleteTopicsRequestData deleteTopic(String name, int timeoutMs) {
    return new DeleteTopicsRequestData()
        .setTimeoutMs(timeoutMs)
        .setTopics(
            mutable(
                new DeleteTopicsRequestData.DeleteTopicState()
                    .setName(name)
                    .setTopicId(Uuid.ZERO_UUID)));
  }

  /**
   * ListOffsets of one partition as a consumer asks it.
   *
   * @param timestamp a time, or Kafka's -1 (latest) / -2 (earliest)
   */
  public static ListOffsetsRequestData listOffsets(
      String topic, int partition, long timestamp, boolean readCommitted, int timeoutMs) {
    return new ListOffsetsRequestData()
        .setReplicaId(-1)
        .setIsolationLevel((byte) (readCommitted ? 1 : 0))
        .setTimeoutMs(timeoutMs)
        .setTopics(
            mutable(
                new ListOffsetsRequestData.ListOffsetsTopic()
                    .setName(topic)
                    .setPartitions(
                        mutable(
                            new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(partition)
                                .setCurrentLeaderEpoch(-1)
                                .setTimestamp(timestamp)))));
  }

  /**
   * A consumer's sessionless Fetch of one partition.
   *
   * @param topicId the topic's id, or {@link Uuid#ZERO_UUID} for a version that names topics
   */
  public static FetchRequestData fetch(
      String topic,
      Uuid topicId,
      int partition,
      long offset,
      int maxWaitMs,
      int minBytes,
      int maxBytes,
      boolean readCommitted) {
    FetchRequestData request =
        new FetchRequestData()
            .setReplicaId(-1)
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(minBytes)
            .setMaxBytes(maxBytes)
            .setIsolationLevel((byte) (readCommitted ? 1 : 0))
            .setSessionId(0)
            .setSessionEpoch(-1)
            .setRackId("");
    request
        .topics()
        .add(
            new FetchRequestData.FetchTopic()
                .setTopic(topic)
                .setTopicId(topicId)
                .setPartitions(
                    mutable(
                        new FetchRequestData.FetchPartition()
                            .setPartition(partition)
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(maxBytes))));
    return request;
  }

  /**
   * Metadata of the named topics, or of every topic the caller may describe when {@code topics} is
   * null; never creates a topic.
   */
  public static MetadataRequestData metadata(List<String> topics) {
    return new MetadataRequestData()
        .setAllowAutoTopicCreation(false)
        .setTopics(
            topics == null
                ? null
                : topics.stream()
                    .map(t -> new MetadataRequestData.MetadataRequestTopic().setName(t))
                    .collect(Collectors.toCollection(ArrayList::new)));
  }

  /** OffsetFetch of every offset a group committed, as a client outside the group asks it. */
  public static OffsetFetchRequestData offsetFetch(String group) {
    return new OffsetFetchRequestData()
        .setRequireStable(true)
        .setGroups(
            mutable(
                new OffsetFetchRequestData.OffsetFetchRequestGroup()
                    .setGroupId(group)
                    .setMemberId(null)
                    .setMemberEpoch(-1)
                    .setTopics(null)));
  }

  /**
   * An OffsetCommit from outside the group's generation, as an admin client or {@code
   * kafka-consumer-groups --reset-offsets} commits: generation -1 and no member id, which the
   * coordinator accepts only while the group has no members.
   */
  public static AdminOffsetCommit adminOffsetCommit(String group) {
    return new AdminOffsetCommit(group);
  }

  /**
   * The offsets of an {@link #adminOffsetCommit}, grouped by topic in the order added; each {@code
   * request} call builds a new request, since a handler may trim its copy's lists (denied entries)
   * and the same commit may go to this broker and then to the coordinator.
   */
  public static final class AdminOffsetCommit {
    private final String group;
    private final Map<String, OffsetCommitRequestData.OffsetCommitRequestTopic> topics =
        new LinkedHashMap<>();

    private AdminOffsetCommit(String group) {
      this.group = group;
    }

    /** Adds a partition's offset, with no leader epoch. */
    public AdminOffsetCommit add(String topic, int partition, long offset, String metadata) {
      topics
          .computeIfAbsent(
              topic, t -> new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(t))
          .partitions()
          .add(
              new OffsetCommitRequestData.OffsetCommitRequestPartition()
                  .setPartitionIndex(partition)
                  .setCommittedOffset(offset)
                  .setCommittedLeaderEpoch(-1)
                  .setCommittedMetadata(metadata));
      return this;
    }

    /** A new request naming the topics by name. */
    public OffsetCommitRequestData request() {
      return new OffsetCommitRequestData()
          .setGroupId(group)
          .setGenerationIdOrMemberEpoch(-1)
          .setMemberId("")
          .setGroupInstanceId(null)
          .setTopics(
              topics.values().stream()
                  .map(OffsetCommitRequestData.OffsetCommitRequestTopic::duplicate)
                  .collect(Collectors.toCollection(ArrayList::new)));
    }

    /**
     * A new request naming the topics by name and by {@code topicIds}' id, for a coordinator on
     * another broker, which may take them by id.
     */
    public OffsetCommitRequestData request(Function<String, Uuid> topicIds) {
      OffsetCommitRequestData request = request();
      request.topics().forEach(t -> t.setTopicId(topicIds.apply(t.name())));
      return request;
    }
  }

  /**
   * Whether a broker's handler accepted an OffsetCommit (valid, authorized) but does not coordinate
   * its group: every partition answered NOT_COORDINATOR.
   */
  public static boolean allNotCoordinator(OffsetCommitResponseData response) {
    boolean any = false;
    for (OffsetCommitResponseData.OffsetCommitResponseTopic t : response.topics()) {
      for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
        if (p.errorCode() != Errors.NOT_COORDINATOR.code()) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }
}
