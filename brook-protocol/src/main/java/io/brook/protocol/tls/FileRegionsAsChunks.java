package io.brook.protocol.tls;

import io.brook.protocol.codec.ReadableFileRegion;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;

/**
 * Turns the {@link FileRegion}s of zero-copy responses into {@link FileRegionChunks} for the {@code
 * ChunkedWriteHandler} in front of it, on connections that encrypt. Everything else passes through.
 * Stateless, shared by all connections.
 */
@ChannelHandler.Sharable
final class FileRegionsAsChunks extends ChannelOutboundHandlerAdapter {
  static final FileRegionsAsChunks INSTANCE = new FileRegionsAsChunks();

  private FileRegionsAsChunks() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ReadableFileRegion region) {
      ctx.write(new FileRegionChunks(region), promise);
    } else if (msg instanceof FileRegion region) {
      // Only readable regions can go through TLS; anything else is a bug, not a silent copy.
      region.release();
      promise.setFailure(new IllegalStateException("a file region that cannot be read in chunks"));
    } else {
      ctx.write(msg, promise);
    }
  }
}
