package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch: committed offsets of one group (versions 0 to 7) or of several (8+), each from its
 * own coordinator shard. A partition without a commit answers offset -1; with {@code
 * require_stable} (v7+) a partition with a pending transactional offset answers
 * UNSTABLE_OFFSET_COMMIT, so the client retries until the transaction ends (KIP-447).
 */
public final class OffsetFetchHandler extends GroupApi {
  private static final short REQUIRE_STABLE_VERSION = 7;
  private static final short BATCHED_VERSION = 8;
  private static final short TOPIC_ID_VERSION = 10;

  private final GroupCoordinator coordinator;

  public OffsetFetchHandler(GroupCoordinator coordinator) {
    super(ApiKeys.OFFSET_FETCH);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    OffsetFetchRequestData request = (OffsetFetchRequestData) message;
    short version = context.apiVersion();
    List<OffsetFetchRequestGroup> groups =
        version >= BATCHED_VERSION ? request.groups() : List.of(legacyGroup(request));
    List<CompletableFuture<OffsetFetchResponseGroup>> answers = new ArrayList<>();
    for (OffsetFetchRequestGroup group : groups) {
      answers.add(fetchGroup(group, version >= TOPIC_ID_VERSION, requireStable(request, version)));
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              List<OffsetFetchResponseGroup> results = new ArrayList<>();
              answers.forEach(a -> results.add(a.join()));
              return version >= BATCHED_VERSION
                  ? new OffsetFetchResponseData().setGroups(results)
                  : LegacyOffsetFetch.toLegacy(results.get(0), version);
            });
  }

  /** KIP-447: from version 7 a client may ask to fail partitions with open transactions. */
  private static boolean requireStable(OffsetFetchRequestData request, short version) {
    return version >= REQUIRE_STABLE_VERSION && request.requireStable();
  }

  /** What a shard answers: committed offsets, and which of them a transaction still changes. */
  private record Fetched(
      Map<TopicPartition, Optional<CommittedOffset>> offsets, Set<TopicPartition> unstable) {}

  /** The single group of versions 0 to 7, in the batched form. */
  private static OffsetFetchRequestGroup legacyGroup(OffsetFetchRequestData request) {
    OffsetFetchRequestGroup group = new OffsetFetchRequestGroup().setGroupId(request.groupId());
    if (request.topics() == null) {
      group.setTopics(null);
    } else {
      List<OffsetFetchRequestTopics> topics = new ArrayList<>();
      for (OffsetFetchRequestData.OffsetFetchRequestTopic t : request.topics()) {
        topics.add(
            new OffsetFetchRequestTopics()
                .setName(t.name())
                .setPartitionIndexes(t.partitionIndexes()));
      }
      group.setTopics(topics);
    }
    return group;
  }

  private CompletableFuture<OffsetFetchResponseGroup> fetchGroup(
      OffsetFetchRequestGroup group, boolean byId, boolean requireStable) {
    OffsetFetchResponseGroup out = new OffsetFetchResponseGroup().setGroupId(group.groupId());
    if (!isValidGroupId(group.groupId())) {
      return CompletableFuture.completedFuture(out.setErrorCode(Errors.INVALID_GROUP_ID.code()));
    }
    TopicResolver resolver = new TopicResolver(coordinator.image());
    List<TopicPartition> partitions = null;
    Map<String, Uuid> ids = new LinkedHashMap<>();
    List<OffsetFetchResponseTopics> unknown = new ArrayList<>();
    if (group.topics() != null) {
      partitions = new ArrayList<>();
      for (OffsetFetchRequestTopics topic : group.topics()) {
        TopicResolver.Resolved resolved = resolver.resolve(topic.name(), topic.topicId(), byId);
        if (byId && resolved.error() != Errors.NONE) {
          unknown.add(unknownTopic(topic, resolved.error()));
          continue;
        }
        ids.put(resolved.name(), topic.topicId());
        for (int p : topic.partitionIndexes()) {
          partitions.add(new TopicPartition(resolved.name(), p));
        }
      }
    }
    List<TopicPartition> asked = partitions;
    return coordinator
        .run(
            group.groupId(),
            shard -> {
              var service = shard.offsetService();
              var offsets =
                  service.fetch(group.groupId(), group.memberId(), group.memberEpoch(), asked);
              Set<TopicPartition> unstable =
                  requireStable ? service.unstablePartitions(group.groupId(), asked) : Set.of();
              return CompletableFuture.completedFuture(new Fetched(offsets, unstable));
            })
        .handle(
            (fetched, failure) -> {
              if (failure != null) {
                return out.setErrorCode(errorOf(failure).code());
              }
              out.setTopics(topicsOf(fetched, ids, byId, resolver));
              out.topics().addAll(unknown);
              return out;
            });
  }

  private static OffsetFetchResponseTopics unknownTopic(
      OffsetFetchRequestTopics topic, Errors error) {
    OffsetFetchResponseTopics out = new OffsetFetchResponseTopics().setTopicId(topic.topicId());
    for (int p : topic.partitionIndexes()) {
      out.partitions().add(noOffset(p).setErrorCode(error.code()));
    }
    return out;
  }

  private static List<OffsetFetchResponseTopics> topicsOf(
      Fetched fetched, Map<String, Uuid> requestedIds, boolean byId, TopicResolver resolver) {
    Map<String, OffsetFetchResponseTopics> byTopic = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, Optional<CommittedOffset>> e : fetched.offsets().entrySet()) {
      String name = e.getKey().topic();
      Uuid id = requestedIds.get(name);
      if (byId && id == null) {
        Optional<Uuid> current = resolver.idOf(name);
        if (current.isEmpty()) {
          continue; // the topic is gone; an id-based client cannot name it
        }
        id = current.get();
      }
      Uuid topicId = id;
      OffsetFetchResponseTopics topic =
          byTopic.computeIfAbsent(
              name,
              n ->
                  byId
                      ? new OffsetFetchResponseTopics().setTopicId(topicId)
                      : new OffsetFetchResponseTopics().setName(n));
      OffsetFetchResponsePartitions partition = noOffset(e.getKey().partition());
      if (fetched.unstable().contains(e.getKey())) {
        topic.partitions().add(partition.setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code()));
        continue;
      }
      e.getValue()
          .ifPresent(
              c ->
                  partition
                      .setCommittedOffset(c.offset())
                      .setCommittedLeaderEpoch(c.leaderEpoch())
                      .setMetadata(c.metadata()));
      topic.partitions().add(partition);
    }
    return new ArrayList<>(byTopic.values());
  }

  private static OffsetFetchResponsePartitions noOffset(int partition) {
    return new OffsetFetchResponsePartitions()
        .setPartitionIndex(partition)
        .setCommittedOffset(-1L)
        .setCommittedLeaderEpoch(-1)
        .setMetadata("");
  }
}
