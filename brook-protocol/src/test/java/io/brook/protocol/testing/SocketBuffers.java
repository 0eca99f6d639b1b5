package io.brook.protocol.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel reports for a socket buffer size it was asked for. */
public final class SocketBuffers {
  private SocketBuffers() {}

  /**
   * What getsockopt(2) reports after setsockopt(2) asked for {@code bytes} of SO_SNDBUF ({@code
   * max} {@code wmem_max}) or SO_RCVBUF ({@code rmem_max}): on Linux twice the size asked for (the
   * kernel counts its bookkeeping in), the size first capped at {@code net.core.<max>}; elsewhere
   * the size asked for.
   */
  public static int kernelReports(int bytes, String max) throws IOException {
    Path limit = Path.of("/proc/sys/net/core", max);
    if (!Files.exists(limit)) {
      return bytes;
    }
    int cap = Integer.parseInt(Files.readString(limit).trim());
    return 2 * Math.min(bytes, cap);
  }
}
