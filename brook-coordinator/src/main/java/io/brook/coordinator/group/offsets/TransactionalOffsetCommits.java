package io.brook.coordinator.group.offsets;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.runtime.ShardContext;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit for one shard: validates the committer as Kafka does, then writes the offsets as
 * one transactional batch of the producer. They stay pending, invisible to OffsetFetch, until the
 * transaction coordinator's COMMIT marker reaches this partition (and vanish with ABORT).
 */
public final class TransactionalOffsetCommits {
  /**
   * From this version (KIP-1319) a missing group answers GROUP_ID_NOT_FOUND and a stale consumer
   * member epoch STALE_MEMBER_EPOCH; before it both are ILLEGAL_GENERATION.
   */
  private static final short GROUP_NOT_FOUND_VERSION = 6;

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;

  public TransactionalOffsetCommits(ShardContext context, GroupConfig config, Groups groups) {
    this.context = context;
    this.config = config;
    this.groups = groups;
  }

  /**
   * A transactional offset commit.
   *
   * @param generationIdOrMemberEpoch -1 for a producer outside group management (and before v3)
   * @param offsets in request order
   */
  public record TxnCommitRequest(
      String transactionalId,
      String groupId,
      long producerId,
      short producerEpoch,
      String memberId,
      String groupInstanceId,
      int generationIdOrMemberEpoch,
      short apiVersion,
      Map<TopicPartition, PartitionCommit> offsets) {}

  /**
   * @return per partition NONE once the pending offsets are durable, or why they were refused:
   *     PRODUCER_FENCED when a newer epoch of the producer already wrote to this partition
   */
  public CompletableFuture<Map<TopicPartition, Errors>> commit(TxnCommitRequest request) {
    return OffsetCommitWrites.validateAndWrite(
        context,
        config,
        request.groupId(),
        request.offsets(),
        () -> validate(request),
        records ->
            context.writeTransactional(records, request.producerId(), request.producerEpoch()),
        TransactionalOffsetCommits::writeFailure);
  }

  private void validate(TxnCommitRequest request) {
    if (request.producerId() < 0) {
      // The log refuses a transactional batch without a producer id; say why in protocol terms.
      throw new InvalidPidMappingException("a transactional commit needs a producer id");
    }
    boolean newErrors = request.apiVersion() >= GROUP_NOT_FOUND_VERSION;
    Optional<Group> group = groups.get(request.groupId());
    if (group.isEmpty()) {
      validateWithoutGroup(request, newErrors);
      return;
    }
    try {
      group
          .get()
          .validateTransactionalOffsetCommit(
              request.memberId(), request.groupInstanceId(), request.generationIdOrMemberEpoch());
    } catch (StaleMemberEpochException e) {
      if (newErrors) {
        throw e;
      }
      throw new IllegalGenerationException(e.getMessage());
    }
  }

  /**
   * A group that does not exist takes a commit from outside group management (generation -1): it
   * becomes a simple group through its offsets, as in Kafka. A member of a missing group is gone.
   */
  private static void validateWithoutGroup(TxnCommitRequest request, boolean newErrors) {
    String groupId = request.groupId();
    if (request.generationIdOrMemberEpoch() >= 0) {
      if (newErrors) {
        throw new GroupIdNotFoundException("group " + groupId + " does not exist");
      }
      throw new IllegalGenerationException("group " + groupId + " does not exist");
    }
    boolean hasMember = request.memberId() != null && !request.memberId().isEmpty();
    if (hasMember || request.groupInstanceId() != null) {
      throw new UnknownMemberIdException(
          "group " + groupId + " has no member " + request.memberId());
    }
  }

  /** What the client learns when the write failed, as Kafka's group coordinator maps it. */
  private static Errors writeFailure(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    Errors errors = Errors.forException(cause);
    return switch (errors) {
      // The log fences an older epoch with INVALID_PRODUCER_EPOCH (meant for Produce, where the
      // producer may abort and retry); for an offset commit it means a newer producer took over.
      case INVALID_PRODUCER_EPOCH, PRODUCER_FENCED -> Errors.PRODUCER_FENCED;
      case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS -> errors;
      case REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
      default -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }
}
