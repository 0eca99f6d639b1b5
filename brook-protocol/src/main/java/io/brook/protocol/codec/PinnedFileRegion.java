package io.brook.protocol.codec;

import io.brook.protocol.PinnableFile;
import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A {@link DefaultFileRegion} over a pinned {@link PinnableFile}: created with a pin, it gives the
 * pin back when Netty releases it (once the bytes were written, or the write failed or was
 * discarded) instead of closing the channel, which belongs to the storage layer and is shared by
 * many readers. Still a {@code DefaultFileRegion}, so the epoll transport sends it with {@code
 * sendfile(2)} and NIO with {@code FileChannel.transferTo}; a TLS connection reads it in chunks
 * instead ({@link ReadableFileRegion}).
 */
final class PinnedFileRegion extends DefaultFileRegion implements ReadableFileRegion {
  private final PinnableFile file;
  private final FileChannel channel;

  private PinnedFileRegion(PinnableFile file, FileChannel channel, long position, long count) {
    super(channel, position, count);
    this.file = file;
    this.channel = channel;
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
  public int readInto(ByteBuf dst, long offset, int length) throws IOException {
    if (offset < 0 || length < 0 || offset + length > count()) {
      throw new IndexOutOfBoundsException(
          "read of " + length + " at " + offset + " outside a region of " + count());
    }
    return dst.writeBytes(channel, position() + offset, length);
  }

  @Override
  protected void deallocate() {
    file.unpin();
  }
}
