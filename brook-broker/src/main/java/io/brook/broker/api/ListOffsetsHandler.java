package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.remote.TieredPartition;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets: earliest, latest, by timestamp ("replay since 20:00") and max-timestamp lookups.
 * Consumers see offsets up to the high watermark (read_committed: the last stable offset); a
 * replica (replica id >= 0) sees the log end.
 *
 * <p>Earliest and latest are answered from memory on the event loop; a request with a timestamp or
 * max-timestamp lookup reads time indexes and scans segments, so it runs on {@link DiskWork}, as
 * does every request on a broker with tiered storage (KIP-405: earliest is the remote log start,
 * {@code -4} the local one, {@code -5} the last offset in remote storage, and a timestamp is looked
 * up in remote segments before local ones). Each topic needs DESCRIBE (TOPIC_AUTHORIZATION_FAILED
 * otherwise), as in Kafka.
 */
public final class ListOffsetsHandler extends KafkaApi {
  /** Kafka's special timestamps (ListOffsetsRequest). */
  static final long LATEST = -1L;

  static final long EARLIEST = -2L;
  static final long MAX_TIMESTAMP = -3L;
  static final long EARLIEST_LOCAL = -4L;
  static final long LATEST_TIERED = -5L;
  static final long EARLIEST_PENDING_UPLOAD = -6L;

  private final ReplicaManager replicaManager;
  private final DiskWork disk;
  private final RequestAuthorizer authorizer;

  /** Timestamp searches run on the caller: for tests without an event loop. */
  public ListOffsetsHandler(ReplicaManager replicaManager) {
    this(replicaManager, DiskWork.inline(), RequestAuthorizer.ALLOW_ALL);
  }

  public ListOffsetsHandler(
      ReplicaManager replicaManager, DiskWork disk, RequestAuthorizer authorizer) {
    super(ApiKeys.LIST_OFFSETS);
    this.replicaManager = replicaManager;
    this.disk = disk;
    this.authorizer = authorizer;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ListOffsetsRequestData request = (ListOffsetsRequestData) message;
    // With tiered storage every lookup may read the remote manifest or indexes: never on the loop.
    if (searchesSegments(request) || replicaManager.logManager().remote().isPresent()) {
      return disk.submit(() -> answer(context, request));
    }
    return CompletableFuture.completedFuture(answer(context, request));
  }

  private static boolean searchesSegments(ListOffsetsRequestData request) {
    for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
      for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
        if (p.timestamp() >= 0 || p.timestamp() == MAX_TIMESTAMP) {
          return true;
        }
      }
    }
    return false;
  }

  private ApiMessage answer(RequestContext context, ListOffsetsRequestData request) {
    ListOffsetsResponseData response = new ListOffsetsResponseData();
    for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
      ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(topic.name());
      response.topics().add(topicResponse);
      boolean allowed =
          authorizer.authorize(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name());
      for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
        ListOffsetsPartitionResponse out =
            new ListOffsetsPartitionResponse()
                .setPartitionIndex(p.partitionIndex())
                .setTimestamp(-1L)
                .setOffset(-1L)
                .setLeaderEpoch(-1);
        topicResponse.partitions().add(out);
        if (!allowed) {
          out.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
          continue;
        }
        try {
          lookup(
              new TopicPartition(topic.name(), p.partitionIndex()),
              p,
              request.replicaId(),
              request.isolationLevel() == FetchHandler.READ_COMMITTED,
              out);
          if (context.apiVersion() < 4) {
            // The leader epoch is part of the answer from v4 only; older versions cannot carry it.
            out.setLeaderEpoch(-1);
          }
        } catch (RuntimeException e) {
          out.setErrorCode(ApiFailure.of(e).code());
        }
      }
    }
    return response;
  }

  private void lookup(
      TopicPartition tp,
      ListOffsetsRequestData.ListOffsetsPartition request,
      int replicaId,
      boolean readCommitted,
      ListOffsetsPartitionResponse out) {
    Partition partition = replicaManager.partitionOrThrow(tp);
    partition.checkLeaderEpoch(
        request.currentLeaderEpoch() < 0
            ? Optional.empty()
            : Optional.of(request.currentLeaderEpoch()));
    partition.ensureLeader();
    ReplicaLog log = partition.log();
    // read_committed consumers see up to the last stable offset, by offset and by time alike.
    // Anyone but a consumer (a replica, or the debugging id -2 as Kafka allows) sees to the log
    // end.
    long visibleEnd =
        replicaId != ListOffsetsRequest.CONSUMER_REPLICA_ID
            ? log.logEndOffset()
            : readCommitted ? log.lastStableOffset() : log.highWatermark();
    long timestamp = request.timestamp();
    Optional<TieredPartition> tier = tier(log);
    if (timestamp == EARLIEST && tier.isPresent()) {
      answer(out, -1L, Math.min(tier.get().logStartOffset(), log.logStartOffset()), log);
    } else if (timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
      answer(out, -1L, log.logStartOffset(), log);
    } else if (timestamp == LATEST) {
      answer(out, -1L, visibleEnd, log);
    } else if (timestamp == MAX_TIMESTAMP) {
      Optional<FileRecords.TimestampAndOffset> max = log.maxTimestampRecord();
      max.ifPresent(m -> answer(out, m.timestamp, m.offset, log));
    } else if (timestamp == LATEST_TIERED && tier.isPresent()) {
      long highest = tier.get().highestRemoteOffset();
      out.setOffset(highest).setTimestamp(-1L);
      if (highest >= 0) {
        answer(out, -1L, highest, log);
      }
    } else if (timestamp == LATEST_TIERED || timestamp == EARLIEST_PENDING_UPLOAD) {
      // No remote tier (or, for -6, not yet tracked): there is no tiered offset to report.
      out.setOffset(-1L).setTimestamp(-1L);
    } else if (timestamp >= 0) {
      Optional<FileRecords.TimestampAndOffset> remote =
          tier.isPresent() ? remoteOffsetForTimestamp(tier.get(), timestamp) : Optional.empty();
      if (remote.isPresent()) {
        FileRecords.TimestampAndOffset found = remote.get();
        out.setTimestamp(found.timestamp)
            .setOffset(found.offset)
            .setLeaderEpoch(found.leaderEpoch.orElse(-1));
      } else {
        log.offsetForTimestamp(timestamp, visibleEnd)
            .ifPresent(found -> answer(out, found.timestamp, found.offset, log));
      }
    } else {
      throw new org.apache.kafka.common.errors.InvalidRequestException(
          "unknown ListOffsets timestamp " + timestamp);
    }
  }

  /** The partition's remote tier, when its topic is tiered on a broker with tiered storage. */
  private Optional<TieredPartition> tier(ReplicaLog log) {
    Optional<RemoteLogManager> remote = replicaManager.logManager().remote();
    if (remote.isEmpty()
        || !(log instanceof PartitionLog local)
        || !local.config().remoteStorageEnable()) {
      return Optional.empty();
    }
    try {
      return Optional.of(remote.get().tier(local));
    } catch (IOException e) {
      throw new StorageException(
          StorageError.KAFKA_STORAGE_ERROR,
          "reading remote metadata of " + log.topicPartition(),
          e);
    }
  }

  private static Optional<FileRecords.TimestampAndOffset> remoteOffsetForTimestamp(
      TieredPartition tier, long timestamp) {
    try {
      return tier.offsetForTimestamp(timestamp);
    } catch (IOException e) {
      throw new StorageException(
          StorageError.KAFKA_STORAGE_ERROR,
          "searching remote storage of " + tier.topicPartition(),
          e);
    }
  }

  private static void answer(
      ListOffsetsPartitionResponse out, long timestamp, long offset, ReplicaLog log) {
    out.setTimestamp(timestamp)
        .setOffset(offset)
        .setLeaderEpoch(log.epochForOffset(offset).orElse(-1));
  }
}
