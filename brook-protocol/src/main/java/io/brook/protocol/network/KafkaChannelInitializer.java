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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up each accepted connection of one listener, after checking the connection limits: a refused
 * connection is closed at once.
 *
 * <p>Pipeline: the listener's {@link ListenerSecurity} handlers (TLS) → {@code IdleStateHandler}
 * ({@code connections.max.idle.ms}) → {@link FrameDecoder} ({@code socket.request.max.bytes}, the
 * broker's {@link RequestMemoryPool}) → on SASL listeners {@link SaslGate} (only what the
 * connection's {@link SaslSession} admits) → {@link RequestDecoder} → {@link ConnectionHandler};
 * the decoder and the connection handler share one {@link ReadGate}.
 */
final class KafkaChannelInitializer extends ChannelInitializer<SocketChannel> {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaChannelInitializer.class);

  private final String listenerName;
  private final ListenerSecurity security;
  private final NetworkConfig config;
  private final ApiRegistry registry;
  private final RequestMemoryPool memoryPool;
  private final RequestDecoder requestDecoder;
  private final ConnectionLimiter limiter;
  private final OpenConnections openConnections;
  private final AtomicLong connectionIndex;

  /** How this listener authenticates (SASL_* listeners), or null. */
  private final SaslListenerConfig sasl;

  KafkaChannelInitializer(
      String listenerName,
      ListenerSecurity security,
      NetworkConfig config,
      ApiRegistry registry,
      RequestMemoryPool memoryPool,
      ConnectionLimiter limiter,
      OpenConnections openConnections,
      AtomicLong connectionIndex) {
    this.sasl = security.sasl();
    this.listenerName = listenerName;
    this.security = security;
    this.config = config;
    this.registry = registry;
    this.memoryPool = memoryPool;
    this.requestDecoder = new RequestDecoder(new RequestParser(registry));
    this.limiter = limiter;
    this.openConnections = openConnections;
    this.connectionIndex = connectionIndex;
  }

  @Override
  protected void initChannel(SocketChannel channel) {
    InetSocketAddress remote = channel.remoteAddress();
    InetAddress address = remote.getAddress();
    ConnectionLimiter.Admission admission = limiter.tryAcquire(address);
    if (admission != ConnectionLimiter.Admission.ADMITTED) {
      LOG.warn(
          "Refused connection peer={} listener={} reason={} maxConnections={}"
              + " maxConnectionsPerIp={}",
          remote,
          listenerName,
          admission,
          limiter.maxConnections(),
          limiter.maxConnectionsPerIp());
      channel.close();
      return;
    }
    channel.closeFuture().addListener(f -> limiter.release(address));

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
            session == null ? Map.of() : session.handlers());
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
  }

  private static String format(InetSocketAddress address) {
    return address.getAddress().getHostAddress() + ":" + address.getPort();
  }
}
