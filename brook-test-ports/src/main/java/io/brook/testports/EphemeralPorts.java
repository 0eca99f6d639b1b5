package io.brook.testports;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The ports the kernel may give away by itself: as the local port of an outgoing connection, or to
 * a bind to port 0. On Linux that is {@code net.ipv4.ip_local_port_range} minus {@code
 * net.ipv4.ip_local_reserved_ports} (the kernel never picks a reserved port on its own). A port a
 * test picks now and binds later, or binds again after a restart, must lie outside this set: inside
 * it, any connection made meanwhile can take it.
 */
public final class EphemeralPorts {
  static final Path RANGE_FILE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  static final Path RESERVED_FILE = Path.of("/proc/sys/net/ipv4/ip_local_reserved_ports");

  /**
   * Assumed when the range cannot be read (not Linux, or no /proc): it covers Linux's default
   * (32768-60999) and IANA's dynamic range that macOS and Windows use (49152-65535).
   */
  static final int FALLBACK_LOW = 32768;

  static final int FALLBACK_HIGH = 65535;

  private final int low;
  private final int high;
  private final boolean fromKernel;

  /** The reserved ports, as {@code [first, last]} pairs. */
  private final List<int[]> reserved;

  private EphemeralPorts(int low, int high, boolean fromKernel, List<int[]> reserved) {
    this.low = low;
    this.high = high;
    this.fromKernel = fromKernel;
    this.reserved = reserved;
  }

  /** This machine's, read from /proc now; the fallback range where that is not possible. */
  public static EphemeralPorts ofThisMachine() {
    return read(RANGE_FILE, RESERVED_FILE);
  }

  /** Reads the two /proc files' formats from {@code rangeFile} and {@code reservedFile}. */
  static EphemeralPorts read(Path rangeFile, Path reservedFile) {
    return parse(readOrNull(rangeFile), readOrNull(reservedFile));
  }

  /**
   * {@code range} as in ip_local_port_range ("32768\t60999"), {@code reserved} as in
   * ip_local_reserved_ports ("8080,9000-9100"); either may be null (unreadable). An unreadable or
   * malformed range gives the fallback range; unreadable or malformed reservations count as none,
   * which can only make the set larger.
   */
  static EphemeralPorts parse(String range, String reserved) {
    int[] bounds = parseRange(range);
    if (bounds == null) {
      return new EphemeralPorts(FALLBACK_LOW, FALLBACK_HIGH, false, List.of());
    }
    return new EphemeralPorts(bounds[0], bounds[1], true, parseReserved(reserved));
  }

  /** Whether the kernel may hand this port out by itself. */
  public boolean contains(int port) {
    if (port < low || port > high) {
      return false;
    }
    for (int[] r : reserved) {
      if (port >= r[0] && port <= r[1]) {
        return false;
      }
    }
    return true;
  }

  public int low() {
    return low;
  }

  public int high() {
    return high;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder().append(low).append('-').append(high);
    if (!reserved.isEmpty()) {
      s.append(" except reserved");
      for (int[] r : reserved) {
        s.append(' ').append(r[0]).append(r[0] == r[1] ? "" : "-" + r[1]);
      }
    }
    return s.append(
            fromKernel ? " (" + RANGE_FILE + ")" : " (assumed; " + RANGE_FILE + " unreadable)")
        .toString();
  }

  /**
   * Through a stream: /proc files report a size of 0, and JDK 17's {@code Files.readString} and
   * {@code readAllBytes} then return only the first byte.
   */
  static String readOrNull(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static int[] parseRange(String text) {
    if (text == null) {
      return null;
    }
    String[] parts = text.trim().split("\\s+", -1);
    if (parts.length != 2) {
      return null;
    }
    int lo = parsePort(parts[0]);
    int hi = parsePort(parts[1]);
    return lo > 0 && hi >= lo ? new int[] {lo, hi} : null;
  }

  private static List<int[]> parseReserved(String text) {
    if (text == null || text.isBlank()) {
      return List.of();
    }
    List<int[]> ranges = new ArrayList<>();
    for (String item : text.trim().split(",", -1)) {
      String[] ends = item.trim().split("-", -1);
      int first = parsePort(ends[0]);
      int last = ends.length == 2 ? parsePort(ends[1]) : first;
      if (ends.length > 2 || first <= 0 || last < first) {
        return List.of();
      }
      ranges.add(new int[] {first, last});
    }
    return List.copyOf(ranges);
  }

  /** The port, or -1 if {@code text} is not one. */
  private static int parsePort(String text) {
    try {
      int port = Integer.parseInt(text.trim());
      return port >= 1 && port <= 65535 ? port : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
