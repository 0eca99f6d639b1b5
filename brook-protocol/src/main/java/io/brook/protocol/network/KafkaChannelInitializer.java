package io.brook.protocol.network;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.codec.FrameDecoder;
import io.brook.protocol.codec.ReadGate;
import io.brook.protocol.codec.RequestDecoder;
import io.brook.protocol.codec.RequestParser;
import io.brook.protocol.memory.RequestMemoryPool;
import io.brook.protocol.sasl.SaslGate;
import io.brook.protocol.sasl.SaslListenerConfig;
import io.brook.protocol.sasl.SaslSession;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sets up each accepted connection of one listener once its {@link ListenerAdmission} admits it
 * under the connection limits.
 *
 * <p>Pipeline: the listener's {@link ListenerSecurity} handlers (TLS) → {@code IdleStateHandler}
 * ({@code connections.max.idle.ms}) → {@link FrameDecoder} ({@code socket.request.max.bytes}, the
 * broker's {@link RequestMemoryPool}) → on SASL listeners {@link SaslGate} (only what the
 * connection's {@link SaslSession} admits) → {@link RequestDecoder} → {@link ConnectionHandler};
 * the decoder and the connection handler share one {@link ReadGate}.
 */
final class KafkaChannelInitializer extends ChannelInitializer<SocketChannel> {
  private final String listenerName;
  private final ListenerSecurity security;
  private final NetworkConfig config;
  private final ApiRegistry registry;
  private final RequestMemoryPool memoryPool;
  private final RequestDecoder requestDecoder;
  private final ConnectionLimiter limiter;
  private final ListenerAdmission admission;
  private final OpenConnections openConnections;
  private final AtomicLong connectionIndex;
  private final ResponseTimes times;

  /** How this listener authenticates (SASL_* listeners), or null. */
  private final SaslListenerConfig sasl;

  KafkaChannelInitializer(
      String listenerName,
      ListenerSecurity security,
      NetworkConfig config,
      ApiRegistry registry,
      RequestMemoryPool memoryPool,
      ConnectionLimiter limiter,
      Runnable anyReleased,
      OpenConnections openConnections,
      AtomicLong connectionIndex,
      ResponseTimes times) {
    this.times = times;
    this.sasl = security.sasl();
    this.listenerName = listenerName;
    this.security = security;
    this.config = config;
    this.registry = registry;
    this.memoryPool = memoryPool;
    this.requestDecoder = new RequestDecoder(new RequestParser(registry));
    this.limiter = limiter;
    this.admission = new ListenerAdmission(listenerName, limiter, this::setUp, anyReleased);
    this.openConnections = openConnections;
    this.connectionIndex = connectionIndex;
  }

  ListenerAdmission admission() {
    return admission;
  }

  @Override
  protected void initChannel(SocketChannel channel) {
    admission.admit(channel);
  }

  /** Builds the pipeline of an admitted connection (before it reads anything). */
  private void setUp(SocketChannel channel) {
    InetSocketAddress remote = channel.remoteAddress();
    InetAddress address = remote.getAddress();
    String connectionId =
        format(channel.localAddress())
            + "-"
            + format(remote)
            + "-"
            + connectionIndex.getAndIncrement();
    security.install(channel);
    ReadGate gate = new ReadGate(channel);
    FrameDecoder frames =
        new FrameDecoder(
            config.socketRequestMaxBytes(), config.requestReceiveTimeoutMs(), memoryPool, gate);
    SaslSession session =
        sasl == null ? null : new SaslSession(sasl, listenerName, channel, frames);
    ConnectionHandler handler =
        new ConnectionHandler(
            registry,
            listenerName,
            connectionId,
            address,
            config.queuedMaxRequests(),
            config.queuedMaxRequestBytesPerConnection(),
            gate,
            session == null ? Map.of() : session.handlers(),
            times);
    channel
        .pipeline()
        .addLast(
            "idle",
            new IdleStateHandler(0, 0, config.connectionsMaxIdleMs(), TimeUnit.MILLISECONDS))
        .addLast("frames", frames);
    if (session != null) {
      channel.pipeline().addLast("authentication", new SaslGate(session, listenerName));
    }
    channel.pipeline().addLast("requests", requestDecoder).addLast("connection", handler);
    openConnections.add(channel, handler);
    int excess = limiter.excessConnections();
    if (excess > 0) {
      openConnections.closeLeastRecentlyUsed(excess, limiter.exemptListener());
    }
  }

  private static String format(InetSocketAddress address) {
    return address.getAddress().getHostAddress() + ":" + address.getPort();
  }
}
