package io.brook.server;

import io.brook.broker.cluster.OffloadedHandler;
import io.brook.broker.replica.DiskWork;
import io.brook.protocol.ApiHandler;
import io.brook.server.cluster.ClusterServices;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which whole APIs leave the Netty event loop for the disk pool ({@link DiskWork}), because
 * answering them waits for the disk. APIs that only sometimes wait decide per request themselves
 * (Produce, ListOffsets, WriteTxnMarkers); see "Threads" in docs/architecture.md.
 */
final class OffLoopHandlers {
  /** Disk work on every node: moving the log start (may roll, renames files), statfs and sizes. */
  static final Set<ApiKeys> DISK_WORK = Set.of(ApiKeys.DELETE_RECORDS, ApiKeys.DESCRIBE_LOG_DIRS);

  /**
   * On a single node, the admin APIs the controller decides ({@link
   * ClusterServices#CONTROLLER_DECIDED}; the writes among them wait for a metadata journal append
   * and its fsync in {@code LocalMetadataQuorum}) and InitProducerId (a new block of ids is such a
   * write). In a cluster they are forwarded or run on {@code brook-admin}.
   */
  private static boolean writesJournalOnSingleNode(ApiKeys key) {
    return ClusterServices.CONTROLLER_DECIDED.contains(key) || key == ApiKeys.INIT_PRODUCER_ID;
  }

  private OffLoopHandlers() {}

  /** {@code handlers}, with those that wait for the disk wrapped to run on {@code disk}. */
  static List<ApiHandler> wrap(List<ApiHandler> handlers, DiskWork disk, boolean singleNode) {
    List<ApiHandler> wrapped = new ArrayList<>(handlers.size());
    for (ApiHandler handler : handlers) {
      ApiKeys key = handler.apiKey();
      boolean offLoop = DISK_WORK.contains(key) || (singleNode && writesJournalOnSingleNode(key));
      wrapped.add(offLoop ? new OffloadedHandler(handler, disk.executor()) : handler);
    }
    return wrapped;
  }
}
