package io.brook.broker.share;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.SegmentFileSource;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.replica.Partition;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.RequestContext;
import io.brook.protocol.ZeroCopyRecords;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What ShareFetch and ShareAcknowledge do to one partition: resolve it (topic id, READ on the
 * topic, this broker leads it), apply acknowledgements, and acquire records for a member, answering
 * them as the fetch path does: the batches are sent from the segment file (zero copy) and the
 * acquired offsets travel beside them as ranges.
 */
final class ShareDelivery {
  private final SharePartitionManager manager;
  private final RequestAuthorizer authorizer;

  ShareDelivery(SharePartitionManager manager, RequestAuthorizer authorizer) {
    this.manager = manager;
    this.authorizer = authorizer;
  }

  SharePartitionManager manager() {
    return manager;
  }

  /** A partition of a request, resolved once per request. */
  record Resolved(TopicPartition topicPartition, Partition partition, Errors error) {
    boolean ok() {
      return error == Errors.NONE;
    }
  }

  /** Resolves partitions, authorizing each topic once per request. */
  final class Resolver {
    private final RequestContext context;
    private final MetadataImage image = manager.replicaManager().image();
    private final Map<Uuid, Errors> topicErrors = new HashMap<>();

    Resolver(RequestContext context) {
      this.context = context;
    }

    Resolved resolve(Uuid topicId, int partitionIndex) {
      Optional<TopicImage> topic = image.topic(topicId);
      if (topic.isEmpty()) {
        return new Resolved(null, null, Errors.UNKNOWN_TOPIC_ID);
      }
      String name = topic.get().name();
      Errors topicError =
          topicErrors.computeIfAbsent(
              topicId,
              id ->
                  authorizer.authorize(context, AclOperation.READ, ResourceType.TOPIC, name)
                      ? Errors.NONE
                      : Errors.TOPIC_AUTHORIZATION_FAILED);
      TopicPartition tp = new TopicPartition(name, partitionIndex);
      if (topicError != Errors.NONE) {
        return new Resolved(tp, null, topicError);
      }
      if (topic.get().partition(partitionIndex).isEmpty()) {
        return new Resolved(tp, null, Errors.UNKNOWN_TOPIC_OR_PARTITION);
      }
      Optional<Partition> partition = manager.replicaManager().partition(tp);
      if (partition.isEmpty() || !partition.get().isLeader()) {
        return new Resolved(tp, null, Errors.NOT_LEADER_OR_FOLLOWER);
      }
      return new Resolved(tp, partition.get(), Errors.NONE);
    }

    /** The leader the metadata names, for a NOT_LEADER_OR_FOLLOWER answer. */
    void fillLeader(Resolved resolved, ShareFetchResponseData.LeaderIdAndEpoch leader) {
      if (resolved.topicPartition() == null) {
        return;
      }
      Optional<PartitionImage> p =
          image.partition(resolved.topicPartition().topic(), resolved.topicPartition().partition());
      p.ifPresent(i -> leader.setLeaderId(i.leader()).setLeaderEpoch(i.leaderEpoch()));
    }
  }

  /** One acknowledgement batch of a request. */
  record Ack(long firstOffset, long lastOffset, List<Byte> types) {}

  /**
   * Applies a member's acknowledgement batches to one partition. Each batch applies whole or not at
   * all; the first error is answered, the other batches still apply.
   *
   * @return completes once the changes are durable (written to the share coordinator), with the
   *     first batch's error or else the write's
   */
  CompletableFuture<Errors> acknowledge(
      String groupId, String memberId, Resolved resolved, List<Ack> acks) {
    if (!resolved.ok()) {
      return CompletableFuture.completedFuture(resolved.error());
    }
    Optional<SharePartition> state = manager.existing(groupId, resolved.topicPartition());
    if (state.isEmpty()) {
      return CompletableFuture.completedFuture(Errors.INVALID_RECORD_STATE);
    }
    Errors first = Errors.NONE;
    for (Ack ack : acks) {
      Errors error =
          state.get().acknowledge(memberId, ack.firstOffset(), ack.lastOffset(), ack.types());
      if (first == Errors.NONE) {
        first = error;
      }
    }
    // Released records and a moved start offset may let waiting fetches acquire.
    manager.replicaManager().delayedOperations().onProgress(resolved.topicPartition());
    Errors batchError = first;
    return manager
        .persist(groupId, resolved.topicPartition())
        .thenApply(written -> batchError != Errors.NONE ? batchError : written);
  }

  /**
   * Acquires up to {@code maxRecords} records of one partition for a member, reading at most {@code
   * maxBytes} (the first batch whole), and puts them in {@code data}.
   *
   * @return how many records were acquired
   */
  int acquire(
      String groupId,
      String memberId,
      Resolved resolved,
      int maxRecords,
      int maxBytes,
      ShareFetchResponseData.PartitionData data) {
    if (maxRecords <= 0) {
      return 0;
    }
    try {
      Partition partition = resolved.partition();
      SharePartition state = manager.sharePartition(groupId, partition);
      if (state == null) {
        return 0; // being read from the share coordinator; the fetch waits for it
      }
      ReplicaLog log = partition.log();
      state.moveStartTo(log.logStartOffset());
      state.expireLocks();
      long from = state.nextFetchOffset();
      long highWatermark = log.highWatermark();
      if (from < 0 || from >= highWatermark) {
        return 0;
      }
      LogReadResult read = log.read(from, maxBytes, highWatermark, true);
      BatchScan.Result scan = BatchScan.scan(read.slice(), from + maxRecords - 1);
      if (scan.bytes() == 0) {
        return 0;
      }
      List<AcquiredRange> ranges =
          state.acquire(memberId, from, Math.min(scan.lastOffset(), highWatermark - 1), maxRecords);
      if (ranges.isEmpty()) {
        return 0;
      }
      int acquired = 0;
      for (AcquiredRange range : ranges) {
        data.acquiredRecords()
            .add(
                new ShareFetchResponseData.AcquiredRecords()
                    .setFirstOffset(range.firstOffset())
                    .setLastOffset(range.lastOffset())
                    .setDeliveryCount(range.deliveryCount()));
        acquired += (int) (range.lastOffset() - range.firstOffset() + 1);
      }
      data.setRecords(
          new ZeroCopyRecords(
              new SegmentFileSource(read.slice().file()), read.slice().position(), scan.bytes()));
      return acquired;
    } catch (RuntimeException e) {
      data.setErrorCode(ApiFailure.of(e).code());
      return 0;
    }
  }

  /** Whether a fetch for the member could acquire from {@code resolved} now. */
  boolean canAcquire(String groupId, Resolved resolved) {
    Optional<Partition> now = manager.replicaManager().partition(resolved.topicPartition());
    if (now.isEmpty() || !now.get().isLeader()) {
      return true; // answer at once: the client learns the partition moved
    }
    Optional<SharePartition> state = manager.existing(groupId, resolved.topicPartition());
    if (state.isEmpty()) {
      return !manager.loading(groupId, resolved.topicPartition());
    }
    return state.get().hasAvailable(now.get().log().highWatermark());
  }
}
