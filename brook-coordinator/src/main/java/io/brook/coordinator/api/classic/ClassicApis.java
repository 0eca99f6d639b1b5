package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.protocol.ApiHandler;
import java.util.List;

/** The classic group protocol's APIs. */
public final class ClassicApis {
  private ClassicApis() {}

  public static List<ApiHandler> handlers(GroupCoordinator coordinator) {
    return List.of(
        new JoinGroupHandler(coordinator),
        new SyncGroupHandler(coordinator),
        new HeartbeatHandler(coordinator),
        new LeaveGroupHandler(coordinator),
        new DescribeGroupsHandler(coordinator));
  }
}
