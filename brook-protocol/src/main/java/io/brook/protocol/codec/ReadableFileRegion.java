package io.brook.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import java.io.IOException;

/**
 * A {@link FileRegion} whose bytes can also be read into a buffer, for connections that cannot send
 * a file as is (TLS encrypts every byte): the read goes from the file straight into the given
 * (direct) buffer with a positional read, without a heap copy.
 */
public interface ReadableFileRegion extends FileRegion {
  /**
   * Reads up to {@code length} bytes starting {@code offset} bytes into the region and appends them
   * to {@code dst}.
   *
   * @return the bytes read, -1 at the end of the file
   */
  int readInto(ByteBuf dst, long offset, int length) throws IOException;
}
