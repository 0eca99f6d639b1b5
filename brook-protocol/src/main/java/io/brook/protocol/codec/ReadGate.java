package io.brook.protocol.codec;

import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

/**
 * Decides whether one connection reads from its socket (Netty's auto-read), from the two parties
 * that may want it to stop: the connection itself (too much in flight, socket unwritable, draining,
 * closed) and the {@link FrameDecoder} waiting for request memory. Keeping both here means neither
 * turns reading back on while the other still needs it off.
 *
 * <p>A frame whose memory is reserved is read to its end even while the connection is paused: its
 * bytes go into a buffer that already exists, and a paused connection must not sit on reserved
 * memory others wait for. New frames start only while the connection is not paused.
 *
 * <p>Confined to the connection's event loop.
 */
public final class ReadGate {
  private final Channel channel;
  private boolean connectionPaused;
  private boolean awaitingMemory;
  private boolean fillingFrame;
  private Runnable onResume = () -> {};

  public ReadGate(Channel channel) {
    this.channel = channel;
  }

  /**
   * The connection's own verdict. When it allows reading again the decoder is told, on a later
   * event-loop task (never from inside the caller), so input it held back is decoded.
   */
  public void connectionReads(boolean allowed) {
    boolean resumed = connectionPaused && allowed;
    connectionPaused = !allowed;
    apply();
    if (resumed) {
      try {
        channel.eventLoop().execute(onResume);
      } catch (RejectedExecutionException e) {
        // The event loop is shutting down and the connection with it: nothing left to decode.
      }
    }
  }

  /** Whether the connection wants no new requests started. */
  public boolean connectionPaused() {
    return connectionPaused;
  }

  void awaitingMemory(boolean waiting) {
    awaitingMemory = waiting;
    apply();
  }

  void fillingFrame(boolean filling) {
    fillingFrame = filling;
    apply();
  }

  void onResume(Runnable task) {
    onResume = task;
  }

  private void apply() {
    boolean read = !awaitingMemory && (fillingFrame || !connectionPaused);
    if (channel.config().isAutoRead() != read) {
      channel.config().setAutoRead(read);
    }
  }
}
