package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.protocol.RequestContext;
import io.brook.storage.log.ReplicaLog;
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
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets: earliest, latest, by timestamp ("replay since 20:00") and max-timestamp lookups.
 * Consumers see offsets up to the high watermark (read_committed: the last stable offset); a
 * replica (replica id >= 0) sees the log end.
 *
 * <p>Earliest and latest are answered from memory on the event loop; a request with a timestamp or
 * max-timestamp lookup reads time indexes and scans segments, so it runs on {@link DiskWork}. Each
 * topic needs DESCRIBE (TOPIC_AUTHORIZATION_FAILED otherwise), as in Kafka.
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
    if (searchesSegments(request)) {
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
    long visibleEnd =
        replicaId >= 0
            ? log.logEndOffset()
            : readCommitted ? log.lastStableOffset() : log.highWatermark();
    long timestamp = request.timestamp();
    if (timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
      answer(out, -1L, log.logStartOffset(), log);
    } else if (timestamp == LATEST) {
      answer(out, -1L, visibleEnd, log);
    } else if (timestamp == MAX_TIMESTAMP) {
      Optional<FileRecords.TimestampAndOffset> max = log.maxTimestampRecord();
      max.ifPresent(m -> answer(out, m.timestamp, m.offset, log));
    } else if (timestamp == LATEST_TIERED || timestamp == EARLIEST_PENDING_UPLOAD) {
      // No remote tier: there is no tiered offset to report.
      out.setOffset(-1L).setTimestamp(-1L);
    } else if (timestamp >= 0) {
      log.offsetForTimestamp(timestamp, visibleEnd)
          .ifPresent(found -> answer(out, found.timestamp, found.offset, log));
    } else {
      throw new org.apache.kafka.common.errors.InvalidRequestException(
          "unknown ListOffsets timestamp " + timestamp);
    }
  }

  private static void answer(
      ListOffsetsPartitionResponse out, long timestamp, long offset, ReplicaLog log) {
    out.setTimestamp(timestamp)
        .setOffset(offset)
        .setLeaderEpoch(log.epochForOffset(offset).orElse(-1));
  }
}
