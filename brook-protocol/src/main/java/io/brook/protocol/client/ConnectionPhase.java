package io.brook.protocol.client;

/**
 * The life cycle of a client's connection to one node.
 *
 * <pre>
 *   IDLE ──request queued──► CONNECTING ──TCP up, handshake──► NEGOTIATING ──ApiVersions──► READY
 *    ▲                           │ refused, set-up timeout          │ refused, timeout       │ lost,
 *    │                           ▼                                  ▼                        │ request
 *    └──back-off over── BACKOFF ◄────────────────────────────────────────────────────────────┘ timeout
 *   (any) ──client closed──► CLOSED
 * </pre>
 *
 * Entering BACKOFF fails every request queued or in flight on the connection; a request sent during
 * BACKOFF waits (within its timeout) for the next attempt.
 */
public enum ConnectionPhase {
  IDLE,
  CONNECTING,
  NEGOTIATING,
  READY,
  BACKOFF,
  CLOSED
}
