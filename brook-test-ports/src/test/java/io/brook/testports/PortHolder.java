package io.brook.testports;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * The other JVM of {@link PortAllocatorTest}: allocates ports as a test JVM would, prints them one
 * a line, then holds them until its standard input closes.
 *
 * <p>Arguments: ephemeral range, reserved ports, lowest, highest, start, lock directory, count.
 */
final class PortHolder {
  private PortHolder() {}

  public static void main(String[] args) throws IOException {
    PortAllocator allocator =
        new PortAllocator(
            EphemeralPorts.parse(args[0], args[1]),
            Integer.parseInt(args[2]),
            Integer.parseInt(args[3]),
            Integer.parseInt(args[4]),
            Path.of(args[5]));
    int count = Integer.parseInt(args[6]);
    for (int i = 0; i < count; i++) {
      System.out.println(allocator.allocate());
    }
    System.out.println("holding");
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // Until the test closes our input.
    }
  }
}
