package io.brook.coordinator.api;

import io.brook.coordinator.api.ShareAdmin.StatePartition;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.group.share.ShareGroup;
import io.brook.coordinator.service.RequestInfo;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteShareGroupOffsets (KIP-932, {@code kafka-share-groups.sh --delete-offsets}): deletes an
 * empty share group's state of whole topics at their share coordinators (NON_EMPTY_GROUP when it
 * has members, GROUP_ID_NOT_FOUND when it does not exist or is not a share group); the topics then
 * leave its state partitions, so a member assigned them again starts per {@code
 * share.auto.offset.reset}. An unknown topic answers UNKNOWN_TOPIC_OR_PARTITION alone.
 */
public final class DeleteShareGroupOffsetsHandler extends GroupApi {
  private final ShareAdmin admin;

  DeleteShareGroupOffsetsHandler(ShareAdmin admin) {
    super(ApiKeys.DELETE_SHARE_GROUP_OFFSETS);
    this.admin = admin;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    DeleteShareGroupOffsetsRequestData request = (DeleteShareGroupOffsetsRequestData) message;
    String groupId = request.groupId();
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(
          new DeleteShareGroupOffsetsResponseData()
              .setErrorCode(Errors.INVALID_GROUP_ID.code())
              .setErrorMessage("Group id can't be empty."));
    }
    return admin
        .onShard(groupId, share -> CompletableFuture.completedFuture(share.adminView(groupId)))
        .thenCompose(
            view -> {
              Errors error = view.error();
              String why = view.message();
              if (error == Errors.NONE && !view.empty()) {
                error = Errors.NON_EMPTY_GROUP;
                why =
                    "The group has active members; its share offsets can only be deleted when"
                        + " it is empty.";
              }
              if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(
                    (ApiMessage)
                        new DeleteShareGroupOffsetsResponseData()
                            .setErrorCode(error.code())
                            .setErrorMessage(why));
              }
              return delete(groupId, request.topics(), view.statePartitions().entrySet());
            });
  }

  private CompletableFuture<ApiMessage> delete(
      String groupId,
      List<DeleteShareGroupOffsetsRequestTopic> topics,
      Set<Map.Entry<Uuid, ShareGroup.StateTopic>> recorded) {
    MetadataImage image = admin.coordinator().image();
    DeleteShareGroupOffsetsResponseData response = new DeleteShareGroupOffsetsResponseData();
    Set<Uuid> deleted = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (DeleteShareGroupOffsetsRequestTopic t : topics) {
      Optional<TopicImage> topic = image.topic(t.topicName());
      DeleteShareGroupOffsetsResponseTopic out =
          new DeleteShareGroupOffsetsResponseTopic()
              .setTopicName(t.topicName())
              .setTopicId(topic.map(TopicImage::id).orElse(Uuid.ZERO_UUID));
      response.responses().add(out);
      if (topic.isEmpty()) {
        out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
            .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
        continue;
      }
      Uuid id = topic.get().id();
      Set<Integer> partitions = new TreeSet<>(topic.get().partitions().keySet());
      recorded.stream()
          .filter(e -> e.getKey().equals(id))
          .forEach(e -> partitions.addAll(e.getValue().partitions()));
      List<StatePartition> state = new ArrayList<>();
      partitions.forEach(p -> state.add(new StatePartition(id, p)));
      pending.add(
          admin
              .deleteState(groupId, state)
              .thenAccept(
                  error -> {
                    if (error == Errors.NONE) {
                      deleted.add(id);
                    } else {
                      out.setErrorCode(error.code()).setErrorMessage(error.message());
                    }
                  }));
    }
    return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
        .thenCompose(
            v ->
                deleted.isEmpty()
                    ? CompletableFuture.<Void>completedFuture(null)
                    : admin
                        .coordinator()
                        .<Void>run(
                            groupId, shard -> shard.share().removeStateTopics(groupId, deleted)))
        .<ApiMessage>handle(
            (v, failure) -> {
              if (failure != null) {
                // The state is gone; only the group's list of topics could not be updated (a
                // describe then shows them with start offset -1).
                Errors error = CoordinatorErrors.map(failure);
                return new DeleteShareGroupOffsetsResponseData()
                    .setErrorCode(error.code())
                    .setErrorMessage(error.message());
              }
              return response;
            });
  }
}
