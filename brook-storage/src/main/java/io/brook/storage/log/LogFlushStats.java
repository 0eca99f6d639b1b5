package io.brook.storage.log;

import java.util.function.LongConsumer;

/**
 * Where a node's logs report how long their flushes take (Kafka's {@code LogFlushStats}): one per
 * log manager, shared by its logs; the node's metrics listen to it. A flush that had nothing to
 * write is not reported.
 */
public final class LogFlushStats {
  private volatile LongConsumer listener = nanos -> {};

  /** Sets who hears each flush's duration, in nanoseconds; replaces the previous listener. */
  public void listen(LongConsumer listener) {
    this.listener = listener;
  }

  void flushed(long nanos) {
    listener.accept(nanos);
  }
}
