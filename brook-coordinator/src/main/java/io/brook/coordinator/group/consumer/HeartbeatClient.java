package io.brook.coordinator.group.consumer;

/**
 * Who sent a ConsumerGroupHeartbeat.
 *
 * @param clientId the request header's client id
 * @param clientHost the client's address, as Kafka shows it ({@code /127.0.0.1})
 * @param connectionId the connection it came on, to notice a dead client early
 * @param apiVersion the request version
 */
public record HeartbeatClient(
    String clientId, String clientHost, String connectionId, short apiVersion) {}
