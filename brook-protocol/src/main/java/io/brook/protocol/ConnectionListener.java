package io.brook.protocol;

/**
 * Told when a client connection closes, for state keyed by connection: a group coordinator uses it
 * to notice at once that a consumer's process died (the kernel closes a dead process's sockets)
 * instead of waiting out a session timeout.
 */
@FunctionalInterface
public interface ConnectionListener {
  /**
   * Called once per connection, on its event loop, after the connection closed for any reason. Must
   * be quick and must not throw.
   *
   * @param connectionId the id handed to requests of that connection in {@link
   *     RequestContext#connectionId()}
   */
  void onConnectionClosed(String connectionId);
}
