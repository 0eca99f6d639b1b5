package io.brook.protocol.network;

import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the connections one listener accepts under the {@link ConnectionLimiter}, as Kafka's
 * acceptor does: over the per-address limit a connection is closed at once; without a slot under
 * {@code max.connections} it waits, unread, and the listener stops accepting (further clients wait
 * in the kernel's backlog) until a connection closes; over a creation rate it waits, unread, for
 * its turn, the listener again not accepting meanwhile; over its address's {@code
 * connection_creation_rate} quota it is held, unread and uncounted, for the throttle time and then
 * closed. A connection is {@linkplain #admit set up} only once admitted.
 *
 * <p>Thread-safe: connections arrive on their event loops, releases come from any of them.
 */
final class ListenerAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerAdmission.class);

  /**
   * Connections accepted in one read of the server socket before it stops (Netty's default
   * maxMessagesPerRead is 16); more than this waiting means the pause failed, so refuse them.
   */
  private static final int MAX_WAITING = 64;

  private final String listenerName;
  private final ConnectionLimiter limiter;
  private final Consumer<SocketChannel> setUp;

  /** Run when a connection of this listener closes: every listener's waiting connections retry. */
  private final Runnable anyReleased;

  private final ArrayDeque<SocketChannel> waitingForSlot = new ArrayDeque<>();
  private int throttledWaiting;

  /** Waiting connections handed back to their event loops to try again, not yet answered. */
  private int retrying;

  private Channel serverChannel;
  private boolean accepting;

  ListenerAdmission(
      String listenerName,
      ConnectionLimiter limiter,
      Consumer<SocketChannel> setUp,
      Runnable anyReleased) {
    this.listenerName = listenerName;
    this.limiter = limiter;
    this.setUp = setUp;
    this.anyReleased = anyReleased;
  }

  /** The listener's server channel, once bound; {@code accepting} is whether it accepts yet. */
  synchronized void bound(Channel channel, boolean accepting) {
    this.serverChannel = channel;
    this.accepting = accepting;
  }

  /** Lets the listener accept (the server's start), unless connections are waiting. */
  synchronized void startAccepting() {
    accepting = true;
    applyAccepting();
  }

  /** Called on {@code channel}'s event loop when it is accepted, before anything is read. */
  void admit(SocketChannel channel) {
    channel.config().setAutoRead(false);
    InetSocketAddress remote = channel.remoteAddress();
    InetAddress address = remote.getAddress();
    ConnectionLimiter.Admission admission = limiter.tryAcquire(listenerName, address);
    switch (admission) {
      case TOO_MANY_FROM_ADDRESS -> {
        LOG.warn(
            "Refused connection peer={} listener={} reason=max.connections.per.ip"
                + " maxConnectionsPerIp={}",
            remote,
            listenerName,
            limiter.maxConnectionsPerIp());
        channel.close();
      }
      case TOO_MANY_CONNECTIONS -> waitForSlot(channel);
      case ADMITTED -> {
        long addressThrottleMs = limiter.ipConnectionRates().throttleMs(address);
        if (addressThrottleMs > 0) {
          closeLater(channel, address, addressThrottleMs);
          return;
        }
        channel.closeFuture().addListener(f -> released(address));
        long throttleNanos = limiter.throttleNanos(listenerName);
        if (throttleNanos > 0) {
          throttle(channel, throttleNanos);
        } else {
          serve(channel);
        }
      }
    }
  }

  /**
   * Over its address's creation rate: Kafka holds the connection, unread and uncounted, for the
   * throttle time and then closes it, so the client backs off instead of reconnecting at once.
   */
  private void closeLater(SocketChannel channel, InetAddress address, long throttleMs) {
    limiter.release(listenerName, address);
    anyReleased.run();
    LOG.debug(
        "Throttled connection peer={} listener={} reason=connection_creation_rate closeInMs={}",
        channel.remoteAddress(),
        listenerName,
        throttleMs);
    try {
      channel.eventLoop().schedule(() -> channel.close(), throttleMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      channel.close();
    }
  }

  private void waitForSlot(SocketChannel channel) {
    synchronized (this) {
      if (waitingForSlot.size() >= MAX_WAITING) {
        LOG.warn(
            "Refused connection peer={} listener={} reason=too many waiting for a slot",
            channel.remoteAddress(),
            listenerName);
        channel.close();
        return;
      }
      if (waitingForSlot.isEmpty()) {
        LOG.info(
            "Listener at its connection limit, accepting paused listener={} connections={}"
                + " maxConnections={}",
            listenerName,
            limiter.listenerConnections(listenerName),
            limiter.maxConnections());
      }
      waitingForSlot.add(channel);
      applyAccepting();
    }
    channel.closeFuture().addListener(f -> forget(channel));
    if (limiter.slotAvailable(listenerName)) {
      retryWaiting(); // a connection closed between the refusal and the wait: do not miss it
    }
  }

  private void throttle(SocketChannel channel, long nanos) {
    synchronized (this) {
      throttledWaiting++;
      applyAccepting();
    }
    Runnable resume =
        () -> {
          synchronized (this) {
            throttledWaiting--;
            applyAccepting();
          }
          if (channel.isOpen()) {
            serve(channel);
          }
        };
    try {
      channel.eventLoop().schedule(resume, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      resume.run(); // shutting down: the channel closes with its loop
    }
  }

  private void serve(SocketChannel channel) {
    if (!channel.isOpen()) {
      return;
    }
    setUp.accept(channel);
    channel.config().setAutoRead(true);
  }

  /** A connection of this listener closed: the connections waiting for a slot try again. */
  private void released(InetAddress address) {
    limiter.release(listenerName, address);
    anyReleased.run();
  }

  /**
   * Gives every connection waiting for a slot another try on its event loop (one that still finds
   * none waits again); called when any connection of the server closes.
   */
  void retryWaiting() {
    List<SocketChannel> retry;
    synchronized (this) {
      if (waitingForSlot.isEmpty()) {
        return;
      }
      retry = new ArrayList<>(waitingForSlot);
      waitingForSlot.clear();
      retrying += retry.size();
    }
    for (SocketChannel channel : retry) {
      try {
        channel.eventLoop().execute(() -> retry(channel));
      } catch (RejectedExecutionException e) {
        retried(); // the event loop is shutting down and the connection with it
      }
    }
  }

  private void retry(SocketChannel channel) {
    try {
      if (channel.isOpen()) {
        admit(channel);
      }
    } finally {
      retried();
    }
  }

  private synchronized void retried() {
    retrying--;
    applyAccepting();
  }

  private synchronized void forget(SocketChannel channel) {
    if (waitingForSlot.remove(channel)) {
      applyAccepting();
    }
  }

  private void applyAccepting() {
    boolean read = accepting && waitingForSlot.isEmpty() && throttledWaiting == 0 && retrying == 0;
    if (serverChannel != null && serverChannel.config().isAutoRead() != read) {
      serverChannel.config().setAutoRead(read);
    }
  }
}
