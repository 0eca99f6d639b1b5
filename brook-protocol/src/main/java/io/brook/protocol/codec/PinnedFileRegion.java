package io.brook.protocol.codec;

import io.brook.protocol.PinnableFile;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A {@link DefaultFileRegion} over a pinned {@link PinnableFile}: created with a pin, it gives the
 * pin back when Netty releases it (once the bytes were written, or the write failed or was
 * discarded) instead of closing the channel, which belongs to the storage layer and is shared by
 * many readers. Still a {@code DefaultFileRegion}, so the epoll transport sends it with {@code
 * sendfile(2)} and NIO with {@code FileChannel.transferTo}.
 */
final class PinnedFileRegion extends DefaultFileRegion {
  private final PinnableFile file;

  private PinnedFileRegion(PinnableFile file, FileChannel channel, long position, long count) {
    super(channel, position, count);
    this.file = file;
  }

  /** Pins {@code file} for the life of the region. */
  static PinnedFileRegion pin(PinnableFile file, long position, long count) throws IOException {
    FileChannel channel = file.pin();
    try {
      return new PinnedFileRegion(file, channel, position, count);
    } catch (RuntimeException e) {
      file.unpin();
      throw e;
    }
  }

  @Override
  protected void deallocate() {
    file.unpin();
  }
}
