package io.brook.coordinator.api;

import io.brook.coordinator.api.classic.ClassicApis;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.protocol.ApiHandler;
import java.util.ArrayList;
import java.util.List;

/** The Kafka APIs the group coordinator serves. */
public final class GroupApis {
  private GroupApis() {}

  public static List<ApiHandler> handlers(GroupCoordinator coordinator) {
    List<ApiHandler> handlers = new ArrayList<>();
    handlers.addAll(ClassicApis.handlers(coordinator));
    return handlers;
  }
}
