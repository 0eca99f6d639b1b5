package io.brook.protocol;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A file that its owner (the storage layer) may close while nobody uses it. {@link #pin()} keeps it
 * open, reopening it if needed, until the matching {@link #unpin()}; the network layer pins a file
 * for exactly as long as a response that sends from it is being written.
 */
public interface PinnableFile {
  /**
   * Keeps the file open until {@link #unpin()}.
   *
   * @return the open channel, valid until the matching unpin
   * @throws IOException if the file was closed for good or cannot be reopened
   */
  FileChannel pin() throws IOException;

  /** Gives back one pin; call exactly once per successful {@link #pin()}. */
  void unpin();

  /** A channel its owner keeps open anyway (tests, tools): pinning does nothing. */
  static PinnableFile alwaysOpen(FileChannel channel) {
    return new PinnableFile() {
      @Override
      public FileChannel pin() {
        return channel;
      }

      @Override
      public void unpin() {}
    };
  }
}
