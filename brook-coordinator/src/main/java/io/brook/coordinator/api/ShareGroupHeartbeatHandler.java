package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.group.share.ShareGroup;
import io.brook.coordinator.group.share.ShareGroupManager;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.ShareStateClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShareGroupHeartbeat (KIP-932): routed to the shard that owns the group. As in Kafka, share groups
 * are served only while the cluster's {@code share.version} feature is at least 1; below that the
 * answer is UNSUPPORTED_VERSION.
 *
 * <p>When the heartbeat finds share-partitions of the group's topics without state, they are
 * initialized at their share coordinators ({@code InitializeShareGroupState}, as Kafka's group
 * coordinator does) before the answer goes out, so the member is given them in this answer; one
 * whose initialization failed is left out and tried again by the next heartbeat.
 */
public final class ShareGroupHeartbeatHandler extends GroupApi {
  private static final Logger log = LoggerFactory.getLogger(ShareGroupHeartbeatHandler.class);

  /** Kafka's feature gating share groups. */
  public static final String SHARE_VERSION = "share.version";

  private final GroupCoordinator coordinator;
  private final ShareStateClient states;

  /**
   * @param states reaches the share coordinators, or null to take every share-partition as
   *     initialized at once (the leaders initialize their state on the first fetch)
   */
  public ShareGroupHeartbeatHandler(GroupCoordinator coordinator, ShareStateClient states) {
    super(ApiKeys.SHARE_GROUP_HEARTBEAT);
    this.coordinator = coordinator;
    this.states = states;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ShareGroupHeartbeatRequestData request = (ShareGroupHeartbeatRequestData) message;
    String groupId = request.groupId() == null ? "" : request.groupId();
    return coordinator
        .run(
            groupId,
            shard -> {
              if (shard.context().image().featureLevel(SHARE_VERSION) < 1) {
                return CompletableFuture.completedFuture(
                    new ShareGroupManager.HeartbeatOutcome(
                        new ShareGroupHeartbeatResponseData()
                            .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                            .setErrorMessage("Share groups are not enabled (share.version is 0)."),
                        null));
              }
              return shard
                  .share()
                  .heartbeatAndInitialize(context.clientId(), context.clientHost(), request);
            })
        .thenCompose(
            outcome ->
                outcome.initialization() == null
                    ? CompletableFuture.completedFuture(outcome.response())
                    : initialize(outcome.initialization(), outcome.response()))
        .handle(
            (response, failure) -> {
              if (failure == null) {
                return response;
              }
              Errors error = CoordinatorErrors.map(failure);
              return new ShareGroupHeartbeatResponseData()
                  .setErrorCode(error.code())
                  .setErrorMessage(error.message());
            });
  }

  /** Attempts at initializing a share-partition within one heartbeat, and the first backoff. */
  static final int ATTEMPTS = 5;

  static final long FIRST_BACKOFF_MS = 100;

  /**
   * Initializes the share-partitions at their share coordinators (with the group epoch as state
   * epoch), then has the shard record the ones that succeeded and answer with them. A share
   * coordinator that already holds a newer state epoch (an offset reset got there first) counts as
   * initialized. Retriable errors (the coordinator is loading, or {@code __share_group_state} is
   * being created on first use) are retried a few times with a doubling backoff; what still fails
   * is tried again by the member's next heartbeat, as Kafka does.
   */
  private CompletableFuture<ShareGroupHeartbeatResponseData> initialize(
      ShareGroupManager.Initialization init, ShareGroupHeartbeatResponseData response) {
    Set<ShareGroup.PartitionId> done = new HashSet<>();
    return attempt(init, init.partitions(), done, 1)
        .thenCompose(
            failed ->
                coordinator
                    .run(
                        init.groupId(),
                        shard -> shard.share().completeInitialization(init, done, failed, response))
                    .exceptionally(failure -> response));
  }

  /** One attempt at {@code partitions}; completes with those that could not be initialized. */
  private CompletableFuture<Set<ShareGroup.PartitionId>> attempt(
      ShareGroupManager.Initialization init,
      List<ShareGroupManager.InitPartition> partitions,
      Set<ShareGroup.PartitionId> done,
      int attempt) {
    List<CompletableFuture<Errors>> calls = new ArrayList<>(partitions.size());
    for (ShareGroupManager.InitPartition p : partitions) {
      calls.add(
          states == null
              ? CompletableFuture.completedFuture(Errors.NONE)
              : states.initialize(
                  init.groupId(), p.topicId(), p.partition(), init.stateEpoch(), p.startOffset()));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .thenCompose(
            ignored -> {
              List<ShareGroupManager.InitPartition> retry = new ArrayList<>();
              Set<ShareGroup.PartitionId> failed = new HashSet<>();
              Errors last = Errors.NONE;
              for (int i = 0; i < partitions.size(); i++) {
                Errors error = calls.get(i).join();
                ShareGroupManager.InitPartition p = partitions.get(i);
                ShareGroup.PartitionId id = new ShareGroup.PartitionId(p.topicId(), p.partition());
                if (error == Errors.NONE || error == Errors.FENCED_STATE_EPOCH) {
                  done.add(id);
                } else if (attempt < ATTEMPTS && error.exception() instanceof RetriableException) {
                  retry.add(p);
                } else {
                  failed.add(id);
                  last = error;
                }
              }
              if (!failed.isEmpty()) {
                log.warn(
                    "Initializing share-partition state failed, retrying with the next heartbeat"
                        + " groupId={} partitions={} error={}",
                    init.groupId(),
                    failed.size(),
                    last);
              }
              if (retry.isEmpty()) {
                return CompletableFuture.completedFuture(failed);
              }
              long backoff = FIRST_BACKOFF_MS << (attempt - 1);
              Executor later = CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS);
              return CompletableFuture.supplyAsync(() -> null, later)
                  .thenCompose(v -> attempt(init, retry, done, attempt + 1))
                  .thenApply(
                      more -> {
                        failed.addAll(more);
                        return failed;
                      });
            });
  }
}
