package io.brook.testports;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ports are real: every allocator here probe-binds 127.0.0.1. The windows lie below this machine's
 * ephemeral range (so no outgoing connection holds one); a port another build holds is skipped,
 * which the assertions allow.
 */
class PortAllocatorTest {
  /** A configured ephemeral range with a reserved hole, and a window reaching across both ends. */
  private static final EphemeralPorts CONFIGURED =
      EphemeralPorts.parse("20000 29999", "25000-25009");

  @TempDir Path lockDir;

  @Test
  void neverHandsOutAPortTheKernelMayPickByItself() {
    // Given a window of which only 19990-19999, the reserved 25000-25009 and 30000-30009 are
    // outside the configured ephemeral ports
    PortAllocator allocator = new PortAllocator(CONFIGURED, 19990, 30009, 3, lockDir);

    // When every port is taken
    List<Integer> ports = drain(allocator);

    // Then none was one the kernel could have given to an outgoing connection
    assertThat(ports).isNotEmpty().doesNotHaveDuplicates();
    assertThat(ports)
        .allSatisfy(
            port -> {
              assertThat(CONFIGURED.contains(port)).as("%s is ephemeral", port).isFalse();
              assertThat(port)
                  .satisfiesAnyOf(
                      p -> assertThat(p).isBetween(19990, 19999),
                      p -> assertThat(p).isBetween(25000, 25009),
                      p -> assertThat(p).isBetween(30000, 30009));
            });
  }

  @Test
  void theSharedAllocatorStaysOutOfThisMachinesEphemeralRange() {
    EphemeralPorts machine = EphemeralPorts.ofThisMachine();
    for (int i = 0; i < 20; i++) {
      int port = PortAllocator.shared().allocate();
      assertThat(port).isBetween(PortAllocator.LOWEST, PortAllocator.HIGHEST);
      assertThat(machine.contains(port)).as("%s in %s", port, machine).isFalse();
    }
  }

  @Test
  void neverHandsOutTheSamePortTwice() {
    // Given a small window, walked round more than once, with and without lock files (the
    // registry alone must do it within one JVM)
    for (Path locks : java.util.Arrays.asList(lockDir, null)) {
      PortAllocator allocator = new PortAllocator(CONFIGURED, 19000, 19007, 5, locks);

      // When every port is taken
      List<Integer> ports = drain(allocator);

      // Then each came once, and the allocator does not start over
      assertThat(ports)
          .isNotEmpty()
          .doesNotHaveDuplicates()
          .allSatisfy(p -> assertThat(p).isBetween(19000, 19007));
      assertThatThrownBy(allocator::allocate)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no loopback port left");
    }
  }

  @Test
  void skipsAPortAnotherSocketIsBoundTo() throws Exception {
    // Given a socket bound to the first port of the window, outside any lock
    try (ServerSocket other = new ServerSocket()) {
      other.setReuseAddress(false);
      other.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 1);
      int taken = other.getLocalPort();
      EphemeralPorts none = EphemeralPorts.parse("1 1", null);
      PortAllocator allocator = new PortAllocator(none, taken, taken + 3, 0, lockDir);

      // When the allocator walks from that port
      List<Integer> ports = drain(allocator);

      // Then it never hands it out
      assertThat(ports).doesNotContain(taken);
    }
  }

  @Test
  void aPortAnotherJvmHoldsIsNotHandedOutEvenWhileNothingListensOnIt() throws Exception {
    // Given another JVM that took ports from the same window, starting at the same place, and
    // closed its probe sockets (as a harness does before its node binds)
    List<String> args = List.of("20000 29999", "", "18000", "18015", "0", lockDir.toString(), "4");
    Process other = startPortHolder(args);
    try {
      List<Integer> theirs = new ArrayList<>();
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(other.getInputStream(), UTF_8))) {
        for (String line = out.readLine(); !"holding".equals(line); line = out.readLine()) {
          assertThat(line).as("the other JVM's output").isNotNull();
          theirs.add(Integer.parseInt(line));
        }

        // When this JVM takes ports the same way
        PortAllocator ours =
            new PortAllocator(EphemeralPorts.parse(args.get(0), null), 18000, 18015, 0, lockDir);
        Set<Integer> mine = new HashSet<>();
        for (int i = 0; i < 4; i++) {
          mine.add(ours.allocate());
        }

        // Then none of them is one the other JVM holds
        assertThat(theirs).hasSize(4);
        assertThat(mine).hasSize(4).doesNotContainAnyElementsOf(theirs);
      }
    } finally {
      other.getOutputStream().close();
      if (!other.waitFor(30, TimeUnit.SECONDS)) {
        other.destroyForcibly();
      }
    }
  }

  @Test
  void withoutAUsableLockDirectoryPortsAreOnlyProbed(@TempDir Path tmp) throws Exception {
    Path notADirectory = Files.writeString(tmp.resolve("file"), "");
    assertThat(PortAllocator.lockDirectory(notADirectory)).isNull();
    assertThat(PortAllocator.lockDirectory(tmp)).isEqualTo(tmp.resolve("brook-test-ports"));
  }

  /** Every port until the allocator has none left; stops at 100, more than any window here. */
  private static List<Integer> drain(PortAllocator allocator) {
    List<Integer> ports = new ArrayList<>();
    while (ports.size() < 100) {
      try {
        ports.add(allocator.allocate());
      } catch (IllegalStateException e) {
        return ports;
      }
    }
    return ports;
  }

  private static Process startPortHolder(List<String> args) throws Exception {
    String classPath =
        Path.of(PortAllocator.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            + java.io.File.pathSeparator
            + Path.of(PortHolder.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath);
    command.add(PortHolder.class.getName());
    command.addAll(args);
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }
}
