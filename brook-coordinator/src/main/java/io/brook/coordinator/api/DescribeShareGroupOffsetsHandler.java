package io.brook.coordinator.api;

import io.brook.coordinator.group.share.ShareGroup;
import io.brook.coordinator.group.share.ShareGroupManager.AdminView;
import io.brook.coordinator.service.RequestInfo;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeShareGroupOffsets (KIP-932): each share-partition's start offset, read from its share
 * coordinator (ReadShareGroupStateSummary). Without topics a group's every state partition is
 * described; a share-partition without state has start offset -1. A group that does not exist or is
 * not a share group answers GROUP_ID_NOT_FOUND, an unknown topic UNKNOWN_TOPIC_OR_PARTITION on its
 * partitions.
 *
 * <p>Served at version 0: the lag of version 1 needs each partition's high watermark, which the
 * group coordinator does not have (the Admin client then reports no lag).
 */
public final class DescribeShareGroupOffsetsHandler extends GroupApi {
  private final ShareAdmin admin;

  DescribeShareGroupOffsetsHandler(ShareAdmin admin) {
    super(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS);
    this.admin = admin;
  }

  @Override
  public short maxVersion() {
    return 0;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    DescribeShareGroupOffsetsRequestData request = (DescribeShareGroupOffsetsRequestData) message;
    List<CompletableFuture<DescribeShareGroupOffsetsResponseGroup>> groups = new ArrayList<>();
    for (DescribeShareGroupOffsetsRequestGroup group : request.groups()) {
      groups.add(describe(group));
    }
    return CompletableFuture.allOf(groups.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DescribeShareGroupOffsetsResponseData response =
                  new DescribeShareGroupOffsetsResponseData();
              groups.forEach(g -> response.groups().add(g.join()));
              return response;
            });
  }

  private CompletableFuture<DescribeShareGroupOffsetsResponseGroup> describe(
      DescribeShareGroupOffsetsRequestGroup request) {
    String groupId = request.groupId();
    DescribeShareGroupOffsetsResponseGroup out =
        new DescribeShareGroupOffsetsResponseGroup().setGroupId(groupId);
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(
          out.setErrorCode(Errors.INVALID_GROUP_ID.code())
              .setErrorMessage("Group id can't be empty."));
    }
    return admin
        .onShard(groupId, share -> CompletableFuture.completedFuture(share.adminView(groupId)))
        .thenCompose(
            view -> {
              if (view.error() != Errors.NONE) {
                return CompletableFuture.completedFuture(
                    out.setErrorCode(view.error().code()).setErrorMessage(view.message()));
              }
              return describe(groupId, request.topics(), view, out);
            });
  }

  private CompletableFuture<DescribeShareGroupOffsetsResponseGroup> describe(
      String groupId,
      List<DescribeShareGroupOffsetsRequestTopic> topics,
      AdminView view,
      DescribeShareGroupOffsetsResponseGroup out) {
    MetadataImage image = admin.coordinator().image();
    List<CompletableFuture<?>> reads = new ArrayList<>();
    if (topics == null) {
      for (Map.Entry<Uuid, ShareGroup.StateTopic> e : view.statePartitions().entrySet()) {
        Optional<TopicImage> topic = image.topic(e.getKey());
        if (topic.isEmpty()) {
          continue;
        }
        out.topics()
            .add(
                topic(
                    groupId,
                    topic.get().name(),
                    e.getKey(),
                    List.copyOf(new TreeSet<>(e.getValue().partitions())),
                    reads));
      }
    } else {
      for (DescribeShareGroupOffsetsRequestTopic t : topics) {
        Optional<TopicImage> topic = image.topic(t.topicName());
        if (topic.isEmpty()) {
          DescribeShareGroupOffsetsResponseTopic unknown =
              new DescribeShareGroupOffsetsResponseTopic()
                  .setTopicName(t.topicName())
                  .setTopicId(Uuid.ZERO_UUID);
          for (int p : t.partitions()) {
            unknown
                .partitions()
                .add(
                    new DescribeShareGroupOffsetsResponsePartition()
                        .setPartitionIndex(p)
                        .setStartOffset(-1)
                        .setLeaderEpoch(-1)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
          }
          out.topics().add(unknown);
          continue;
        }
        out.topics().add(topic(groupId, t.topicName(), topic.get().id(), t.partitions(), reads));
      }
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> out);
  }

  /** A topic's partitions, each filled in when its summary arrives. */
  private DescribeShareGroupOffsetsResponseTopic topic(
      String groupId,
      String name,
      Uuid topicId,
      List<Integer> partitions,
      List<CompletableFuture<?>> reads) {
    DescribeShareGroupOffsetsResponseTopic topic =
        new DescribeShareGroupOffsetsResponseTopic().setTopicName(name).setTopicId(topicId);
    for (int p : partitions) {
      DescribeShareGroupOffsetsResponsePartition partition =
          new DescribeShareGroupOffsetsResponsePartition()
              .setPartitionIndex(p)
              .setStartOffset(-1)
              .setLeaderEpoch(-1);
      topic.partitions().add(partition);
      reads.add(
          admin
              .states()
              .readSummary(groupId, topicId, p)
              .thenAccept(summary -> fill(partition, summary)));
    }
    return topic;
  }

  private static void fill(
      DescribeShareGroupOffsetsResponsePartition partition,
      ReadShareGroupStateSummaryResponseData.PartitionResult summary) {
    Errors error = Errors.forCode(summary.errorCode());
    if (error != Errors.NONE) {
      partition
          .setErrorCode(error.code())
          .setErrorMessage(
              summary.errorMessage() != null ? summary.errorMessage() : error.message());
      return;
    }
    partition.setStartOffset(summary.startOffset()).setLeaderEpoch(summary.leaderEpoch());
  }
}
