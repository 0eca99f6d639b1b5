package io.brook.coordinator.api;

import io.brook.coordinator.group.share.ShareGroup;
import io.brook.coordinator.service.RequestInfo;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterShareGroupOffsets (KIP-932, {@code kafka-share-groups.sh --reset-offsets}): sets the start
 * offset of share-partitions of an empty share group (NON_EMPTY_GROUP otherwise; a group that does
 * not exist is created, a group of another type is GROUP_ID_NOT_FOUND). Each share-partition's
 * state is initialized again at its share coordinator with the next state epoch, nothing in flight:
 * a leader still holding the old state is fenced on its next write (FENCED_STATE_EPOCH) and reads
 * the new one. An unknown topic or partition answers UNKNOWN_TOPIC_OR_PARTITION, a negative offset
 * INVALID_REQUEST, for that partition alone.
 */
public final class AlterShareGroupOffsetsHandler extends GroupApi {
  private final ShareAdmin admin;

  AlterShareGroupOffsetsHandler(ShareAdmin admin) {
    super(ApiKeys.ALTER_SHARE_GROUP_OFFSETS);
    this.admin = admin;
  }

  /** A partition to reset and where its answer goes. */
  private record Reset(
      Uuid topicId, int partition, long startOffset, AlterShareGroupOffsetsResponsePartition out) {}

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    AlterShareGroupOffsetsRequestData request = (AlterShareGroupOffsetsRequestData) message;
    String groupId = request.groupId();
    AlterShareGroupOffsetsResponseData response = new AlterShareGroupOffsetsResponseData();
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(
          response
              .setErrorCode(Errors.INVALID_GROUP_ID.code())
              .setErrorMessage("Group id can't be empty."));
    }
    MetadataImage image = admin.coordinator().image();
    List<Reset> resets = new ArrayList<>();
    Map<Uuid, ShareGroup.StateTopic> partitions = new LinkedHashMap<>();
    for (AlterShareGroupOffsetsRequestTopic t : request.topics()) {
      Optional<TopicImage> topic = image.topic(t.topicName());
      AlterShareGroupOffsetsResponseTopic outTopic =
          new AlterShareGroupOffsetsResponseTopic()
              .setTopicName(t.topicName())
              .setTopicId(topic.map(TopicImage::id).orElse(Uuid.ZERO_UUID));
      response.responses().add(outTopic);
      Set<Integer> valid = new TreeSet<>();
      for (AlterShareGroupOffsetsRequestPartition p : t.partitions()) {
        AlterShareGroupOffsetsResponsePartition out =
            new AlterShareGroupOffsetsResponsePartition().setPartitionIndex(p.partitionIndex());
        outTopic.partitions().add(out);
        if (topic.isEmpty() || !topic.get().partitions().containsKey(p.partitionIndex())) {
          out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
              .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
        } else if (p.startOffset() < 0) {
          out.setErrorCode(Errors.INVALID_REQUEST.code())
              .setErrorMessage("The start offset must not be negative.");
        } else {
          valid.add(p.partitionIndex());
          resets.add(new Reset(topic.get().id(), p.partitionIndex(), p.startOffset(), out));
        }
      }
      if (!valid.isEmpty()) {
        partitions.put(
            topic.get().id(), new ShareGroup.StateTopic(t.topicName(), Set.copyOf(valid)));
      }
    }
    return admin
        .onShard(groupId, share -> share.prepareReset(groupId, partitions))
        .thenCompose(
            view -> {
              if (view.error() != Errors.NONE) {
                return CompletableFuture.completedFuture(
                    (ApiMessage)
                        new AlterShareGroupOffsetsResponseData()
                            .setErrorCode(view.error().code())
                            .setErrorMessage(view.message()));
              }
              List<CompletableFuture<Void>> done = new ArrayList<>();
              for (Reset reset : resets) {
                done.add(reset(groupId, reset));
              }
              return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                  .thenApply(v -> (ApiMessage) response);
            });
  }

  /** Initializes the share-partition again with the state epoch after its current one. */
  private CompletableFuture<Void> reset(String groupId, Reset reset) {
    return admin
        .states()
        .readSummary(groupId, reset.topicId(), reset.partition())
        .thenCompose(
            summary -> {
              Errors read = Errors.forCode(summary.errorCode());
              if (read != Errors.NONE) {
                return CompletableFuture.completedFuture(read);
              }
              return admin
                  .states()
                  .initialize(
                      groupId,
                      reset.topicId(),
                      reset.partition(),
                      summary.stateEpoch() + 1,
                      reset.startOffset());
            })
        .thenAccept(
            error -> {
              if (error != Errors.NONE) {
                reset.out().setErrorCode(error.code()).setErrorMessage(error.message());
              }
            });
  }
}
