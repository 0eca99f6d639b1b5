package io.brook.broker;

import java.util.function.IntSupplier;

/**
 * Who this broker is.
 *
 * @param brokerId {@code node.id}
 * @param clusterId the cluster's id, kept in {@code meta.properties}
 * @param activeController the node id to report as controller in Metadata and DescribeCluster: the
 *     active controller as this node knows it, or this broker when it is not known
 */
public record BrokerIdentity(int brokerId, String clusterId, IntSupplier activeController) {
  /** A single node, which is its own controller. */
  public BrokerIdentity(int brokerId, String clusterId) {
    this(brokerId, clusterId, () -> brokerId);
  }

  /** The controller id to report now. */
  public int controllerId() {
    return activeController.getAsInt();
  }
}
