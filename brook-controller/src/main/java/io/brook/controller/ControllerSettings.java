package io.brook.controller;

/**
 * The controller side's settings, by Kafka's names (parsed from the node's configuration by
 * brook-server).
 *
 * @param nodeId {@code node.id}
 * @param controllerListener the first of {@code controller.listener.names}, which DescribeQuorum
 *     reports the voters' endpoints on
 * @param sessionTimeoutMs {@code broker.session.timeout.ms}
 * @param autoLeaderRebalance {@code auto.leader.rebalance.enable}
 * @param leaderImbalanceCheckIntervalMs {@code leader.imbalance.check.interval.seconds} in ms
 * @param livenessProbe {@code brook.broker.liveness.probe.enable}
 * @param livenessProbeGraceMs {@code brook.broker.liveness.probe.grace.ms}
 */
public record ControllerSettings(
    int nodeId,
    String controllerListener,
    int sessionTimeoutMs,
    boolean autoLeaderRebalance,
    long leaderImbalanceCheckIntervalMs,
    boolean livenessProbe,
    int livenessProbeGraceMs) {}
