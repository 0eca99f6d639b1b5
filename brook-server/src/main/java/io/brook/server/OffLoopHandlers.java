package io.brook.server;

import io.brook.broker.cluster.OffloadedHandler;
import io.brook.broker.replica.DiskWork;
import io.brook.protocol.ApiHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which whole APIs leave the Netty event loop for the disk pool ({@link DiskWork}), because
 * answering them waits for the disk. APIs that only sometimes wait decide per request themselves
 * (Produce, ListOffsets, WriteTxnMarkers); see "Threads" in docs/architecture.md. Admin APIs the
 * controller decides are forwarded or run on {@code brook-admin} ({@code BrokerClusterServices}).
 */
final class OffLoopHandlers {
  /** Disk work on every node: moving the log start (may roll, renames files), statfs and sizes. */
  static final Set<ApiKeys> DISK_WORK = Set.of(ApiKeys.DELETE_RECORDS, ApiKeys.DESCRIBE_LOG_DIRS);

  private OffLoopHandlers() {}

  /** {@code handlers}, with those that wait for the disk wrapped to run on {@code disk}. */
  static List<ApiHandler> wrap(List<ApiHandler> handlers, DiskWork disk) {
    List<ApiHandler> wrapped = new ArrayList<>(handlers.size());
    for (ApiHandler handler : handlers) {
      ApiKeys key = handler.apiKey();
      wrapped.add(
          DISK_WORK.contains(key) ? new OffloadedHandler(handler, disk.executor()) : handler);
    }
    return wrapped;
  }
}
