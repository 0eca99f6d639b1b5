package io.brook.protocol.codec;

import io.brook.protocol.memory.RequestMemoryPool;
import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;

/**
 * One request frame (without its length prefix) and the request memory reserved for it: releasing
 * the last reference releases the buffer and gives the bytes back to the pool, so the budget can
 * only leak where a buffer leaks, which the leak detector reports.
 */
public final class RequestFrame extends AbstractReferenceCounted {
  private final ByteBuf content;
  private final int size;
  private final RequestMemoryPool pool;

  /**
   * @param content the frame's bytes, owned by this frame from now on
   * @param pool where {@code content.readableBytes()} bytes are reserved
   */
  public RequestFrame(ByteBuf content, RequestMemoryPool pool) {
    this.content = content;
    this.size = content.readableBytes();
    this.pool = pool;
  }

  /** The frame's bytes, readable from the header's start; valid until released. */
  public ByteBuf content() {
    return content;
  }

  /** The frame's length, the bytes reserved for it. */
  public int size() {
    return size;
  }

  @Override
  protected void deallocate() {
    try {
      content.release();
    } finally {
      pool.release(size);
    }
  }

  @Override
  public RequestFrame touch(Object hint) {
    content.touch(hint);
    return this;
  }
}
