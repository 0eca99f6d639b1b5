package io.brook.coordinator.api.classic;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicGroupManager;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;

/** A classic group API served in every version kafka-clients knows, as Kafka 4.x serves it. */
abstract class ClassicApi extends GroupApi {
  protected final GroupCoordinator coordinator;

  ClassicApi(ApiKeys apiKey, GroupCoordinator coordinator) {
    super(apiKey);
    this.coordinator = coordinator;
  }

  /**
   * Runs {@code op} on the classic manager of the shard owning {@code groupId}; fails with
   * NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS when this broker cannot serve it.
   */
  protected <T> CompletableFuture<T> onShard(
      String groupId, Function<ClassicGroupManager, CompletableFuture<T>> op) {
    return coordinator.run(groupId, shard -> op.apply(shard.classic()));
  }
}
