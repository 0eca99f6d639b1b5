package io.brook.controller.cluster;

import io.brook.metadata.record.BrokerEndpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One plain TCP connection to one broker's listener, advanced by {@link #poll} without ever
 * blocking. Nothing is sent on it: its only use is that a broker process that dies has its socket
 * closed by the kernel, which shows here as end-of-stream or a reset.
 *
 * <pre>
 *   never up ──connect──► up ──EOF/RST──► down(since) ──connect──► up
 *      ▲  │ refused/timeout        ▲                 │ refused/timeout
 *      └──┘ (retry next poll)      │                 └──► down(since), retried next poll
 * </pre>
 *
 * <p>Not thread-safe: one thread polls it (the probe's).
 */
final class BrokerLink implements AutoCloseable {
  /** Nothing should arrive unsolicited; a small buffer drains whatever does. */
  private static final int DRAIN_BYTES = 256;

  private final BrokerEndpoint endpoint;
  private final long connectTimeoutMs;
  private final ByteBuffer drain = ByteBuffer.allocate(DRAIN_BYTES);
  private SocketChannel channel;
  private boolean connected;
  private long connectStartedMs;
  private boolean everUp;
  private int failedAttempts;
  private long downSinceMs = -1;

  BrokerLink(BrokerEndpoint endpoint, long connectTimeoutMs) {
    this.endpoint = endpoint;
    this.connectTimeoutMs = connectTimeoutMs;
  }

  BrokerEndpoint endpoint() {
    return endpoint;
  }

  /** Whether the connection is established now. */
  boolean connected() {
    return connected;
  }

  /** Whether a connection was established at least once. */
  boolean everUp() {
    return everUp;
  }

  /** Connection attempts refused or timed out since the connection was last up. */
  int failedAttempts() {
    return failedAttempts;
  }

  /** Since when an established connection is gone and not re-established; -1 if it is not. */
  long downSinceMs() {
    return downSinceMs;
  }

  /** Notices a closed connection, completes or times out a connect, or starts one. */
  void poll(long nowMs) {
    if (connected) {
      if (!stillOpen()) {
        closeChannel();
        downSinceMs = nowMs;
      }
      return;
    }
    if (channel != null) {
      finishConnect(nowMs);
      return;
    }
    startConnect(nowMs);
  }

  private boolean stillOpen() {
    try {
      int read;
      do {
        drain.clear();
        read = channel.read(drain);
      } while (read > 0);
      return read == 0;
    } catch (IOException e) {
      return false; // reset by the peer
    }
  }

  private void startConnect(long nowMs) {
    try {
      channel = SocketChannel.open();
      channel.configureBlocking(false);
      connectStartedMs = nowMs;
      // Resolved on each attempt, so a host that moves is found again.
      if (channel.connect(new InetSocketAddress(endpoint.host(), endpoint.port()))) {
        onConnected();
      }
    } catch (IOException | RuntimeException e) {
      // Refused or unresolvable: retried on the next poll. RuntimeException covers
      // UnresolvedAddressException and UnsupportedAddressTypeException.
      failed();
    }
  }

  private void finishConnect(long nowMs) {
    try {
      if (channel.finishConnect()) {
        onConnected();
      } else if (nowMs - connectStartedMs >= connectTimeoutMs) {
        failed();
      }
    } catch (IOException e) {
      failed();
    }
  }

  private void onConnected() {
    connected = true;
    everUp = true;
    failedAttempts = 0;
    downSinceMs = -1;
  }

  private void failed() {
    failedAttempts++;
    closeChannel();
  }

  private void closeChannel() {
    connected = false;
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing to do: the channel is released either way.
      }
      channel = null;
    }
  }

  @Override
  public void close() {
    closeChannel();
  }
}
