package io.brook.testports;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Loopback ports for listeners a test binds later than it picks the port, or binds again after a
 * restart: a cluster's voter list names every node's controller port before any node starts, and a
 * restarted node gets its old ports back. A port from port 0 or from a probe socket comes from the
 * kernel's ephemeral range, which is also where the local end of every outgoing connection comes
 * from: between picking and (re)binding, any connection on the machine (the cluster's own, a
 * client's, another build's) can take it, and the node fails with "cannot bind". (Connecting to an
 * unbound port in that range can even connect a socket to itself.)
 *
 * <p>So every port handed out here is
 *
 * <ol>
 *   <li>outside the kernel's ephemeral ports ({@link EphemeralPorts}: {@code ip_local_port_range}
 *       minus {@code ip_local_reserved_ports}, assumed 32768-65535 where /proc cannot be read),
 *       from 10000 up (below that are many well-known services): the kernel never hands these out
 *       by itself, so only an explicit bind can take one;
 *   <li>found by walking those candidates from a random start (seeded with the pid and the clock),
 *       so concurrent JVMs start far apart and rarely even look at the same ports;
 *   <li>handed out at most once per JVM (a registry of every port handed out; none is taken back);
 *   <li>reserved across JVMs (Surefire and Failsafe forks, other builds on the machine, other
 *       users' too) by an exclusive lock on {@code <java.io.tmpdir>/brook-test-ports/<port>.lock},
 *       held until the JVM exits; the kernel drops it when the process dies, however it dies.
 *       Another JVM skips a port whose lock it cannot take, even while nothing listens on it yet;
 *   <li>free now: a probe bind to 127.0.0.1 without {@code SO_REUSEADDR} succeeded, so a port in
 *       use by something that does not take part in the locking, or still in TIME_WAIT, is skipped.
 * </ol>
 *
 * <p>A port stays reserved for the life of the JVM, so a node can be stopped and started on it any
 * number of times. If the lock directory cannot be used, ports are only probed (printed once to
 * standard error). Use {@link #shared()}: POSIX record locks belong to the process, so a second
 * allocator on the same lock directory in one JVM would release the first one's locks when it
 * closes a lock file.
 */
public final class PortAllocator {
  /** The lowest port handed out. */
  static final int LOWEST = 10_000;

  static final int HIGHEST = 65_535;

  private static final InetAddress LOOPBACK = loopbackV4();

  private final EphemeralPorts ephemeral;
  private final int lowest;
  private final int highest;
  private final Path lockDir;
  private final int candidates;
  private final BitSet handedOut = new BitSet(HIGHEST + 1);

  /** Every lock taken, held open for the life of the JVM: closing a channel releases its lock. */
  private final List<FileChannel> locks = new ArrayList<>();

  private int next;

  /**
   * Ports from {@code [lowest, highest]} not in {@code ephemeral}, walked from the {@code start}-th
   * (modulo their number), reserved with lock files in {@code lockDir} (null: probe only).
   */
  PortAllocator(EphemeralPorts ephemeral, int lowest, int highest, int start, Path lockDir) {
    this.ephemeral = ephemeral;
    this.lowest = lowest;
    this.highest = highest;
    this.lockDir = lockDir;
    int count = 0;
    for (int port = lowest; port <= highest; port++) {
      count += ephemeral.contains(port) ? 0 : 1;
    }
    this.candidates = count;
    this.next = count == 0 ? -1 : nth(Math.floorMod(start, count));
  }

  /** The JVM's allocator: every harness and test in the JVM must take its ports from this one. */
  public static PortAllocator shared() {
    return Shared.INSTANCE;
  }

  /**
   * A loopback port that nothing else in this JVM, or in any other JVM using this class, will be
   * handed, and that the kernel will not give to an outgoing connection.
   *
   * @throws IllegalStateException if no candidate is left
   */
  public synchronized int allocate() {
    for (int tried = 0; tried < candidates; tried++) {
      int port = next;
      next = following(port);
      if (handedOut.get(port)) {
        continue;
      }
      FileChannel lock = null;
      if (lockDir != null) {
        lock = tryLock(port);
        if (lock == null) {
          continue;
        }
      }
      if (!bindable(port)) {
        closeQuietly(lock);
        continue;
      }
      handedOut.set(port);
      if (lock != null) {
        locks.add(lock);
      }
      return port;
    }
    throw new IllegalStateException(
        "no loopback port left in "
            + lowest
            + "-"
            + highest
            + " outside the kernel's ephemeral ports "
            + ephemeral
            + " ("
            + handedOut.cardinality()
            + " handed out in this JVM); narrow net.ipv4.ip_local_port_range or reserve ports"
            + " for tests with net.ipv4.ip_local_reserved_ports");
  }

  /** The candidate after {@code port}, wrapping around. */
  private int following(int port) {
    int p = port;
    do {
      p = p >= highest ? lowest : p + 1;
    } while (ephemeral.contains(p));
    return p;
  }

  private int nth(int index) {
    int seen = 0;
    for (int port = lowest; ; port++) {
      if (!ephemeral.contains(port) && seen++ == index) {
        return port;
      }
    }
  }

  /** The port's lock file's channel with the lock held, or null if someone else holds it. */
  private FileChannel tryLock(int port) {
    Path file = lockDir.resolve(port + ".lock");
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      shareWithOtherUsers(file, "rw-rw-rw-");
      if (channel.tryLock() != null) {
        return channel;
      }
    } catch (IOException | OverlappingFileLockException e) {
      // Another user's file we may not open, or a lock this JVM holds already: taken either way.
    }
    closeQuietly(channel);
    return null;
  }

  private static boolean bindable(int port) {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(false);
      probe.bind(new InetSocketAddress(LOOPBACK, port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      // Nothing held through it.
    }
  }

  /**
   * The umask would keep other users' builds from locking in our directory and files; making them
   * shareable fails harmlessly where they are someone else's or the file system is not POSIX.
   */
  private static void shareWithOtherUsers(Path path, String permissions) {
    try {
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    } catch (IOException | UnsupportedOperationException e) {
      // Not ours to change, or no POSIX permissions.
    }
  }

  /**
   * The machine-wide lock directory, or a per-user one if another user's is closed to us, or null
   * (probe only) if neither can be used.
   */
  static Path lockDirectory(Path tmp) {
    List<Path> choices =
        List.of(
            tmp.resolve("brook-test-ports"),
            tmp.resolve("brook-test-ports-" + System.getProperty("user.name", "unknown")));
    for (Path dir : choices) {
      try {
        Files.createDirectories(dir);
        shareWithOtherUsers(dir, "rwxrwxrwx");
        if (Files.isWritable(dir)) {
          return dir;
        }
      } catch (IOException e) {
        // Try the next choice.
      }
    }
    System.err.println(
        "PortAllocator: cannot create lock files in "
            + choices
            + "; ports are not reserved across JVMs, only probed");
    return null;
  }

  private static InetAddress loopbackV4() {
    try {
      return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /** Created on first use. */
  private static final class Shared {
    static final PortAllocator INSTANCE =
        new PortAllocator(
            EphemeralPorts.ofThisMachine(),
            LOWEST,
            HIGHEST,
            new SplittableRandom(
                    ProcessHandle.current().pid() * 0x9E3779B97F4A7C15L ^ System.nanoTime())
                .nextInt(Integer.MAX_VALUE),
            lockDirectory(Path.of(System.getProperty("java.io.tmpdir"))));
  }
}
