package io.brook.server.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.server.console.ConsoleHttp;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP listener ({@code brook.admin.listener}): {@code GET /metrics} (the node's metrics
 * and the JVM's in the Prometheus text format, OpenMetrics when the {@code Accept} header asks),
 * {@code GET /health} and {@code GET /ready} (200 or 503 with a JSON body listing each check and
 * why it fails). Its own single event loop, apart from the Kafka listeners'; collecting the metrics
 * and running the checks happen on one admin worker thread (a gauge may walk every partition),
 * never on an event loop. Requests are small: a body over 64 KiB is refused by the aggregator.
 *
 * <p>On a broker it also serves the web console ({@link ConsoleHttp}) under {@code /console/},
 * {@code /} redirecting there.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  /** Bodies are small: a console form (a topic to create, a test record to produce). */
  private static final int MAX_REQUEST_BYTES = 64 * 1024;

  /** Scrapes wait here when one is running; more than this are refused with 503. */
  private static final int MAX_WAITING = 16;

  private final EventLoopGroup group;
  private final ExecutorService worker;
  private final Channel channel;

  /**
   * The accepted connections, closed explicitly on {@link #close}: a client's keep-alive connection
   * must end with this server, so its next request opens one to whatever listens on the port next
   * instead of being written to a socket nobody reads any more.
   */
  private final ChannelGroup connections;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ExpositionFormats formats = ExpositionFormats.init();
  private final Supplier<List<HealthCheck>> health;
  private final Supplier<List<HealthCheck>> ready;
  private final ObjectMapper json = new ObjectMapper();

  /** The web console, once the broker has started ({@link #attachConsole}); null before. */
  private volatile ConsoleHttp console;

  private AdminServer(
      BrokerMetrics metrics,
      Supplier<List<HealthCheck>> health,
      Supplier<List<HealthCheck>> ready,
      String host,
      int port) {
    this.health = health;
    this.ready = ready;
    registry.register(new PrometheusBridge(metrics));
    JvmMetrics.builder().register(registry);
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("brook-admin-http", true), NioIoHandler.newFactory());
    this.connections = new DefaultChannelGroup("brook-admin-connections", group.next());
    this.worker =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(MAX_WAITING),
            new DefaultThreadFactory("brook-admin-worker", true));
    try {
      this.channel =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      connections.add(ch);
                      ch.pipeline()
                          .addLast(new HttpServerCodec())
                          .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                          .addLast(new Handler());
                    }
                  })
              .bind(host, port)
              .syncUninterruptibly()
              .channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      worker.shutdownNow();
      throw e;
    }
  }

  /**
   * Binds the listener.
   *
   * @param health the checks of {@code /health}, run per request
   * @param ready the checks of {@code /ready}, run per request
   */
  public static AdminServer start(
      BrokerMetrics metrics,
      Supplier<List<HealthCheck>> health,
      Supplier<List<HealthCheck>> ready,
      String host,
      int port) {
    AdminServer server = new AdminServer(metrics, health, ready, host, port);
    LOG.info("Admin listener started address={}", server.channel.localAddress());
    return server;
  }

  /** The port bound (useful with port 0). */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /**
   * Starts serving the web console under {@code /console/} (and redirecting {@code /} to it), its
   * slow work on this listener's worker thread.
   */
  public ConsoleHttp attachConsole(ConsoleHttp.Builder builder) {
    ConsoleHttp built = builder.worker(worker).build();
    console = built;
    return built;
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    connections.close().awaitUninterruptibly();
    ConsoleHttp attached = console;
    if (attached != null) {
      attached.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    worker.shutdownNow();
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      String path = new QueryStringDecoder(request.uri()).path();
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      if (path.equals("/") || path.equals("/console") || path.startsWith("/console/")) {
        console(ctx, request, path, keepAlive);
        return;
      }
      if (!request.method().equals(HttpMethod.GET)) {
        send(ctx, keepAlive, text(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "GET only\n"));
        return;
      }
      String accept = request.headers().get(HttpHeaderNames.ACCEPT);
      Runnable work =
          switch (path) {
            case "/metrics" -> () -> send(ctx, keepAlive, metrics(ctx, accept));
            case "/health" -> () -> send(ctx, keepAlive, checks(ctx, health.get()));
            case "/ready" -> () -> send(ctx, keepAlive, checks(ctx, ready.get()));
            default -> null;
          };
      if (work == null) {
        send(ctx, keepAlive, text(ctx, HttpResponseStatus.NOT_FOUND, "not found\n"));
        return;
      }
      try {
        worker.execute(
            () -> {
              try {
                work.run();
              } catch (RuntimeException e) {
                LOG.warn("Admin request failed path={}", path, e);
                send(
                    ctx,
                    false,
                    text(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, e.toString() + "\n"));
              }
            });
      } catch (RejectedExecutionException e) {
        send(ctx, false, text(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy\n"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("Admin connection failed", cause);
      ctx.close();
    }
  }

  /** Hands a console request, copied off its buffer, to the worker. */
  private void console(
      ChannelHandlerContext ctx, FullHttpRequest request, String path, boolean keepAlive) {
    if (path.equals("/") || path.equals("/console")) {
      send(ctx, keepAlive, response(ctx, ConsoleHttp.redirect()));
      return;
    }
    ConsoleHttp attached = console;
    if (attached == null) {
      send(
          ctx,
          keepAlive,
          text(
              ctx,
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "the console is served by a broker once it has started\n"));
      return;
    }
    ConsoleHttp.Request copy =
        new ConsoleHttp.Request(
            request.method(),
            request.uri(),
            request.headers().copy(),
            ByteBufUtil.getBytes(request.content()),
            ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress(),
            ctx.channel().id().asShortText());
    try {
      worker.execute(
          () ->
              attached
                  .handle(copy)
                  .whenComplete(
                      (answer, failure) -> {
                        if (failure != null) {
                          LOG.warn("Console request failed path={}", path, failure);
                          send(
                              ctx,
                              false,
                              text(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "failed\n"));
                        } else {
                          send(ctx, keepAlive, response(ctx, answer));
                        }
                      }));
    } catch (RejectedExecutionException e) {
      send(ctx, false, text(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy\n"));
    }
  }

  private static FullHttpResponse response(ChannelHandlerContext ctx, ConsoleHttp.Response r) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            r.status(),
            ctx.alloc().buffer(r.body().length).writeBytes(r.body()));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
    r.headers().forEach(response.headers()::set);
    return response;
  }

  private FullHttpResponse metrics(ChannelHandlerContext ctx, String accept) {
    ExpositionFormatWriter writer = formats.findWriter(accept);
    if (!writer.isAvailable()) {
      writer = formats.getPrometheusTextFormatWriter();
    }
    ByteBuf body = ctx.alloc().buffer();
    try (OutputStream out = new ByteBufOutputStream(body)) {
      writer.write(out, registry.scrape());
    } catch (IOException | RuntimeException e) {
      body.release();
      throw new IllegalStateException("writing the metrics failed", e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, writer.getContentType());
    return response;
  }

  private FullHttpResponse checks(ChannelHandlerContext ctx, List<HealthCheck> checks) {
    boolean ok = checks.stream().allMatch(HealthCheck::ok);
    ObjectNode root = json.createObjectNode();
    root.put("status", ok ? "UP" : "DOWN");
    ArrayNode list = root.putArray("checks");
    for (HealthCheck check : checks) {
      ObjectNode node = list.addObject();
      node.put("name", check.name());
      node.put("status", check.ok() ? "UP" : "DOWN");
      if (!check.ok()) {
        node.put("reason", check.failure());
      }
    }
    byte[] body;
    try {
      body = json.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            ok ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
            ctx.alloc().buffer(body.length).writeBytes(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    return response;
  }

  private static FullHttpResponse text(
      ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, status, ctx.alloc().buffer(bytes.length).writeBytes(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    return response;
  }

  /** Writes from any thread; Netty hands the write to the connection's event loop. */
  private static void send(
      ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
    HttpUtil.setContentLength(response, response.content().readableBytes());
    if (keepAlive) {
      HttpUtil.setKeepAlive(response, true);
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
