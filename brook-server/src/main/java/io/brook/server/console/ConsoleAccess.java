package io.brook.server.console;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Who may use the console, decided once at start-up from where the admin listener binds and whether
 * the Kafka listeners authenticate their clients.
 *
 * <ul>
 *   <li>{@link Mode#LOOPBACK}: the admin listener is reachable from this machine only; open, but
 *       requests must name a loopback host (so a web page that rebinds its own DNS name to
 *       127.0.0.1 cannot read it).
 *   <li>{@link Mode#OPEN}: reachable from elsewhere while the Kafka listeners need no login either.
 *   <li>{@link Mode#LOGIN}: reachable from elsewhere and the Kafka listeners use SASL: every
 *       console request needs HTTP Basic credentials of a PLAIN or SCRAM user (the HTTP API's
 *       checker) and acts as that user, so ACLs decide what it may change.
 *   <li>{@link Mode#REFUSED}: as LOGIN but no checker is configured ({@code
 *       brook.http.authentication.listener} unset): the console refuses to serve rather than open a
 *       door the Kafka listeners keep shut.
 * </ul>
 */
record ConsoleAccess(Mode mode, String reason) {
  enum Mode {
    LOOPBACK,
    OPEN,
    LOGIN,
    REFUSED
  }

  /**
   * @param adminHost the host {@code brook.admin.listener} binds
   * @param saslListeners whether a client listener authenticates with SASL
   * @param canCheckPasswords whether HTTP Basic credentials can be checked against those users
   */
  static ConsoleAccess decide(String adminHost, boolean saslListeners, boolean canCheckPasswords) {
    if (isLoopback(adminHost)) {
      return new ConsoleAccess(Mode.LOOPBACK, "the admin listener is bound to loopback");
    }
    if (!saslListeners) {
      return new ConsoleAccess(Mode.OPEN, "no Kafka listener requires SASL");
    }
    if (canCheckPasswords) {
      return new ConsoleAccess(Mode.LOGIN, "the Kafka listeners require SASL");
    }
    return new ConsoleAccess(
        Mode.REFUSED,
        "the console is off: brook.admin.listener ("
            + adminHost
            + ") is not a loopback address and the Kafka listeners require SASL, but no"
            + " brook.http.authentication.listener names the users to log in with; bind"
            + " brook.admin.listener to 127.0.0.1 or set brook.http.authentication.listener");
  }

  /** Whether the host is a loopback address or {@code localhost}; resolved once, at start-up. */
  static boolean isLoopback(String host) {
    if (host == null || host.isEmpty()) {
      return false;
    }
    String h = stripBrackets(host).toLowerCase(Locale.ROOT);
    if (h.equals("localhost")) {
      return true;
    }
    try {
      InetAddress[] addresses = InetAddress.getAllByName(h);
      for (InetAddress address : addresses) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return addresses.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Whether a request's {@code Host} header names this machine by a loopback name or address (and
   * not a DNS name that merely resolves there now), checked without resolving anything.
   */
  static boolean isLoopbackHostHeader(String hostHeader) {
    if (hostHeader == null) {
      return false;
    }
    String h = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      h = end < 0 ? h : h.substring(1, end);
    } else {
      int colon = h.indexOf(':');
      h = colon < 0 ? h : h.substring(0, colon);
    }
    return h.equals("localhost")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1")
        || (h.startsWith("127.") && h.chars().allMatch(c -> c == '.' || Character.isDigit(c)));
  }

  private static String stripBrackets(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }
}
