package io.brook.protocol.codec;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A {@link DefaultFileRegion} that leaves its {@link FileChannel} open when released. The channel
 * belongs to the storage layer (a segment file shared by many readers); {@code DefaultFileRegion}
 * would close it. Still a {@code DefaultFileRegion}, so the epoll transport sends it with {@code
 * sendfile(2)} and NIO with {@code FileChannel.transferTo}.
 */
final class RetainedFileRegion extends DefaultFileRegion {
  RetainedFileRegion(FileChannel channel, long position, long count) {
    super(channel, position, count);
  }

  @Override
  protected void deallocate() {
    // The storage layer owns and closes the channel.
  }
}
