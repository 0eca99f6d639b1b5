package io.brook.protocol.tls;

import io.brook.protocol.codec.ReadableFileRegion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import java.io.IOException;

/**
 * A {@link ReadableFileRegion} read as chunks of pooled direct buffers, for connections whose bytes
 * must pass through an encrypting handler: TLS cannot use {@code sendfile}. Each chunk is read from
 * the file straight into off-heap memory (never the Java heap) and released once the TLS handler
 * has encrypted it; Netty's {@code ChunkedWriteHandler} reads the next only while the channel is
 * writable, so a connection holds at most a chunk or two of a fetch however large it is.
 *
 * <p>Closing the input (done, failed or discarded with its connection) releases the region, which
 * gives the file back to the storage layer.
 */
final class FileRegionChunks implements ChunkedInput<ByteBuf> {
  /** 16 KiB: one TLS record's worth of plaintext, so a chunk is encrypted as it is read. */
  static final int CHUNK_BYTES = 16 * 1024;

  private final ReadableFileRegion region;
  private long offset;
  private boolean closed;

  FileRegionChunks(ReadableFileRegion region) {
    this.region = region;
  }

  @Override
  public boolean isEndOfInput() {
    return offset >= region.count();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      region.release();
    }
  }

  @Deprecated
  @Override
  public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
    return readChunk(ctx.alloc());
  }

  @Override
  public ByteBuf readChunk(ByteBufAllocator allocator) throws IOException {
    if (isEndOfInput()) {
      return null;
    }
    int length = (int) Math.min(CHUNK_BYTES, region.count() - offset);
    ByteBuf chunk = allocator.directBuffer(length);
    boolean done = false;
    try {
      while (chunk.readableBytes() < length) {
        int read =
            region.readInto(chunk, offset + chunk.readableBytes(), length - chunk.readableBytes());
        if (read < 0) {
          throw new IOException(
              "file ended at "
                  + (offset + chunk.readableBytes())
                  + " of a "
                  + region.count()
                  + "-byte region");
        }
      }
      offset += length;
      done = true;
      return chunk;
    } finally {
      if (!done) {
        chunk.release();
      }
    }
  }

  @Override
  public long length() {
    return region.count();
  }

  @Override
  public long progress() {
    return offset;
  }
}
