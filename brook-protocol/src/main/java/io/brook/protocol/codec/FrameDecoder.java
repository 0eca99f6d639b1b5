package io.brook.protocol.codec;

import io.brook.protocol.memory.RequestMemoryPool;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into request frames: a 4-byte big-endian length, then that many bytes.
 * Emits each frame as a {@link RequestFrame} (the next handler releases it).
 *
 * <p>Distrusts its input and bounds memory:
 *
 * <ul>
 *   <li>the length prefix is checked against {@code socket.request.max.bytes}, the smallest
 *       possible request and the whole request-memory budget as soon as its 4 bytes arrive; a bad
 *       length fires a {@link FrameLengthException} and every later byte is discarded, so one
 *       refusal yields one exception;
 *   <li>then the frame's whole length is reserved in the broker-wide {@link RequestMemoryPool};
 *       only after that is a buffer of exactly that size allocated (or, when the frame is already
 *       in hand, a slice of the input kept). If the pool is exhausted the connection stops reading
 *       and waits in the pool's queue holding no reservation, only the input already received (at
 *       most one socket read), until the bytes are granted;
 *   <li>a new frame is not started while the connection is paused ({@link ReadGate}); a started
 *       frame is read to its end, and must arrive whole within {@code
 *       brook.request.receive.timeout.ms} of its prefix, or the connection is closed: a client
 *       trickling bytes cannot hold reserved memory forever.
 * </ul>
 *
 * <p>Confined to the connection's event loop, except the pool's grant, which hops onto it.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

  /** Size of the length prefix: an INT32. */
  public static final int LENGTH_FIELD_BYTES = 4;

  /**
   * The smallest request frame: a request header v1 with a null client id, i.e. api_key INT16 (2) +
   * api_version INT16 (2) + correlation_id INT32 (4) + client_id NULLABLE_STRING length INT16 (2),
   * with an empty body. Header v0 (no client id) was only used by ControlledShutdown v0, which
   * kafka-clients 4.x no longer knows; header v2 adds a tagged-field count and is larger.
   */
  public static final int MIN_FRAME_BYTES = 10;

  private final int maxFrameBytes;

  /** The limit in force: {@code maxFrameBytes}, or a lower one until authentication. */
  private int frameLimit;

  private String frameLimitName = FrameTooLargeException.SOCKET_REQUEST_MAX_BYTES;
  private final long receiveTimeoutMs;
  private final RequestMemoryPool pool;
  private final ReadGate gate;
  private ChannelHandlerContext ctx;

  /** Input not consumed yet: a partial length prefix, or bytes held while waiting. */
  private ByteBuf pending;

  /** The frame being filled; its whole length, {@code frameLength}, is reserved. */
  private ByteBuf frame;

  private int frameLength;

  /** Closes the connection if {@code frame} is still incomplete when it fires. */
  private ScheduledFuture<?> frameDeadline;

  /** Set while waiting in the pool for the frame whose prefix is at the start of pending. */
  private MemoryWaiter waiter;

  private boolean refused;
  private boolean gone;

  /**
   * @param maxFrameBytes {@code socket.request.max.bytes}
   * @param receiveTimeoutMs {@code brook.request.receive.timeout.ms}: how long a frame whose memory
   *     is reserved may take to arrive whole
   * @param pool the broker-wide request memory
   * @param gate the connection's reading switch, shared with its connection handler
   */
  public FrameDecoder(
      int maxFrameBytes, long receiveTimeoutMs, RequestMemoryPool pool, ReadGate gate) {
    if (maxFrameBytes < MIN_FRAME_BYTES) {
      throw new IllegalArgumentException(
          "maxFrameBytes " + maxFrameBytes + " is below the smallest request " + MIN_FRAME_BYTES);
    }
    if (receiveTimeoutMs <= 0) {
      throw new IllegalArgumentException("receiveTimeoutMs must be positive: " + receiveTimeoutMs);
    }
    this.maxFrameBytes = maxFrameBytes;
    this.frameLimit = maxFrameBytes;
    this.receiveTimeoutMs = receiveTimeoutMs;
    this.pool = pool;
    this.gate = gate;
  }

  /**
   * Refuses frames above {@code bytes} (if lower than {@code socket.request.max.bytes}) until
   * {@link #restoreLimit()}: a connection that has not authenticated yet gets no large buffers.
   * Event loop only.
   *
   * @param setting the setting named when a frame is refused
   */
  public void limitFrames(int bytes, String setting) {
    if (bytes < maxFrameBytes) {
      frameLimit = Math.max(bytes, MIN_FRAME_BYTES);
      frameLimitName = setting;
    }
  }

  /** Back to {@code socket.request.max.bytes}. Event loop only. */
  public void restoreLimit() {
    frameLimit = maxFrameBytes;
    frameLimitName = FrameTooLargeException.SOCKET_REQUEST_MAX_BYTES;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    this.ctx = context;
    gate.onResume(this::decodeOutsideARead);
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      context.fireChannelRead(msg);
      return;
    }
    if (refused || gone) {
      in.release();
      return;
    }
    pending =
        pending == null
            ? in
            : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), pending, in);
    decodeAvailable();
  }

  /** Decodes what the input allows: fills the current frame, then starts new ones while allowed. */
  private void decodeAvailable() {
    while (!refused && !gone && waiter == null && pending != null && pending.isReadable()) {
      if (frame != null) {
        frame.writeBytes(pending, Math.min(pending.readableBytes(), frame.writableBytes()));
        if (frame.isWritable()) {
          break;
        }
        ByteBuf complete = frame;
        frame = null;
        cancelDeadline();
        gate.fillingFrame(false);
        emit(complete);
        continue;
      }
      if (gate.connectionPaused() || pending.readableBytes() < LENGTH_FIELD_BYTES) {
        break;
      }
      int length = pending.getInt(pending.readerIndex());
      if (!checkLength(length)) {
        return;
      }
      if (!pool.tryReserve(length)) {
        MemoryWaiter candidate = new MemoryWaiter(length);
        if (!pool.reserveOrWait(length, candidate)) {
          waiter = candidate;
          gate.awaitingMemory(true);
          break;
        }
      }
      start(length);
    }
    if (pending != null && !pending.isReadable()) {
      pending.release();
      pending = null;
    }
  }

  private boolean checkLength(int length) {
    FrameLengthException refusal = null;
    if (length > frameLimit) {
      refusal = new FrameTooLargeException(frameLimitName, frameLimit, length);
    } else if (length < MIN_FRAME_BYTES) {
      refusal = new FrameTooSmallException(MIN_FRAME_BYTES, length);
    } else if (length > pool.capacity()) {
      refusal =
          new FrameTooLargeException(
              FrameTooLargeException.QUEUED_MAX_REQUEST_BYTES, (int) pool.capacity(), length);
    }
    if (refusal == null) {
      return true;
    }
    refused = true;
    releaseAll();
    ctx.fireExceptionCaught(refusal);
    return false;
  }

  /** The frame's bytes are reserved and its prefix is at the start of pending: take it. */
  private void start(int length) {
    pending.skipBytes(LENGTH_FIELD_BYTES);
    if (pending.readableBytes() >= length) {
      emit(pending.readRetainedSlice(length));
      return;
    }
    try {
      frame = ctx.alloc().buffer(length, length);
      frameLength = length;
      frameDeadline =
          ctx.executor().schedule(this::frameTimedOut, receiveTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (OutOfMemoryError e) {
      // Netty's direct-memory limit was hit despite the reservation (memory used elsewhere):
      // this connection goes, the broker stays.
      pool.release(length);
      refused = true;
      releaseAll();
      ctx.fireExceptionCaught(e);
      return;
    }
    gate.fillingFrame(true);
  }

  private void emit(ByteBuf content) {
    ctx.fireChannelRead(new RequestFrame(content, pool));
  }

  private void frameTimedOut() {
    frameDeadline = null;
    if (frame == null || gone || refused) {
      return;
    }
    FrameReceiveTimeoutException timeout =
        new FrameReceiveTimeoutException(frameLength, frame.readableBytes(), receiveTimeoutMs);
    refused = true;
    releaseAll();
    ctx.fireExceptionCaught(timeout);
  }

  private void cancelDeadline() {
    if (frameDeadline != null) {
      frameDeadline.cancel(false);
      frameDeadline = null;
    }
  }

  /** The pool reserved the bytes asked for; continue on the event loop. */
  private void onGranted(MemoryWaiter granted) {
    if (gone || refused || waiter != granted) {
      pool.release(granted.bytes);
      return;
    }
    waiter = null;
    gate.awaitingMemory(false);
    start(granted.bytes);
    decodeOutsideARead();
  }

  /**
   * Decodes input held back, from a task rather than a socket read: ends with a read-complete so
   * that handlers batching their flushes until the end of a read flush what these requests got.
   */
  private void decodeOutsideARead() {
    decodeAvailable();
    if (!gone) {
      ctx.fireChannelReadComplete();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    if (frame != null || (pending != null && pending.isReadable() && !refused)) {
      LOG.info(
          "Connection closed mid-frame peer={} receivedBytes={}",
          context.channel().remoteAddress(),
          (frame == null ? 0 : frame.readableBytes())
              + (pending == null ? 0 : pending.readableBytes()));
    }
    goAway();
    context.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext context) {
    goAway();
  }

  private void goAway() {
    gone = true;
    releaseAll();
  }

  private void releaseAll() {
    if (waiter != null) {
      MemoryWaiter withdrawn = waiter;
      waiter = null;
      // If the grant is already on its way, onGranted sees the mismatch and gives it back.
      pool.cancel(withdrawn);
    }
    if (frame != null) {
      cancelDeadline();
      frame.release();
      frame = null;
      pool.release(frameLength);
    }
    if (pending != null) {
      pending.release();
      pending = null;
    }
  }

  /** A wait for {@code bytes} of request memory, granted on any thread. */
  private final class MemoryWaiter implements RequestMemoryPool.Waiter {
    final int bytes;

    MemoryWaiter(int bytes) {
      this.bytes = bytes;
    }

    @Override
    public void granted() {
      try {
        ctx.executor().execute(() -> onGranted(this));
      } catch (RejectedExecutionException e) {
        pool.release(bytes);
      }
    }
  }
}
