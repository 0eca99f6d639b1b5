package io.brook.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.tls.SslEngines;
import io.brook.server.config.HttpApiConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API ({@code brook.http.listener}): JSON over HTTP/1.1 under {@code /v1}, a thin layer
 * over the broker's own Kafka API handlers ({@link InProcessApis}), requests for partitions and
 * groups served elsewhere forwarded to their broker ({@link Forwarder}); plain HTTP or TLS ({@code
 * https://}, the node's {@link SslEngines}). Its own event loop, apart from the Kafka and admin
 * listeners; bodies are bounded ({@code brook.http.max.request.bytes}, refused with 413 from the
 * Content-Length before anything is read); a connection handles one request at a time (it is not
 * read while its request is open, so pipelined requests wait in the socket); requests are bounded
 * in number ({@link #MAX_OPEN_REQUESTS}) and in connections ({@link #MAX_CONNECTIONS}). Routing,
 * authentication and body parsing run on the API's {@link Worker}; waiting (acks=all, a fetch's
 * long poll) holds no thread.
 */
public final class HttpApiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApiServer.class);

  /** Requests open at once (parked fetches included); more are refused with 503. */
  static final int MAX_OPEN_REQUESTS = 1024;

  /** Connections open at once; more are closed at once. */
  static final int MAX_CONNECTIONS = 1024;

  /** The client id HTTP requests carry: what client-id quotas and request logs see. */
  static final String CLIENT_ID = "brook-http";

  /** How long a closing connection's late input is discarded before it is closed anyway. */
  private static final long LINGER_MS = 2_000;

  /** How much of a closing connection's late input is discarded before it is closed anyway. */
  private static final long LINGER_BYTES = 2L << 20;

  private static final int WORKER_THREADS = 2;
  private static final int WORKER_QUEUE = 256;

  private final EventLoopGroup group;
  private final Worker worker;
  private final Channel channel;
  private final BasicAuthenticator authenticator;
  private final SslEngines tls;
  private final Forwarder forwarder;
  private final TopicRoutes topics;
  private final ProduceRoute produce;
  private final FetchRoute fetch;
  private final GroupOffsetsRoute groups;
  private final AtomicInteger openRequests = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();

  private HttpApiServer(
      HttpApiConfig config,
      ApiRegistry registry,
      String listenerName,
      int nodeId,
      BasicAuthenticator authenticator,
      SslEngines tls,
      Forwarder forwarder) {
    this.authenticator = authenticator;
    this.tls = tls;
    this.forwarder = forwarder;
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("brook-http", true), NioIoHandler.newFactory());
    this.worker = new Worker(WORKER_THREADS, WORKER_QUEUE);
    InProcessApis apis = new InProcessApis(registry, CLIENT_ID, listenerName);
    AtLeader leaders = new AtLeader(forwarder, nodeId);
    this.topics = new TopicRoutes(apis);
    this.produce = new ProduceRoute(apis, topics, leaders);
    this.fetch = new FetchRoute(apis, worker, config.fetchMaxBytes(), leaders);
    this.groups = new GroupOffsetsRoute(apis, nodeId, group, leaders, topics);
    int maxRequestBytes = config.maxRequestBytes();
    try {
      this.channel =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      if (tls != null) {
                        InetSocketAddress peer = ch.remoteAddress();
                        ch.pipeline()
                            .addLast(
                                new SslHandler(
                                    tls.newServerEngine(peer.getHostString(), peer.getPort())));
                      }
                      ch.pipeline()
                          .addLast(new HttpServerCodec())
                          .addLast(new BoundedAggregator(maxRequestBytes))
                          .addLast(new Handler());
                    }
                  })
              .bind(config.listener().getHost(), config.listener().getPort())
              .syncUninterruptibly()
              .channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      worker.close();
      if (forwarder != null) {
        forwarder.close();
      }
      throw e;
    }
  }

  /**
   * Binds the listener.
   *
   * @param registry the broker's Kafka API handlers, as its Kafka listeners serve them
   * @param listenerName the Kafka listener whose addresses Metadata answers name
   * @param authenticator checks HTTP Basic credentials, or null to serve every request as {@code
   *     User:ANONYMOUS}
   */
  public static HttpApiServer start(
      HttpApiConfig config,
      ApiRegistry registry,
      String listenerName,
      int nodeId,
      BasicAuthenticator authenticator) {
    return start(config, registry, listenerName, nodeId, authenticator, null, null);
  }

  /**
   * Binds the listener, with TLS and forwarding.
   *
   * @param tls the listener's TLS (the node reloads its stores), or null for plain HTTP
   * @param forwarder reaches the leaders and coordinators on other brokers (closed with the
   *     server), or null to answer their errors instead
   */
  public static HttpApiServer start(
      HttpApiConfig config,
      ApiRegistry registry,
      String listenerName,
      int nodeId,
      BasicAuthenticator authenticator,
      SslEngines tls,
      Forwarder forwarder) {
    HttpApiServer server =
        new HttpApiServer(config, registry, listenerName, nodeId, authenticator, tls, forwarder);
    LOG.info(
        "HTTP API started address={} tls={} authentication={} forwarding={}",
        server.channel.localAddress(),
        tls != null,
        authenticator == null ? "none" : "basic",
        forwarder != null);
    return server;
  }

  /** The port bound (useful with port 0). */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    worker.close();
    if (forwarder != null) {
      forwarder.close();
    }
  }

  /**
   * Refuses a body over the limit with the API's JSON 413, from its Content-Length if it has one:
   * the refusal goes down the pipeline as a request that failed to decode, so it is answered in
   * order after anything the client pipelined before it; the aggregator discards the body that
   * follows, and the answer closes the connection (lingering, see {@link #send}).
   */
  private static final class BoundedAggregator extends HttpObjectAggregator {
    BoundedAggregator(int maxContentLength) {
      super(maxContentLength);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      if (!(oversized instanceof HttpRequest request)) {
        ctx.close();
        return;
      }
      FullHttpRequest refused =
          new DefaultFullHttpRequest(
              request.protocolVersion(), request.method(), request.uri(), Unpooled.EMPTY_BUFFER);
      refused.setDecoderResult(
          DecoderResult.failure(
              new HttpApiException(
                  HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                  Errors.INVALID_REQUEST,
                  "the request body is larger than brook.http.max.request.bytes ("
                      + maxContentLength()
                      + " bytes)")));
      ctx.fireChannelRead(refused);
    }
  }

  /**
   * Discards what a client still sends after an answer that closes its connection, until it closes
   * its side, {@link #LINGER_BYTES} have come or {@link #LINGER_MS} have passed. Closing with
   * unread bytes in the socket makes the kernel reset the connection, and a reset can reach the
   * client before it has read the answer (a 413 sent while the client is still sending its body).
   */
  private static final class Linger extends ChannelInboundHandlerAdapter {
    private long discarded;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf bytes) {
        discarded += bytes.readableBytes();
      }
      ReferenceCountUtil.release(msg);
      if (discarded > LINGER_BYTES) {
        ctx.close();
      }
    }
  }

  /**
   * One connection. Its requests are handled one at a time, in order: the connection is not read
   * while one is open, and requests a client pipelined before that (already decoded) wait here, at
   * most {@link #MAX_PIPELINED}; so answers go out in order and a client cannot queue unbounded
   * work behind a parked fetch. Fields are touched on the connection's event loop only.
   */
  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final int MAX_PIPELINED = 16;

    private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
    private boolean open;

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      if (connections.incrementAndGet() > MAX_CONNECTIONS) {
        LOG.warn("HTTP API refused a connection: {} are open", MAX_CONNECTIONS);
        ctx.close();
      }
      super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      connections.decrementAndGet();
      waiting.forEach(FullHttpRequest::release);
      waiting.clear();
      super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      if (open) {
        if (waiting.size() >= MAX_PIPELINED) {
          ctx.close();
          return;
        }
        waiting.add(request.retain());
        return;
      }
      start(ctx, request.retain());
    }

    /** Handles {@code request} (retained for this call, which releases it). */
    private void start(ChannelHandlerContext ctx, FullHttpRequest request) {
      open = true;
      ctx.channel().config().setAutoRead(false);
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      if (!request.decoderResult().isSuccess()) {
        Throwable cause = request.decoderResult().cause();
        request.release();
        finish(
            ctx,
            false,
            error(
                cause instanceof HttpApiException refusal
                    ? refusal
                    : HttpApiException.badRequest("malformed HTTP request")),
            0);
        return;
      }
      if (openRequests.incrementAndGet() > MAX_OPEN_REQUESTS) {
        openRequests.decrementAndGet();
        request.release();
        finish(
            ctx,
            false,
            error(
                new HttpApiException(
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    Errors.REQUEST_TIMED_OUT,
                    "the HTTP API has too many open requests; retry")),
            0);
        return;
      }
      CompletableFuture<Reply> reply =
          worker.supply(
              () -> {
                try {
                  return route(ctx, request);
                } finally {
                  request.release();
                }
              });
      reply.whenComplete(
          (answer, failure) -> {
            openRequests.decrementAndGet();
            if (failure != null) {
              finish(ctx, keepAlive, error(failure), 0);
            } else {
              finish(ctx, keepAlive, json(answer.status(), answer.body()), answer.throttleMs());
            }
          });
    }

    /** Sends the answer, then goes on with the next waiting request or reads again. */
    private void finish(
        ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response, int throttleMs) {
      send(ctx, keepAlive, response, throttleMs, () -> next(ctx));
    }

    private void next(ChannelHandlerContext ctx) {
      open = false;
      FullHttpRequest queued = waiting.poll();
      if (queued != null) {
        start(ctx, queued);
      } else {
        ctx.channel().config().setAutoRead(true);
        ctx.read();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("HTTP API connection failed", cause);
      ctx.close();
    }
  }

  /** Dispatches one request; on a worker thread. */
  private CompletableFuture<Reply> route(ChannelHandlerContext ctx, FullHttpRequest request) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    List<String> path = segments(uri.rawPath());
    HttpMethod method = request.method();
    if (path.size() < 2 || !path.get(0).equals("v1")) {
      throw notFound();
    }
    // Authentication first: an unauthenticated caller learns nothing, not even a 404.
    InProcessApis.Caller caller = caller(ctx, request);
    int bodyBytes = request.content().readableBytes();
    String resource = path.get(1);
    int n = path.size();
    if (resource.equals("metadata") && n == 2) {
      only(method, HttpMethod.GET);
      return topics.clusterMetadata(caller);
    }
    if (resource.equals("producers") && n == 2) {
      only(method, HttpMethod.POST);
      return produce.newProducer(caller);
    }
    if (resource.equals("topics")) {
      if (n == 2) {
        if (method.equals(HttpMethod.POST)) {
          return topics.create(body(request), caller, bodyBytes);
        }
        only(method, HttpMethod.GET);
        return topics.list(caller);
      }
      String topic = path.get(2);
      if (n == 3) {
        if (method.equals(HttpMethod.DELETE)) {
          return topics.delete(topic, caller);
        }
        only(method, HttpMethod.GET);
        return topics.describe(topic, caller);
      }
      if (n == 4 && path.get(3).equals("records")) {
        only(method, HttpMethod.POST);
        return produce.produce(topic, body(request), caller, bodyBytes);
      }
      if (n == 6 && path.get(3).equals("partitions") && path.get(5).equals("records")) {
        only(method, HttpMethod.GET);
        int partition = (int) Json.query("partition", path.get(4), -1, 0, Integer.MAX_VALUE);
        return fetch.fetch(topic, partition, parameters(uri), caller);
      }
    }
    if (resource.equals("groups") && n == 4 && path.get(3).equals("offsets")) {
      String group = path.get(2);
      if (method.equals(HttpMethod.POST)) {
        return groups.commit(group, body(request), caller, bodyBytes);
      }
      only(method, HttpMethod.GET);
      return groups.fetch(group, caller);
    }
    throw notFound();
  }

  private static List<String> segments(String rawPath) {
    List<String> segments = new ArrayList<>();
    int start = 0;
    while (start <= rawPath.length()) {
      int end = rawPath.indexOf('/', start);
      if (end < 0) {
        end = rawPath.length();
      }
      if (end > start) {
        try {
          segments.add(
              QueryStringDecoder.decodeComponent(
                  rawPath.substring(start, end), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          throw HttpApiException.badRequest("malformed path: " + e.getMessage());
        }
      }
      start = end + 1;
    }
    return segments;
  }

  private static java.util.Map<String, List<String>> parameters(QueryStringDecoder uri) {
    try {
      return uri.parameters();
    } catch (IllegalArgumentException e) {
      throw HttpApiException.badRequest("malformed query: " + e.getMessage());
    }
  }

  private static ObjectNode body(FullHttpRequest request) {
    try (ByteBufInputStream in = new ByteBufInputStream(request.content().duplicate())) {
      return Json.object(in, request.content().readableBytes());
    } catch (IOException e) {
      throw HttpApiException.badRequest("the body cannot be read: " + e.getMessage());
    }
  }

  private static void only(HttpMethod method, HttpMethod allowed) {
    if (!method.equals(allowed)) {
      throw new HttpApiException(
          HttpResponseStatus.METHOD_NOT_ALLOWED,
          Errors.INVALID_REQUEST,
          "method " + method + " is not allowed here; use " + allowed);
    }
  }

  private static HttpApiException notFound() {
    return new HttpApiException(
        HttpResponseStatus.NOT_FOUND,
        Errors.INVALID_REQUEST,
        "no such endpoint; the API is under /v1 (see docs/http-api.md)");
  }

  /**
   * Who the request acts as: its Basic credentials' user; without a Basic header, its connection's
   * client certificate (mutual TLS); else ANONYMOUS without authentication.
   */
  private InProcessApis.Caller caller(ChannelHandlerContext ctx, FullHttpRequest request) {
    InetSocketAddress peer = (InetSocketAddress) ctx.channel().remoteAddress();
    String connectionId = "http-" + ctx.channel().id().asShortText();
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    boolean basic = header != null && header.regionMatches(true, 0, "Basic ", 0, 6);
    if (authenticator == null || !basic) {
      Optional<KafkaPrincipal> certificate = certificatePrincipal(ctx, peer);
      if (certificate.isPresent()) {
        return new InProcessApis.Caller(certificate.get(), peer.getAddress(), connectionId);
      }
    }
    if (authenticator == null) {
      return new InProcessApis.Caller(KafkaPrincipal.ANONYMOUS, peer.getAddress(), connectionId);
    }
    KafkaPrincipal principal =
        BasicCredentials.authenticate(
            header,
            authenticator,
            "this API needs HTTP Basic credentials or a client certificate",
            HttpApiServer::unauthenticated);
    return new InProcessApis.Caller(principal, peer.getAddress(), connectionId);
  }

  /**
   * The principal of the connection's verified client certificate ({@code ssl.client.auth} required
   * or requested), mapped by {@code ssl.principal.mapping.rules} as on the Kafka listeners; empty
   * on plain HTTP or without a certificate.
   */
  private Optional<KafkaPrincipal> certificatePrincipal(
      ChannelHandlerContext ctx, InetSocketAddress peer) {
    SslHandler handler = tls == null ? null : ctx.pipeline().get(SslHandler.class);
    if (handler == null) {
      return Optional.empty();
    }
    KafkaPrincipal principal =
        tls.principal(
            handler.engine().getSession(), peer.getAddress(), HttpApiConfig.TLS_LISTENER_NAME);
    return KafkaPrincipal.ANONYMOUS.equals(principal) ? Optional.empty() : Optional.of(principal);
  }

  private static HttpApiException unauthenticated(String message) {
    return new HttpApiException(
        HttpResponseStatus.UNAUTHORIZED, Errors.SASL_AUTHENTICATION_FAILED, message);
  }

  private static FullHttpResponse error(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    HttpApiException refusal = HttpApiException.of(cause);
    if (refusal.error() == Errors.UNKNOWN_SERVER_ERROR) {
      LOG.warn("HTTP API request failed", cause);
    }
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("error_code", refusal.error().code());
    body.put("error", refusal.error().name());
    body.put("message", refusal.getMessage());
    FullHttpResponse response = json(refusal.status(), body);
    if (refusal.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
      response
          .headers()
          .set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"brook\", charset=\"UTF-8\"");
    }
    return response;
  }

  private static FullHttpResponse json(HttpResponseStatus status, JsonNode body) {
    byte[] bytes;
    try {
      bytes = Json.MAPPER.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    return response;
  }

  /**
   * Writes from any thread (Netty hands the write to the connection's loop), after the caller's
   * quota throttle; {@code then} runs on the connection's loop once a kept-alive answer is written.
   * An answer that is not kept alive says {@code Connection: close} and closes by {@link #linger}.
   */
  private static void send(
      ChannelHandlerContext ctx,
      boolean keepAlive,
      FullHttpResponse response,
      int throttleMs,
      Runnable then) {
    HttpUtil.setContentLength(response, response.content().readableBytes());
    Runnable write =
        () -> {
          if (keepAlive) {
            HttpUtil.setKeepAlive(response, true);
            ctx.writeAndFlush(response).addListener(f -> then.run());
          } else {
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response).addListener(f -> linger(ctx.channel()));
          }
        };
    if (throttleMs > 0) {
      ctx.executor().schedule(write, throttleMs, TimeUnit.MILLISECONDS);
    } else {
      ctx.executor().execute(write);
    }
  }

  /**
   * Closes a connection whose answer is written: ends the output at once, then discards input
   * ({@link Linger}) until the client closes, or for at most {@link #LINGER_MS}.
   */
  private static void linger(Channel channel) {
    if (!(channel instanceof SocketChannel socket) || !socket.isActive()) {
      channel.close();
      return;
    }
    channel.pipeline().addFirst(new Linger());
    channel.config().setAutoRead(true);
    channel.read();
    socket.shutdownOutput();
    channel.eventLoop().schedule(() -> channel.close(), LINGER_MS, TimeUnit.MILLISECONDS);
  }
}
