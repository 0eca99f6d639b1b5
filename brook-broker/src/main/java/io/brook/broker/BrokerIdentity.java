package io.brook.broker;

/**
 * Who this broker is.
 *
 * @param brokerId {@code node.id}
 * @param clusterId the cluster's id, generated once and kept in {@code meta.properties}
 */
public record BrokerIdentity(int brokerId, String clusterId) {}
