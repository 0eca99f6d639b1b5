package io.brook.protocol.client;

/**
 * What a client's connection to one node is doing, for logs, metrics and tests.
 *
 * @param phase where the connection is in its life cycle
 * @param failedAttempts consecutive failed or lost connections since it was last ready
 * @param reconnectBackoffMs the pause chosen after the last failure (0 before any)
 * @param setupTimeoutMs the set-up timeout of the last attempt (0 before any)
 */
public record ConnectionStatus(
    ConnectionPhase phase, int failedAttempts, long reconnectBackoffMs, long setupTimeoutMs) {}
