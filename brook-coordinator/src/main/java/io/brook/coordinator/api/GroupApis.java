package io.brook.coordinator.api;

import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.InternalTopicCreator;
import io.brook.coordinator.api.classic.ClassicApis;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.protocol.ApiHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/** The Kafka APIs the group coordinator serves. */
public final class GroupApis {
  private GroupApis() {}

  /**
   * @param transactionTopic where transactional ids' coordinators live, for FindCoordinator
   */
  public static List<ApiHandler> handlers(
      GroupCoordinator coordinator,
      ReplicaManager replicaManager,
      InternalTopicCreator topicCreator,
      InternalTopic transactionTopic) {
    List<ApiHandler> handlers = new ArrayList<>();
    handlers.add(
        new FindCoordinatorHandler(
            replicaManager,
            topicCreator,
            Map.of(
                CoordinatorType.GROUP,
                coordinator.offsetsTopic(),
                CoordinatorType.TRANSACTION,
                transactionTopic)));
    handlers.add(new OffsetCommitHandler(coordinator, replicaManager));
    handlers.add(new TxnOffsetCommitHandler(coordinator, replicaManager));
    handlers.add(new OffsetFetchHandler(coordinator, replicaManager));
    handlers.add(new OffsetDeleteHandler(coordinator));
    handlers.add(new ListGroupsHandler(coordinator));
    handlers.add(new DeleteGroupsHandler(coordinator));
    handlers.addAll(ClassicApis.handlers(coordinator));
    if (coordinator.config().rebalanceProtocols().contains("consumer")) {
      handlers.add(new ConsumerGroupHeartbeatHandler(coordinator));
      handlers.add(new ConsumerGroupDescribeHandler(coordinator));
    }
    return handlers;
  }
}
