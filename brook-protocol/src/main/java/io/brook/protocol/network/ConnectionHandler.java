package io.brook.protocol.network;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.RequestContext;
import io.brook.protocol.codec.DecodedRequest;
import io.brook.protocol.codec.ErrorResponses;
import io.brook.protocol.codec.FrameReceiveTimeoutException;
import io.brook.protocol.codec.FrameTooLargeException;
import io.brook.protocol.codec.FrameTooSmallException;
import io.brook.protocol.codec.MalformedRequestException;
import io.brook.protocol.codec.OutboundResponse;
import io.brook.protocol.codec.ReadGate;
import io.brook.protocol.codec.ResponseEncoder;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a connection's pipeline: dispatches decoded requests to their {@link
 * ApiHandler}s on the event loop, writes responses strictly in request order ({@link
 * ResponseOrderer}), applies backpressure ({@link ConnectionState}) and closes the connection on
 * protocol errors, idleness and shutdown.
 *
 * <p>Everything here runs on the connection's event loop; handler stages completing on other
 * threads hop back onto it.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

  private final ApiRegistry registry;
  private final String listenerName;
  private final String connectionId;
  private final InetAddress clientAddress;
  private final int queuedMaxRequests;
  private final long maxInFlightBytes;
  private final ReadGate gate;

  /** This connection's own handlers of some APIs (SASL), in place of the registry's. */
  private final java.util.Map<ApiKeys, ApiHandler> connectionHandlers;

  private final ResponseOrderer<Timed> orderer = new ResponseOrderer<>();

  /** The network's request metrics, or null when not measured. */
  private final ResponseTimes times;

  /**
   * A response waiting for its turn, with what its request metrics need: times are {@code
   * System.nanoTime()}; {@code api} null for responses the network layer made itself.
   */
  private record Timed(
      OutboundResponse response,
      ApiKeys api,
      long receivedNanos,
      long completedNanos,
      int throttleMs) {}

  /**
   * Requests handed to a handler and not yet answered; their network buffers are released when the
   * answer is built, or here when the connection goes away first. Event-loop only.
   */
  private final java.util.Set<DecodedRequest.Supported> awaitingHandler =
      java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

  /** Request memory held by this connection's requests (their frames), not yet released. */
  private long inFlightBytes;

  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private ConnectionState state = ConnectionState.initial();
  private ChannelHandlerContext ctx;
  private boolean drainFlushStarted;

  /**
   * Between a read's first {@code channelRead} and its {@code channelReadComplete}: responses
   * completed meanwhile (pipelined requests answered at once) are flushed together at the end.
   */
  private boolean inReadBatch;

  private boolean flushPending;

  /**
   * Until when ({@code System.nanoTime()}) the client is muted for exceeding a quota: its responses
   * are sent, but nothing more is read from it (KIP-219). Event-loop only.
   */
  private long mutedUntilNanos;

  private boolean throttled;

  /**
   * {@code System.nanoTime()} of the connection's last request (or its start): which client
   * connection is the least recently used when one must go (KIP-402). Written on the event loop,
   * read by whichever thread admits a connection.
   */
  private volatile long lastUsedNanos = System.nanoTime();

  ConnectionHandler(
      ApiRegistry registry,
      String listenerName,
      String connectionId,
      InetAddress clientAddress,
      int queuedMaxRequests,
      long maxInFlightBytes,
      ReadGate gate) {
    this(
        registry,
        listenerName,
        connectionId,
        clientAddress,
        queuedMaxRequests,
        maxInFlightBytes,
        gate,
        java.util.Map.of(),
        null);
  }

  /**
   * @param connectionHandlers this connection's own handlers of some APIs (SASL)
   * @param times the network's request metrics to record into, or null
   */
  ConnectionHandler(
      ApiRegistry registry,
      String listenerName,
      String connectionId,
      InetAddress clientAddress,
      int queuedMaxRequests,
      long maxInFlightBytes,
      ReadGate gate,
      java.util.Map<ApiKeys, ApiHandler> connectionHandlers,
      ResponseTimes times) {
    this.times = times;
    this.connectionHandlers = connectionHandlers;
    this.registry = registry;
    this.listenerName = listenerName;
    this.connectionId = connectionId;
    this.clientAddress = clientAddress;
    this.queuedMaxRequests = queuedMaxRequests;
    this.maxInFlightBytes = maxInFlightBytes;
    this.gate = gate;
  }

  /** Bytes of request memory this connection's requests hold. Event-loop only. */
  long inFlightBytes() {
    return inFlightBytes;
  }

  String connectionId() {
    return connectionId;
  }

  String listenerName() {
    return listenerName;
  }

  long lastUsedNanos() {
    return lastUsedNanos;
  }

  /**
   * Stops reading and completes once every request in flight has been answered and flushed, or the
   * connection closed. Callable from any thread.
   */
  CompletableFuture<Void> drain() {
    onEventLoop(
        () -> {
          transition(state.onDrain());
          maybeFinishDrain();
        });
    return drained;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    this.ctx = context;
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (!(msg instanceof DecodedRequest request)) {
      ReferenceCountUtil.release(msg);
      throw new IllegalStateException("unexpected message " + msg.getClass().getName());
    }
    if (!state.dispatches()) {
      if (request instanceof DecodedRequest.Supported supported) {
        supported.release();
      }
      return;
    }
    if (request instanceof DecodedRequest.Supported supported) {
      inFlightBytes += supported.frameBytes();
    }
    lastUsedNanos = System.nanoTime();
    inReadBatch = true;
    long sequence = orderer.register();
    dispatch(sequence, request);
    updateLoad();
  }

  private void dispatch(long sequence, DecodedRequest request) {
    RequestHeader header = request.header();
    if (request instanceof DecodedRequest.Supported supported) {
      if (header.apiKey() == ApiKeys.API_VERSIONS) {
        try {
          complete(
              sequence,
              untimed(OutboundResponse.to(header, ApiVersionsResponses.of(registry, Errors.NONE))));
        } finally {
          release(supported);
        }
      } else {
        invokeHandler(sequence, supported);
      }
    } else if (request instanceof DecodedRequest.UnsupportedApiVersions) {
      complete(
          sequence,
          untimed(
              OutboundResponse.apiVersionsV0(
                  header.correlationId(),
                  ApiVersionsResponses.of(registry, Errors.UNSUPPORTED_VERSION))));
    } else if (request instanceof DecodedRequest.Unsupported unsupported) {
      complete(sequence, untimed(OutboundResponse.to(header, unsupported.errorResponse())));
    }
  }

  private static Timed untimed(OutboundResponse response) {
    return new Timed(response, null, 0, 0, 0);
  }

  private void invokeHandler(long sequence, DecodedRequest.Supported request) {
    RequestHeader header = request.header();
    awaitingHandler.add(request);
    ApiHandler own = connectionHandlers.get(header.apiKey());
    ApiHandler handler =
        own != null
            ? own
            : registry
                .handler(header.apiKey())
                .orElseThrow(() -> new IllegalStateException("no handler for " + header.apiKey()));
    RequestContext context =
        new RequestContext(
            header,
            listenerName,
            clientAddress,
            connectionId,
            request.receivedNanos(),
            () -> onEventLoop(() -> releaseEarly(request)),
            ConnectionPrincipal.of(ctx.channel()));
    CompletionStage<ApiMessage> stage;
    long startNanos = System.nanoTime();
    try {
      stage = handler.handle(context, request.body());
      if (stage == null) {
        stage = CompletableFuture.failedFuture(new IllegalStateException("handler returned null"));
      }
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    // The handler's own time on this thread: what a request quota measures (waiting is free).
    long handlerNanos = System.nanoTime() - startNanos;
    stage.whenComplete(
        (response, error) -> {
          // When the answer is complete, before the hop back onto the event loop.
          long completedNanos = times == null ? 0 : System.nanoTime();
          if (!onEventLoop(
              () ->
                  onHandled(
                      sequence, request, context, handlerNanos, completedNanos, response, error))) {
            request.release(); // the loop is gone, and with it the connection's accounting
          }
        });
  }

  private void onHandled(
      long sequence,
      DecodedRequest.Supported request,
      RequestContext context,
      long handlerNanos,
      long completedNanos,
      ApiMessage response,
      Throwable error) {
    try {
      int throttleMs = error == null ? throttleMs(request, context, handlerNanos, response) : 0;
      if (response != null) {
        // A handler's own throttle (the controller's mutation quota) mutes the client as well.
        throttleMs = Math.max(throttleMs, ThrottleTimes.get(response));
      }
      if (throttleMs > 0 && response != null) {
        ThrottleTimes.set(response, throttleMs);
      }
      respond(sequence, request, completedNanos, throttleMs, response, error);
      if (throttleMs > 0) {
        mute(throttleMs);
      }
    } finally {
      if (awaitingHandler.remove(request)) {
        release(request);
      }
      updateLoad();
    }
  }

  /** Records the request against its client's quotas; its throttle time, 0 if within them. */
  private int throttleMs(
      DecodedRequest.Supported request,
      RequestContext context,
      long handlerNanos,
      ApiMessage response) {
    try {
      return registry
          .throttler()
          .onAnswered(context, request.body(), request.frameBytes(), response, handlerNanos);
    } catch (RuntimeException e) {
      LOG.warn(
          "Recording a request against its quotas failed {} connection={} error={}",
          describe(request.header()),
          connectionId,
          e.toString());
      return 0;
    }
  }

  /**
   * Stops reading from the client for {@code throttleMs} after its response went out (KIP-219): a
   * client that ignores {@code throttle_time_ms} is slowed all the same.
   */
  private void mute(int throttleMs) {
    long until = System.nanoTime() + throttleMs * 1_000_000L;
    if (throttled && until - mutedUntilNanos <= 0) {
      return;
    }
    mutedUntilNanos = until;
    throttled = true;
    updateLoad();
    ctx.executor()
        .schedule(
            () -> {
              if (throttled && System.nanoTime() - mutedUntilNanos >= 0) {
                throttled = false;
                updateLoad();
              }
            },
            throttleMs,
            java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** A handler is done with the request's bytes before its answer; event loop only. */
  private void releaseEarly(DecodedRequest.Supported request) {
    if (awaitingHandler.remove(request)) {
      release(request);
      updateLoad();
    }
  }

  /** Returns a request's frame (and its request memory); event loop only. */
  private void release(DecodedRequest.Supported request) {
    request.release();
    inFlightBytes -= request.frameBytes();
  }

  private void respond(
      long sequence,
      DecodedRequest.Supported request,
      long completedNanos,
      int throttleMs,
      ApiMessage response,
      Throwable error) {
    RequestHeader header = request.header();
    if (error == null && response == null) {
      if (times != null) {
        times.unanswered(header.apiKey(), request.receivedNanos(), completedNanos);
      }
      complete(sequence, null);
      return;
    }
    Throwable failure = error == null ? null : unwrap(error);
    OutboundResponse outbound = null;
    if (failure == null) {
      try {
        outbound = OutboundResponse.to(header, response);
      } catch (IllegalArgumentException e) {
        failure = e;
      }
    }
    if (failure != null) {
      logHandlerFailure(header, failure);
      Optional<ApiMessage> errorResponse;
      try {
        errorResponse = ErrorResponses.forError(header, request.bodyBytes(), failure);
      } catch (RuntimeException e) {
        close("cannot build the error response for " + describe(header) + ": " + e);
        return;
      }
      if (errorResponse.isEmpty()) {
        // Produce with acks=0: the client expects no response, so closing the connection is the
        // only way to tell it something went wrong (Kafka does the same).
        LOG.info(
            "Closing connection after a failed request that takes no response {} connection={}"
                + " error={}",
            describe(header),
            connectionId,
            failure.toString());
        transition(state.onClose("failed request without response"));
        ctx.close();
        return;
      }
      outbound = OutboundResponse.to(header, errorResponse.get());
    }
    complete(
        sequence,
        new Timed(outbound, header.apiKey(), request.receivedNanos(), completedNanos, throttleMs));
  }

  private void complete(long sequence, Timed response) {
    List<Timed> ready = orderer.complete(sequence, response);
    if (!ready.isEmpty() && state.dispatches() && ctx.channel().isActive()) {
      write(ready);
    }
    updateLoad();
    maybeFinishDrain();
  }

  private void write(List<Timed> ready) {
    for (Timed timed : ready) {
      OutboundResponse response = timed.response();
      long writeNanos = times == null ? 0 : System.nanoTime();
      List<Object> parts;
      try {
        parts = ResponseEncoder.encode(ctx.alloc(), response);
      } catch (RuntimeException e) {
        ctx.flush();
        flushPending = false;
        close("cannot encode the response to correlationId=" + response.correlationId() + ": " + e);
        return;
      }
      int last = parts.size() - 1;
      for (int i = 0; i < last; i++) {
        ctx.write(parts.get(i), ctx.voidPromise());
      }
      if (times != null && timed.api() != null && times.measures(timed.api())) {
        // The last part written is the whole response written: its send time ends there.
        ctx.write(parts.get(last))
            .addListener(
                f ->
                    times.sent(
                        timed.api(),
                        timed.receivedNanos(),
                        timed.completedNanos(),
                        writeNanos,
                        System.nanoTime(),
                        timed.throttleMs()));
      } else {
        ctx.write(parts.get(last), ctx.voidPromise());
      }
    }
    if (inReadBatch) {
      flushPending = true;
    } else {
      ctx.flush();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext context) {
    inReadBatch = false;
    if (flushPending) {
      flushPending = false;
      context.flush();
    }
    context.fireChannelReadComplete();
  }

  private void updateLoad() {
    boolean tooMuchInFlight =
        orderer.inFlight() >= queuedMaxRequests || inFlightBytes >= maxInFlightBytes;
    transition(state.onLoad(tooMuchInFlight, !ctx.channel().isWritable(), throttled));
  }

  private void transition(ConnectionState next) {
    boolean changed = next.readsAllowed() != state.readsAllowed();
    state = next;
    if (changed) {
      gate.connectionReads(next.readsAllowed());
    }
  }

  private void maybeFinishDrain() {
    if (state instanceof ConnectionState.Draining
        && orderer.inFlight() == 0
        && !drainFlushStarted) {
      drainFlushStarted = true;
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER)
          .addListener(
              f -> {
                transition(state.onClose("drained"));
                drained.complete(null);
              });
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext context) {
    updateLoad();
    context.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext context, Object event) {
    if (event instanceof IdleStateEvent) {
      if (orderer.inFlight() == 0 && state.dispatches()) {
        LOG.debug("Closing idle connection connection={} listener={}", connectionId, listenerName);
        transition(state.onClose("idle"));
        context.close();
      }
      return;
    }
    context.fireUserEventTriggered(event);
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    // Handlers finished their synchronous work on this loop already; what is still pending holds
    // no reference into the request bytes (work a handler continues elsewhere, such as a produce
    // append handed to the disk pool, runs on its own copy).
    for (DecodedRequest.Supported request : awaitingHandler) {
      release(request);
    }
    awaitingHandler.clear();
    transition(state.onClose("closed"));
    drained.complete(null);
    try {
      registry.connectionClosed(connectionId);
    } catch (RuntimeException e) {
      LOG.error("A connection listener failed connection={}", connectionId, e);
    }
    context.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
    Throwable error =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (!state.dispatches()) {
      LOG.debug(
          "Error on closing connection connection={} error={}", connectionId, error.toString());
      return;
    }
    if (error instanceof FrameTooLargeException tooLarge) {
      LOG.warn(
          "Refused request frame, closing connection peer={} connection={} listener={}"
              + " reason=too-large {}={} received={}",
          context.channel().remoteAddress(),
          connectionId,
          listenerName,
          tooLarge.limit(),
          tooLarge.max(),
          tooLarge.received());
    } else if (error instanceof FrameTooSmallException tooSmall) {
      LOG.warn(
          "Refused request frame, closing connection peer={} connection={} listener={}"
              + " reason=too-small min={} received={}",
          context.channel().remoteAddress(),
          connectionId,
          listenerName,
          tooSmall.min(),
          tooSmall.received());
    } else if (error instanceof FrameReceiveTimeoutException slow) {
      LOG.warn(
          "Request frame not received in time, closing connection peer={} connection={}"
              + " listener={} reason=receive-timeout timeoutMs={} frameBytes={} receivedBytes={}",
          context.channel().remoteAddress(),
          connectionId,
          listenerName,
          slow.timeoutMs(),
          slow.frameBytes(),
          slow.receivedBytes());
    } else if (error instanceof MalformedRequestException) {
      LOG.warn(
          "Malformed request, closing connection peer={} connection={} listener={} error={}",
          context.channel().remoteAddress(),
          connectionId,
          listenerName,
          error.getMessage());
    } else if (error instanceof IOException) {
      LOG.debug(
          "I/O error, closing connection peer={} connection={} error={}",
          context.channel().remoteAddress(),
          connectionId,
          error.toString());
    } else {
      LOG.warn(
          "Unexpected error, closing connection peer={} connection={} error={}",
          context.channel().remoteAddress(),
          connectionId,
          error.toString());
      LOG.debug("Unexpected error on connection={}", connectionId, error);
    }
    transition(state.onClose(error.getClass().getSimpleName()));
    context.close();
  }

  private void close(String reason) {
    LOG.warn(
        "Closing connection peer={} connection={} listener={} reason={}",
        ctx.channel().remoteAddress(),
        connectionId,
        listenerName,
        reason);
    transition(state.onClose(reason));
    ctx.close();
  }

  private void logHandlerFailure(RequestHeader header, Throwable failure) {
    if (failure instanceof ApiException) {
      LOG.debug(
          "Request failed {} connection={} error={}",
          describe(header),
          connectionId,
          failure.toString());
    } else {
      // Rare and always a bug or a broken invariant: the stack trace is what finds it.
      LOG.warn(
          "Handler failed unexpectedly {} connection={}", describe(header), connectionId, failure);
    }
  }

  /** Runs {@code task} on the connection's event loop; false if the loop is gone. */
  private boolean onEventLoop(Runnable task) {
    if (ctx.executor().inEventLoop()) {
      task.run();
      return true;
    }
    try {
      ctx.executor().execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      LOG.debug("Event loop gone, dropping a completion for connection={}", connectionId);
      drained.complete(null);
      return false;
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static String describe(RequestHeader header) {
    return "api="
        + header.apiKey().name
        + " version="
        + header.apiVersion()
        + " correlationId="
        + header.correlationId()
        + " clientId="
        + header.clientId();
  }
}
