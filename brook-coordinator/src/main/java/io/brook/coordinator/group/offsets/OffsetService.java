package io.brook.coordinator.group.offsets;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Offset commit, fetch and delete for one shard, in protocol-neutral terms: the API handlers turn
 * each request version into these calls and back.
 */
public final class OffsetService {
  /** OffsetCommit answers GROUP_ID_NOT_FOUND for a missing group from this version on. */
  private static final short GROUP_NOT_FOUND_COMMIT_VERSION = 9;

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;
  private final OffsetStore offsets;

  public OffsetService(
      ShardContext context, GroupConfig config, Groups groups, OffsetStore offsets) {
    this.context = context;
    this.config = config;
    this.groups = groups;
    this.offsets = offsets;
  }

  /** One partition's part of a commit. */
  public record PartitionCommit(long offset, int leaderEpoch, String metadata) {}

  /**
   * An offset commit.
   *
   * @param generationIdOrMemberEpoch -1 for a commit from outside group management
   * @param offsets in request order
   */
  public record CommitRequest(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationIdOrMemberEpoch,
      short apiVersion,
      Map<TopicPartition, PartitionCommit> offsets) {}

  /**
   * Validates the committer, then writes every acceptable partition's offset in one batch.
   *
   * @return per partition, NONE once the commit is durable, or why it was refused
   */
  public CompletableFuture<Map<TopicPartition, Errors>> commit(CommitRequest request) {
    return OffsetCommitWrites.validateAndWrite(
        context,
        config,
        request.groupId(),
        request.offsets(),
        () -> validateCommitter(request),
        context::write,
        OffsetService::commitFailure);
  }

  private void validateCommitter(CommitRequest request) {
    Optional<Group> group = groups.get(request.groupId());
    if (group.isPresent()) {
      group
          .get()
          .validateOffsetCommit(
              request.memberId(),
              request.groupInstanceId(),
              request.generationIdOrMemberEpoch(),
              request.apiVersion());
    } else if (request.generationIdOrMemberEpoch() >= 0
        || (request.memberId() != null && !request.memberId().isEmpty())) {
      // A member of a group that does not exist (any more): its membership is gone.
      if (request.apiVersion() >= GROUP_NOT_FOUND_COMMIT_VERSION) {
        throw new GroupIdNotFoundException("group " + request.groupId() + " does not exist");
      }
      throw new IllegalGenerationException("group " + request.groupId() + " does not exist");
    }
    // Otherwise a commit from outside group management: the group is "simple" and exists through
    // its offsets.
  }

  /** What a client learns when the commit's write failed, as Kafka reports it. */
  private static Errors commitFailure(Throwable error) {
    Throwable cause =
        error instanceof java.util.concurrent.CompletionException && error.getCause() != null
            ? error.getCause()
            : error;
    Errors errors = Errors.forException(cause);
    return switch (errors) {
      case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE ->
          Errors.INVALID_COMMIT_OFFSET_SIZE;
      case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS -> errors;
      case REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
      default -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }

  /**
   * Committed offsets of a group.
   *
   * @param partitions the partitions asked for, or null for every partition with an offset
   * @param memberId the member asking (consumer groups, OffsetFetch v9+), or null
   * @return per partition the committed offset, empty where none is committed
   * @throws ApiException if the member check fails
   */
  public Map<TopicPartition, Optional<CommittedOffset>> fetch(
      String groupId, String memberId, int memberEpoch, List<TopicPartition> partitions) {
    if (memberId != null && !memberId.isEmpty()) {
      Optional<Group> group = groups.get(groupId);
      if (group.isEmpty()) {
        throw new GroupIdNotFoundException("group " + groupId + " does not exist");
      }
      group.get().validateOffsetFetch(memberId, memberEpoch);
    }
    Map<TopicPartition, Optional<CommittedOffset>> result = new LinkedHashMap<>();
    if (partitions == null) {
      offsets.committed(groupId).forEach((tp, committed) -> result.put(tp, Optional.of(committed)));
    } else {
      for (TopicPartition tp : partitions) {
        result.put(tp, offsets.committed(groupId, tp));
      }
    }
    return result;
  }

  /**
   * The partitions among {@code asked} (or among all the group's committed partitions when null)
   * that have a pending transactional offset: OffsetFetch with {@code require_stable} answers
   * UNSTABLE_OFFSET_COMMIT for them until the transaction ends (KIP-447).
   */
  public Set<TopicPartition> unstablePartitions(String groupId, Collection<TopicPartition> asked) {
    PendingTransactionalOffsets pending = offsets.pending();
    if (!pending.hasPending(groupId)) {
      return Set.of();
    }
    Collection<TopicPartition> candidates =
        asked == null ? offsets.committed(groupId).keySet() : asked;
    Set<TopicPartition> unstable = new HashSet<>();
    for (TopicPartition tp : candidates) {
      if (pending.hasPending(groupId, tp)) {
        unstable.add(tp);
      }
    }
    return unstable;
  }

  /** The outcome of an OffsetDelete: a group error, or one error per partition. */
  public record DeleteResult(Errors groupError, Map<TopicPartition, Errors> partitions) {}

  /**
   * Deletes committed offsets of partitions the group no longer consumes.
   *
   * @return GROUP_ID_NOT_FOUND for an unknown group; per partition GROUP_SUBSCRIBED_TO_TOPIC where
   *     members still consume the topic
   */
  public CompletableFuture<DeleteResult> delete(String groupId, List<TopicPartition> partitions) {
    Optional<Group> group = groups.get(groupId);
    if (group.isEmpty() && !offsets.hasOffsetsOrPending(groupId)) {
      return CompletableFuture.completedFuture(
          new DeleteResult(Errors.GROUP_ID_NOT_FOUND, Map.of()));
    }
    try {
      group.ifPresent(Group::validateOffsetDelete);
    } catch (ApiException e) {
      return CompletableFuture.completedFuture(new DeleteResult(Errors.forException(e), Map.of()));
    }
    Map<TopicPartition, Errors> result = new LinkedHashMap<>();
    List<CoordinatorRecord> records = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (group.isPresent() && group.get().isSubscribedTo(tp.topic())) {
        result.put(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
        continue;
      }
      // The tombstone drops pending transactional offsets of the partition too, as in Kafka.
      if (offsets.committed(groupId, tp).isPresent() || offsets.pending().hasPending(groupId, tp)) {
        records.add(OffsetRecords.tombstone(groupId, tp));
      }
      result.put(tp, Errors.NONE);
    }
    return context
        .write(records)
        .handle(
            (ok, error) -> {
              if (error != null) {
                return new DeleteResult(commitFailure(error), Map.of());
              }
              return new DeleteResult(Errors.NONE, result);
            });
  }

  /** Whether a group id has a group object or offsets on this shard. */
  public boolean exists(String groupId) {
    return groups.get(groupId).isPresent() || offsets.hasOffsetsOrPending(groupId);
  }
}
