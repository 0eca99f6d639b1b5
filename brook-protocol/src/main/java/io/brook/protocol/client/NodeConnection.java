package io.brook.protocol.client;

import io.brook.protocol.codec.RequestEncoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.internals.ExponentialBackoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's connection to one node (see {@link ConnectionPhase} for its life cycle). Everything
 * but {@link #send} runs on the one event loop the connection is pinned to, so its state needs no
 * locks; {@link #send} only reserves a slot (an atomic counter, which is what bounds the queue) and
 * hands the request to the loop.
 *
 * <p>Responses arrive in request order (the Kafka protocol guarantees it per connection), so each
 * must carry the correlation id of the oldest request in flight; one that does not closes the
 * connection. A request timing out in flight closes the connection too: the responses behind it
 * could not be told apart from its late answer otherwise.
 */
final class NodeConnection {
  private static final Logger log = LoggerFactory.getLogger(NodeConnection.class);
  private static final String SOFTWARE_NAME = "brook";
  private static final String SOFTWARE_VERSION = softwareVersion();

  private final int nodeId;
  private final InterNodeEventLoops loops;
  private final InterNodeClientConfig config;
  private final ConnectionSecurity security;
  private final ExponentialBackoff reconnectBackoff;
  private final ExponentialBackoff setupTimeout;
  private final EventLoop loop;
  private final AtomicInteger outstanding = new AtomicInteger();

  // Confined to the event loop.
  private final ArrayDeque<PendingRequest> queue = new ArrayDeque<>();
  private final ArrayDeque<PendingRequest> inFlight = new ArrayDeque<>();
  private String host;
  private int port;
  private ConnectionPhase phase = ConnectionPhase.IDLE;
  private Channel channel;
  private long generation;
  private int failedAttempts;
  private ScheduledFuture<?> setupTimer;
  private ScheduledFuture<?> backoffTimer;
  private int nextCorrelationId;
  private int apiVersionsCorrelationId;
  private short apiVersionsVersion;
  private boolean apiVersionsRetried;
  private ApiVersionCollection peerVersions;

  // Written on the loop, read by status().
  private volatile ConnectionStatus status = new ConnectionStatus(ConnectionPhase.IDLE, 0, 0, 0);

  NodeConnection(
      int nodeId,
      InterNodeEventLoops loops,
      InterNodeClientConfig config,
      ConnectionSecurity security) {
    this.nodeId = nodeId;
    this.loops = loops;
    this.config = config;
    this.security = security;
    this.reconnectBackoff =
        new ExponentialBackoff(config.reconnectBackoffMs(), 2, config.reconnectBackoffMaxMs(), 0.2);
    this.setupTimeout =
        new ExponentialBackoff(
            config.connectionSetupTimeoutMs(), 2, config.connectionSetupTimeoutMaxMs(), 0.2);
    this.loop = loops.group().next();
  }

  ConnectionStatus status() {
    return status;
  }

  /** The channel now, null when there is none (read on the event loop; for tests). */
  Channel channel() {
    return loop.submit(() -> channel).syncUninterruptibly().getNow();
  }

  /** Any thread. */
  CompletableFuture<NodeResponse> send(
      String host, int port, ApiKeys apiKey, RequestBuilder builder, int timeoutMs) {
    CompletableFuture<NodeResponse> future = new CompletableFuture<>();
    int limit = config.maxInFlightPerConnection() + config.maxQueuedPerConnection();
    if (outstanding.incrementAndGet() > limit) {
      outstanding.decrementAndGet();
      future.completeExceptionally(
          new RequestQueueFullException(
              "node " + nodeId + " already has " + limit + " requests queued or in flight"));
      return future;
    }
    PendingRequest request =
        new PendingRequest(apiKey, builder, future, timeoutMs, outstanding::decrementAndGet);
    onLoop(() -> enqueue(host, port, request), request);
    return future;
  }

  /** Any thread: closes the connection now, failing what it carries; the next send reconnects. */
  void disconnect() {
    onLoop(
        () -> {
          if (phase == ConnectionPhase.CLOSED) {
            return;
          }
          closeChannel();
          failAll(
              new DisconnectException("connection to node " + nodeId + " closed by the client"));
          setPhase(ConnectionPhase.IDLE);
          drive();
        },
        null);
  }

  /** Any thread: fails everything and refuses further sends. */
  void close() {
    onLoop(
        () -> {
          closeChannel();
          setPhase(ConnectionPhase.CLOSED);
          failAll(new DisconnectException("the inter-node client is closed"));
        },
        null);
  }

  private void onLoop(Runnable task, PendingRequest request) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      if (request != null) {
        request.fail(new DisconnectException("the inter-node client is closed"));
      }
    }
  }

  private void enqueue(String newHost, int newPort, PendingRequest request) {
    if (phase == ConnectionPhase.CLOSED) {
      request.fail(new DisconnectException("the inter-node client is closed"));
      return;
    }
    if (!newHost.equals(host) || newPort != port) {
      if (host != null && phase != ConnectionPhase.IDLE) {
        // The node's endpoint changed: whatever the old address carries is for a node gone.
        closeChannel();
        failAll(new DisconnectException("node " + nodeId + " moved to " + newHost + ":" + newPort));
        setPhase(ConnectionPhase.IDLE);
      }
      host = newHost;
      port = newPort;
    }
    request.timer =
        loop.schedule(() -> timedOut(request), request.timeoutMs, TimeUnit.MILLISECONDS);
    queue.add(request);
    drive();
  }

  private void drive() {
    switch (phase) {
      case IDLE -> {
        queue.removeIf(PendingRequest::isDone);
        if (!queue.isEmpty()) {
          startConnect();
        }
      }
      case READY -> {
        while (phase == ConnectionPhase.READY
            && inFlight.size() < config.maxInFlightPerConnection()
            && !queue.isEmpty()) {
          PendingRequest request = queue.poll();
          if (!request.isDone()) {
            write(request);
          }
        }
      }
      default -> {
        // CONNECTING and NEGOTIATING end in READY or BACKOFF; BACKOFF ends in IDLE.
      }
    }
  }

  private void startConnect() {
    long attempt = ++generation;
    long timeoutMs = setupTimeout.backoff(failedAttempts);
    setPhase(ConnectionPhase.CONNECTING);
    status = new ConnectionStatus(phase, failedAttempts, status.reconnectBackoffMs(), timeoutMs);
    setupTimer =
        loop.schedule(
            () -> {
              if (attempt == generation
                  && (phase == ConnectionPhase.CONNECTING
                      || phase == ConnectionPhase.NEGOTIATING)) {
                disconnected(
                    new DisconnectException(
                        "connection set-up to node "
                            + nodeId
                            + " ("
                            + host
                            + ":"
                            + port
                            + ") took more than "
                            + timeoutMs
                            + " ms"));
              }
            },
            timeoutMs,
            TimeUnit.MILLISECONDS);
    String targetHost = host;
    int targetPort = port;
    loops
        .resolve(targetHost, targetPort)
        .whenComplete(
            (address, error) ->
                onLoop(
                    () -> {
                      if (attempt != generation || phase != ConnectionPhase.CONNECTING) {
                        return;
                      }
                      if (error != null) {
                        disconnected(
                            new DisconnectException(
                                "cannot resolve node " + nodeId + " host " + targetHost, error));
                      } else {
                        connect(address, attempt, timeoutMs);
                      }
                    },
                    null));
  }

  private void connect(InetSocketAddress address, long attempt, long timeoutMs) {
    Bootstrap bootstrap =
        new Bootstrap()
            .group(loop)
            .channel(loops.transport().socketChannelClass())
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeoutMs, Integer.MAX_VALUE))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    security.install(ch, address);
                    ch.pipeline()
                        .addLast(
                            new ResponseFrameDecoder(config.maxResponseBytes()),
                            new Inbound(attempt));
                  }
                });
    if (config.receiveBufferBytes() > 0) {
      bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes());
    }
    ChannelFuture connected = bootstrap.connect(address);
    channel = connected.channel();
    connected.addListener(
        f -> {
          if (attempt != generation) {
            connected.channel().close();
            return;
          }
          if (!f.isSuccess()) {
            disconnected(
                new DisconnectException(
                    "cannot connect to node " + nodeId + " at " + address, f.cause()));
            return;
          }
          security
              .handshake(connected.channel())
              .whenComplete(
                  (ok, error) ->
                      onLoop(
                          () -> {
                            if (attempt != generation) {
                              return;
                            }
                            if (error != null) {
                              disconnected(
                                  new DisconnectException(
                                      "security handshake with node " + nodeId + " failed", error));
                            } else {
                              apiVersionsRetried = false;
                              sendApiVersions(ApiKeys.API_VERSIONS.latestVersion());
                            }
                          },
                          null));
        });
  }

  private void sendApiVersions(short version) {
    setPhase(ConnectionPhase.NEGOTIATING);
    apiVersionsVersion = version;
    apiVersionsCorrelationId = nextCorrelationId++;
    ApiVersionsRequestData request =
        new ApiVersionsRequestData()
            .setClientSoftwareName(SOFTWARE_NAME)
            .setClientSoftwareVersion(SOFTWARE_VERSION);
    writeFrame(ApiKeys.API_VERSIONS, version, apiVersionsCorrelationId, request);
  }

  private void write(PendingRequest request) {
    ApiVersion supported = peerVersions.find(request.apiKey.id);
    short max =
        supported == null
            ? -1
            : (short) Math.min(supported.maxVersion(), request.apiKey.latestVersion());
    short min =
        supported == null
            ? 0
            : (short) Math.max(supported.minVersion(), request.apiKey.oldestVersion());
    if (max < min) {
      request.fail(
          new UnsupportedVersionException(
              "node "
                  + nodeId
                  + " supports no version of "
                  + request.apiKey
                  + " this client knows"));
      return;
    }
    ApiMessage body;
    try {
      body = request.builder.build(max);
    } catch (RuntimeException e) {
      request.fail(e);
      return;
    }
    request.version = max;
    request.correlationId = nextCorrelationId++;
    inFlight.add(request);
    writeFrame(request.apiKey, max, request.correlationId, body);
  }

  private void writeFrame(ApiKeys apiKey, short version, int correlationId, ApiMessage body) {
    List<Object> parts;
    try {
      parts =
          RequestEncoder.encode(
              channel.alloc(), apiKey, version, correlationId, config.clientId(), body);
    } catch (RuntimeException e) {
      disconnected(new DisconnectException("cannot encode " + apiKey + " v" + version, e));
      return;
    }
    for (int i = 0; i < parts.size() - 1; i++) {
      channel.write(parts.get(i), channel.voidPromise());
    }
    long attempt = generation;
    channel
        .writeAndFlush(parts.get(parts.size() - 1))
        .addListener(
            f -> {
              if (!f.isSuccess() && attempt == generation) {
                disconnected(
                    new DisconnectException(
                        "cannot write to node " + nodeId + ": " + f.cause(), f.cause()));
              }
            });
  }

  private void onFrame(ByteBuffer frame) {
    if (phase == ConnectionPhase.NEGOTIATING) {
      onApiVersions(frame);
      return;
    }
    PendingRequest request = inFlight.peek();
    if (phase != ConnectionPhase.READY || request == null) {
      disconnected(new DisconnectException("node " + nodeId + " answered no request"));
      return;
    }
    NodeResponse response;
    try {
      ByteBufferAccessor in = new ByteBufferAccessor(frame);
      ResponseHeaderData header =
          new ResponseHeaderData(in, request.apiKey.responseHeaderVersion(request.version));
      if (header.correlationId() != request.correlationId) {
        disconnected(correlationMismatch(header.correlationId(), request.correlationId));
        return;
      }
      ApiMessage body = ApiMessageType.fromApiKey(request.apiKey.id).newResponse();
      body.read(in, request.version);
      response = new NodeResponse(request.apiKey, request.version, body);
    } catch (RuntimeException e) {
      disconnected(
          new DisconnectException(
              "unreadable "
                  + request.apiKey
                  + " v"
                  + request.version
                  + " response from node "
                  + nodeId,
              e));
      return;
    }
    inFlight.poll();
    request.complete(response);
    drive();
  }

  private void onApiVersions(ByteBuffer frame) {
    ApiVersionsResponseData data;
    try {
      // The ApiVersions response header is always version 0, whatever the request's version.
      ResponseHeaderData header = new ResponseHeaderData(new ByteBufferAccessor(frame), (short) 0);
      if (header.correlationId() != apiVersionsCorrelationId) {
        disconnected(correlationMismatch(header.correlationId(), apiVersionsCorrelationId));
        return;
      }
      data = readApiVersions(frame);
    } catch (RuntimeException e) {
      disconnected(new DisconnectException("unreadable ApiVersions from node " + nodeId, e));
      return;
    }
    Errors error = Errors.forCode(data.errorCode());
    if (error == Errors.UNSUPPORTED_VERSION && !apiVersionsRetried) {
      // The peer is older: it answered at v0 with the versions it serves; ask again at its best.
      apiVersionsRetried = true;
      ApiVersion theirs = data.apiKeys().find(ApiKeys.API_VERSIONS.id);
      short version =
          theirs == null
              ? 0
              : (short) Math.min(theirs.maxVersion(), ApiKeys.API_VERSIONS.latestVersion());
      sendApiVersions(version);
      return;
    }
    if (error != Errors.NONE) {
      disconnected(new DisconnectException("node " + nodeId + " refused ApiVersions: " + error));
      return;
    }
    peerVersions = data.apiKeys();
    cancel(setupTimer);
    setupTimer = null;
    failedAttempts = 0;
    setPhase(ConnectionPhase.READY);
    log.debug(
        "Connected clientId={} nodeId={} address={}:{}", config.clientId(), nodeId, host, port);
    drive();
  }

  /** The body at the version asked for, or at v0, which a peer uses to refuse a too-new one. */
  private ApiVersionsResponseData readApiVersions(ByteBuffer frame) {
    int bodyStart = frame.position();
    try {
      return new ApiVersionsResponseData(new ByteBufferAccessor(frame), apiVersionsVersion);
    } catch (RuntimeException e) {
      frame.position(bodyStart);
      return new ApiVersionsResponseData(new ByteBufferAccessor(frame), (short) 0);
    }
  }

  private DisconnectException correlationMismatch(int received, int expected) {
    return new DisconnectException(
        "node " + nodeId + " answered correlation id " + received + ", expected " + expected);
  }

  /**
   * Also for a request its caller completed or cancelled: it leaves the queue, and one in flight
   * still closes the connection, or a peer that never answers would hold its slot for good.
   */
  private void timedOut(PendingRequest request) {
    if (queue.remove(request)) {
      request.fail(
          new TimeoutException(
              request.apiKey
                  + " to node "
                  + nodeId
                  + " not sent within "
                  + request.timeoutMs
                  + " ms ("
                  + phase
                  + ")"));
      return;
    }
    if (inFlight.remove(request)) {
      disconnected(
          new DisconnectException(
              "connection to node " + nodeId + " closed: a " + request.apiKey + " timed out"));
      request.fail(
          new TimeoutException(
              "no answer to "
                  + request.apiKey
                  + " from node "
                  + nodeId
                  + " within "
                  + request.timeoutMs
                  + " ms"));
    }
  }

  /** A failed attempt or a lost connection: fail what it carries, back off, then reconnect. */
  private void disconnected(DisconnectException cause) {
    if (phase == ConnectionPhase.CLOSED) {
      return;
    }
    log.debug(
        "Disconnected clientId={} nodeId={} cause={}", config.clientId(), nodeId, cause.toString());
    closeChannel();
    failedAttempts++;
    long backoffMs = reconnectBackoff.backoff(failedAttempts - 1);
    setPhase(ConnectionPhase.BACKOFF);
    status = new ConnectionStatus(phase, failedAttempts, backoffMs, status.setupTimeoutMs());
    backoffTimer =
        loop.schedule(
            () -> {
              if (phase == ConnectionPhase.BACKOFF) {
                setPhase(ConnectionPhase.IDLE);
                drive();
              }
            },
            backoffMs,
            TimeUnit.MILLISECONDS);
    failAll(cause); // last: what the futures' callers see next is the state after the failure
  }

  private void failAll(Throwable cause) {
    while (!inFlight.isEmpty()) {
      inFlight.poll().fail(cause);
    }
    while (!queue.isEmpty()) {
      queue.poll().fail(cause);
    }
  }

  private void closeChannel() {
    generation++; // callbacks of the old channel and attempt are ignored from now on
    cancel(setupTimer);
    cancel(backoffTimer);
    setupTimer = null;
    backoffTimer = null;
    peerVersions = null;
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  private void setPhase(ConnectionPhase next) {
    phase = next;
    ConnectionStatus s = status;
    status = new ConnectionStatus(next, failedAttempts, s.reconnectBackoffMs(), s.setupTimeoutMs());
  }

  private static void cancel(ScheduledFuture<?> timer) {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private static String softwareVersion() {
    String version = NodeConnection.class.getPackage().getImplementationVersion();
    return version == null ? "0" : version.replaceAll("[^a-zA-Z0-9.-]", "-");
  }

  /** The pipeline's last handler: frames and the end of one channel (one attempt). */
  private final class Inbound extends ChannelInboundHandlerAdapter {
    private final long attempt;

    Inbound(long attempt) {
      this.attempt = attempt;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (attempt == generation) {
        onFrame((ByteBuffer) msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (attempt == generation) {
        disconnected(new DisconnectException("connection to node " + nodeId + " was closed"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (attempt == generation) {
        disconnected(
            new DisconnectException("connection to node " + nodeId + " failed: " + cause, cause));
      } else {
        ctx.close();
      }
    }
  }
}
