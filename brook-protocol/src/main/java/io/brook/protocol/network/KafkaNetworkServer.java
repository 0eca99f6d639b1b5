package io.brook.protocol.network;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.memory.MemoryPoolMetrics;
import io.brook.protocol.memory.RequestMemoryPool;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.protocol.metrics.IdleRatio;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brook's Kafka-protocol server: one Netty server channel per listener, requests dispatched to the
 * {@link ApiRegistry}'s handlers on {@code num.network.threads} event loops.
 *
 * <pre>{@code
 * ApiRegistry apis = new ApiRegistry(List.of(new MetadataHandler(...), new ProduceHandler(...)));
 * KafkaNetworkServer server = KafkaNetworkServer.start(NetworkConfig.fromProperties(props), apis);
 * int port = server.boundPort("PLAINTEXT");
 * ...
 * server.close();
 * }</pre>
 */
public final class KafkaNetworkServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaNetworkServer.class);

  /** How long {@link #close()} lets responses in flight go out before closing connections. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long event loops get to finish their last tasks after every channel is closed; they have
   * nothing left to do by then, so this is only a bound.
   */
  private static final Duration EVENT_LOOP_SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

  private final Transport transport;
  private final EventLoopGroup acceptGroup;
  private final EventLoopGroup networkGroup;
  private final Map<String, Channel> serverChannels = new LinkedHashMap<>();

  /** Read by event loops when a connection closes, so not guarded by this server's lock. */
  private final List<ListenerAdmission> admissions = new CopyOnWriteArrayList<>();

  private volatile ConnectionLimiter limiter;
  private final OpenConnections openConnections = new OpenConnections();
  private final RequestMemoryPool memoryPool;

  /** The metrics registry this server made for itself, when none was given; closed with it. */
  private final BrokerMetrics ownMetrics;

  /** The node's registry, or {@link #ownMetrics}. */
  private final BrokerMetrics metrics;

  private final IdleTrackingIoHandlers networkLoops = new IdleTrackingIoHandlers();

  private boolean closed;

  private KafkaNetworkServer(Transport transport, NetworkConfig config, BrokerMetrics metrics) {
    this.transport = transport;
    this.memoryPool = new RequestMemoryPool(config.effectiveQueuedMaxRequestBytes());
    this.ownMetrics = metrics == null ? new BrokerMetrics(Time.SYSTEM) : null;
    this.metrics = metrics == null ? ownMetrics : metrics;
    MemoryPoolMetrics.register(this.metrics, memoryPool);
    this.acceptGroup =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("brook-accept"), transport.ioHandlerFactory());
    this.networkGroup =
        new MultiThreadIoEventLoopGroup(
            config.numNetworkThreads(),
            new DefaultThreadFactory("brook-network"),
            networkLoops.wrap(transport.ioHandlerFactory()));
    // Kafka's gauge of its network processors' idle share; here the event loops' time waiting in
    // the selector (IdleTrackingIoHandlers), averaged over the loops since the previous reading.
    IdleRatio idle =
        new IdleRatio(networkLoops::idleNanos, config.numNetworkThreads(), System::nanoTime);
    this.metrics.gauge(
        "kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent", idle::read);
  }

  /** Starts on native epoll where available, NIO otherwise. */
  public static KafkaNetworkServer start(NetworkConfig config, ApiRegistry registry) {
    return start(config, registry, Transport.detect());
  }

  /**
   * Binds every listener without accepting connections yet (clients that connect wait in the
   * kernel's backlog) until {@link #startAccepting()}: a broker learns its ports before it
   * registers, and serves nobody until its metadata has caught up, so a restarted broker never
   * answers as the leader its stale metadata says it was.
   */
  public static KafkaNetworkServer bind(NetworkConfig config, ApiRegistry registry) {
    return bind(config, registry, listener -> ListenerSecurity.PLAINTEXT);
  }

  /**
   * As {@link #bind(NetworkConfig, ApiRegistry)}, each listener with the security {@code
   * securityOf} gives it (TLS, authentication).
   */
  public static KafkaNetworkServer bind(
      NetworkConfig config, ApiRegistry registry, Function<String, ListenerSecurity> securityOf) {
    return bind(config, registry, securityOf, null);
  }

  /**
   * As {@link #bind(NetworkConfig, ApiRegistry, Function)}, registering the network's metrics in
   * the node's {@code metrics} (null: a registry of its own).
   */
  public static KafkaNetworkServer bind(
      NetworkConfig config,
      ApiRegistry registry,
      Function<String, ListenerSecurity> securityOf,
      BrokerMetrics metrics) {
    return open(config, registry, Transport.detect(), false, securityOf, metrics);
  }

  /** Starts accepting connections on every listener bound by {@link #bind}. */
  public synchronized void startAccepting() {
    for (ListenerAdmission admission : admissions) {
      admission.startAccepting();
    }
    LOG.info("Network server accepting connections listeners={}", describeListeners());
  }

  /**
   * Binds every listener and starts serving.
   *
   * @throws UncheckedIOException if a listener cannot be bound (nothing is left running)
   * @throws IllegalStateException if {@code transport} is not available on this machine
   */
  public static KafkaNetworkServer start(
      NetworkConfig config, ApiRegistry registry, Transport transport) {
    return open(config, registry, transport, true, listener -> ListenerSecurity.PLAINTEXT, null);
  }

  /** As {@link #start(NetworkConfig, ApiRegistry, Transport)}, with each listener's security. */
  public static KafkaNetworkServer start(
      NetworkConfig config,
      ApiRegistry registry,
      Transport transport,
      Function<String, ListenerSecurity> securityOf) {
    return open(config, registry, transport, true, securityOf, null);
  }

  private static KafkaNetworkServer open(
      NetworkConfig config,
      ApiRegistry registry,
      Transport transport,
      boolean accept,
      Function<String, ListenerSecurity> securityOf,
      BrokerMetrics metrics) {
    if (!transport.isAvailable()) {
      throw new IllegalStateException("transport " + transport + " is not available here");
    }
    KafkaNetworkServer server = new KafkaNetworkServer(transport, config, metrics);
    try {
      server.bind(config, registry, accept, securityOf);
    } catch (RuntimeException | IOException | InterruptedException e) {
      server.close(Duration.ZERO);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException("cannot bind " + config.listeners(), io);
      }
      throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
    }
    LOG.info(
        "Network server started transport={} listeners={} networkThreads={}"
            + " queuedMaxRequestBytes={} largestRequestBytes={} apis={}",
        transport.name().toLowerCase(Locale.ROOT),
        server.describeListeners(),
        config.numNetworkThreads(),
        server.memoryPool.capacity(),
        Math.min(config.socketRequestMaxBytes(), server.memoryPool.capacity()),
        registry);
    return server;
  }

  private synchronized void bind(
      NetworkConfig config,
      ApiRegistry registry,
      boolean accept,
      Function<String, ListenerSecurity> securityOf)
      throws IOException, InterruptedException {
    limiter =
        new ConnectionLimiter(
            config.maxConnections(),
            config.maxConnectionsPerIp(),
            ConnectionLimiter.resolve(config.maxConnectionsPerIpOverrides()),
            config.acceptLimits(),
            config.listeners().size(),
            System::nanoTime);
    Runnable anyReleased = this::retryWaitingConnections;
    AtomicLong connectionIndex = new AtomicLong();
    ResponseTimes times = new ResponseTimes(metrics, registry);
    for (NetworkConfig.Listener listener : config.listeners()) {
      KafkaChannelInitializer initializer =
          new KafkaChannelInitializer(
              listener.name(),
              securityOf.apply(listener.name()),
              config,
              registry,
              memoryPool,
              limiter,
              anyReleased,
              openConnections,
              connectionIndex,
              times);
      ServerBootstrap bootstrap =
          new ServerBootstrap()
              .group(acceptGroup, networkGroup)
              .channel(transport.serverChannelClass())
              .option(ChannelOption.AUTO_READ, accept)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(ChannelOption.SO_KEEPALIVE, true)
              .childHandler(initializer);
      socketBuffers(bootstrap, config);
      InetSocketAddress address =
          listener.host().isEmpty()
              ? new InetSocketAddress(listener.port())
              : new InetSocketAddress(listener.host(), listener.port());
      ChannelFuture bound = bootstrap.bind(address).await();
      if (!bound.isSuccess()) {
        Throwable cause = bound.cause();
        if (cause instanceof IOException io) {
          throw new IOException("cannot bind listener " + listener + ": " + io.getMessage(), io);
        }
        throw new IllegalStateException("cannot bind listener " + listener, cause);
      }
      serverChannels.put(listener.name(), bound.channel());
      initializer.admission().bound(bound.channel(), accept);
      admissions.add(initializer.admission());
    }
  }

  /**
   * Kafka's socket buffer sizes, -1 leaving the operating system's: {@code SO_RCVBUF} on the
   * listening socket, which accepted connections inherit from it (a receive buffer set after the
   * handshake would not widen the window scale agreed in it), {@code SO_SNDBUF} on each accepted
   * connection.
   */
  private static void socketBuffers(ServerBootstrap bootstrap, NetworkConfig config) {
    if (config.socketReceiveBufferBytes() != NetworkConfig.OS_DEFAULT_BUFFER_BYTES) {
      bootstrap.option(ChannelOption.SO_RCVBUF, config.socketReceiveBufferBytes());
    }
    if (config.socketSendBufferBytes() != NetworkConfig.OS_DEFAULT_BUFFER_BYTES) {
      bootstrap.childOption(ChannelOption.SO_SNDBUF, config.socketSendBufferBytes());
    }
  }

  /** The connections open now, on every listener (for tests of their socket options). */
  List<Channel> openChannels() {
    return openConnections.channels();
  }

  /** A connection closed: connections waiting for a slot, on any listener, try again. */
  private void retryWaitingConnections() {
    admissions.forEach(ListenerAdmission::retryWaiting);
  }

  /** The connection limits and counts ({@code max.connections} and its relatives). */
  public ConnectionLimiter connectionLimiter() {
    return limiter;
  }

  private synchronized List<String> describeListeners() {
    List<String> described = new ArrayList<>();
    serverChannels.forEach(
        (name, channel) -> {
          InetSocketAddress address = (InetSocketAddress) channel.localAddress();
          described.add(name + "://" + address.getHostString() + ":" + address.getPort());
        });
    return described;
  }

  /** The transport in use. */
  public Transport transport() {
    return transport;
  }

  /** The port {@code listenerName} is bound to; the chosen one when the configured port was 0. */
  public int boundPort(String listenerName) {
    return boundAddress(listenerName).getPort();
  }

  /** The address {@code listenerName} is bound to. */
  public synchronized InetSocketAddress boundAddress(String listenerName) {
    Channel channel = serverChannels.get(listenerName);
    if (channel == null) {
      throw new IllegalArgumentException("no listener named " + listenerName);
    }
    return (InetSocketAddress) channel.localAddress();
  }

  /** The broker-wide request-memory budget ({@code queued.max.request.bytes}). */
  public RequestMemoryPool memoryPool() {
    return memoryPool;
  }

  /** Open client connections, across listeners. */
  public int connectionCount() {
    return openConnections.size();
  }

  /** {@link #close(Duration)} with {@link #DEFAULT_DRAIN_TIMEOUT}. */
  @Override
  public void close() {
    close(DEFAULT_DRAIN_TIMEOUT);
  }

  /**
   * Shuts down gracefully: stops accepting, stops reading from connections, lets the responses of
   * requests in flight go out for up to {@code drainTimeout}, then closes every connection and
   * stops the event loops. Idempotent.
   */
  public synchronized void close(Duration drainTimeout) {
    if (closed) {
      return;
    }
    closed = true;
    boolean interrupted = false;
    try {
      for (Channel channel : serverChannels.values()) {
        channel.close().awaitUninterruptibly();
      }
      openConnections.drainAll(drainTimeout);
      openConnections.closeAll(EVENT_LOOP_SHUTDOWN_TIMEOUT);
    } catch (InterruptedException e) {
      interrupted = true;
    }
    Future<?> network = networkGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    Future<?> accept = acceptGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    long timeoutMs = EVENT_LOOP_SHUTDOWN_TIMEOUT.toMillis();
    if (!network.awaitUninterruptibly(timeoutMs) || !accept.awaitUninterruptibly(timeoutMs)) {
      LOG.warn("Network event loops did not stop in time timeoutMs={}", timeoutMs);
    }
    if (ownMetrics != null) {
      ownMetrics.close();
    }
    LOG.info("Network server stopped");
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
