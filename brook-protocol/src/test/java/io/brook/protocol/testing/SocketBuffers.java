package io.brook.protocol.testing;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a channel reports for a socket buffer size it was given. On Linux getsockopt(2) gives twice
 * the size setsockopt(2) asked for (the kernel counts its bookkeeping in), the size first capped at
 * {@code net.core.wmem_max} or {@code rmem_max}; Netty's native epoll transport reports that, the
 * JDK (Netty's NIO transport) halves it back. Elsewhere both report the size.
 */
public final class SocketBuffers {
  private static final boolean LINUX = Files.exists(Path.of("/proc/sys/net/core/wmem_max"));

  private SocketBuffers() {}

  /**
   * What {@code channel} reports after SO_SNDBUF ({@code max} {@code wmem_max}) or SO_RCVBUF
   * ({@code rmem_max}) was set to {@code bytes}.
   */
  public static int reportedFor(Channel channel, int bytes, String max) throws IOException {
    if (!LINUX) {
      return bytes;
    }
    // One read: a sysctl file answers only a read from its start.
    String limit = Files.readAllLines(Path.of("/proc/sys/net/core", max)).get(0).trim();
    return asReported(channel, 2 * Math.min(bytes, Integer.parseInt(limit)));
  }

  /** What {@code channel} reports for a buffer getsockopt(2) gives as {@code kernelBytes}. */
  public static int asReported(Channel channel, int kernelBytes) {
    return !LINUX || channel instanceof EpollSocketChannel ? kernelBytes : kernelBytes / 2;
  }

  /** What getsockopt(2) gave for a buffer the JDK reports as {@code jdkBytes}. */
  public static int kernelBytesOfJdk(int jdkBytes) {
    return LINUX ? 2 * jdkBytes : jdkBytes;
  }
}
