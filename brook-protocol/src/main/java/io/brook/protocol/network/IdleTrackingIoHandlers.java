package io.brook.protocol.network;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Measures how long the network event loops are idle: waiting in the selector ({@code epoll_wait},
 * {@code select}) for something to do. Each loop's {@link IoHandler} is wrapped: the time of one
 * {@code run} (a wait plus the I/O it then handles) less the I/O time the transport itself reports
 * ({@link IoHandlerContext#reportActiveIoTime}) is the wait. Everything else the loop does (running
 * tasks, handlers, responses) counts as busy. A wait still in progress counts up to now, so a loop
 * blocked for long reads as idle rather than as busy.
 *
 * <p>Costs two {@code System.nanoTime()} calls per loop iteration, on the loop's own thread; the
 * counters have a single writer.
 */
final class IdleTrackingIoHandlers {
  private final CopyOnWriteArrayList<Tracked> handlers = new CopyOnWriteArrayList<>();

  /** {@code factory} with each handler it makes tracked. */
  IoHandlerFactory wrap(IoHandlerFactory factory) {
    return new IoHandlerFactory() {
      @Override
      public IoHandler newHandler(ThreadAwareExecutor executor) {
        Tracked tracked = new Tracked(factory.newHandler(executor));
        handlers.add(tracked);
        return tracked;
      }

      @Override
      public boolean isChangingThreadSupported() {
        return factory.isChangingThreadSupported();
      }
    };
  }

  /** The loops' idle time so far, summed over the loops. */
  long idleNanos() {
    long now = System.nanoTime();
    long sum = 0;
    for (Tracked handler : handlers) {
      sum += handler.idleNanos(now);
    }
    return sum;
  }

  private static final class Tracked implements IoHandler {
    private final IoHandler delegate;

    /** Completed waits; written by the loop only. */
    private volatile long idleNanos;

    /** When the current {@code run} started, 0 outside one; written by the loop only. */
    private volatile long runStartNanos;

    /** I/O time reported during the current {@code run}. Loop only. */
    private long activeNanos;

    private final Context context = new Context();

    Tracked(IoHandler delegate) {
      this.delegate = delegate;
    }

    long idleNanos(long now) {
      long started = runStartNanos;
      long done = idleNanos;
      return started == 0 ? done : done + Math.max(0, now - started);
    }

    @Override
    public int run(IoHandlerContext outer) {
      context.outer = outer;
      activeNanos = 0;
      long start = System.nanoTime();
      runStartNanos = start == 0 ? 1 : start;
      try {
        return delegate.run(context);
      } finally {
        long waited = System.nanoTime() - start - activeNanos;
        runStartNanos = 0;
        idleNanos += Math.max(0, waited);
      }
    }

    /** Passes the loop's context through, noting the I/O time the transport reports. */
    private final class Context implements IoHandlerContext {
      IoHandlerContext outer;

      @Override
      public boolean canBlock() {
        return outer.canBlock();
      }

      @Override
      public long delayNanos(long currentTimeNanos) {
        return outer.delayNanos(currentTimeNanos);
      }

      @Override
      public long deadlineNanos() {
        return outer.deadlineNanos();
      }

      @Override
      public boolean shouldReportActiveIoTime() {
        return true;
      }

      @Override
      public void reportActiveIoTime(long activeNanos) {
        Tracked.this.activeNanos += activeNanos;
        if (outer.shouldReportActiveIoTime()) {
          outer.reportActiveIoTime(activeNanos);
        }
      }
    }

    @Override
    public void initialize() {
      delegate.initialize();
    }

    @Override
    public void prepareToDestroy() {
      delegate.prepareToDestroy();
    }

    @Override
    public void destroy() {
      delegate.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
      return delegate.register(handle);
    }

    @Override
    public void wakeup() {
      delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
      return delegate.isCompatible(handleType);
    }
  }
}
