package io.brook.protocol.testing;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * Unpooled heap buffers that remember the largest single allocation asked for, so a test can check
 * that nothing allocates from an unchecked length.
 */
public final class CountingAllocator extends AbstractByteBufAllocator {
  private int largestAllocation;

  public CountingAllocator() {
    super(false);
  }

  /** The largest initial capacity requested so far. */
  public int largestAllocation() {
    return largestAllocation;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    largestAllocation = Math.max(largestAllocation, initialCapacity);
    return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }
}
