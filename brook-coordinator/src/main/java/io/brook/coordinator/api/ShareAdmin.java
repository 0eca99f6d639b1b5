package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.group.share.ShareGroupManager;
import io.brook.coordinator.group.share.ShareGroupManager.AdminView;
import io.brook.coordinator.service.ShareStateClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the share-group admin APIs (DescribeShareGroupOffsets, AlterShareGroupOffsets,
 * DeleteShareGroupOffsets, and DeleteGroups of a share group) share: the group as its shard sees
 * it, and the share coordinators of its share-partitions.
 */
final class ShareAdmin {
  private final GroupCoordinator coordinator;
  private final ShareStateClient states;

  ShareAdmin(GroupCoordinator coordinator, ShareStateClient states) {
    this.coordinator = coordinator;
    this.states = states;
  }

  GroupCoordinator coordinator() {
    return coordinator;
  }

  ShareStateClient states() {
    return states;
  }

  /**
   * Runs {@code op} on the group's shard; a shard that cannot answer (NOT_COORDINATOR, loading) is
   * the view's error.
   */
  CompletableFuture<AdminView> onShard(
      String groupId, Function<ShareGroupManager, CompletableFuture<AdminView>> op) {
    CompletableFuture<AdminView> result;
    try {
      result = coordinator.run(groupId, shard -> op.apply(shard.share()));
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.handle(
        (view, failure) -> {
          if (failure == null) {
            return view;
          }
          Errors error = CoordinatorErrors.map(failure);
          return AdminView.failed(error, error.message());
        });
  }

  /** A share-partition of the group: a topic (by id) and partition. */
  record StatePartition(Uuid topicId, int partition) {}

  /**
   * Deletes the state of {@code partitions} at their share coordinators.
   *
   * @return NONE, or the first error met
   */
  CompletableFuture<Errors> deleteState(String groupId, List<StatePartition> partitions) {
    List<CompletableFuture<Errors>> deletes = new ArrayList<>(partitions.size());
    for (StatePartition p : partitions) {
      deletes.add(states.delete(groupId, p.topicId(), p.partition()));
    }
    return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored ->
                deletes.stream()
                    .map(CompletableFuture::join)
                    .filter(e -> e != Errors.NONE)
                    .findFirst()
                    .orElse(Errors.NONE));
  }

  /** Every share-partition in a view's state partitions. */
  static List<StatePartition> all(AdminView view) {
    List<StatePartition> out = new ArrayList<>();
    view.statePartitions()
        .forEach(
            (id, topic) -> topic.partitions().forEach(p -> out.add(new StatePartition(id, p))));
    return out;
  }
}
