package io.brook.server.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * Parsing of the address-shaped broker configs: {@code listeners}, {@code advertised.listeners},
 * {@code listener.security.protocol.map}, {@code controller.quorum.voters} and {@code
 * controller.quorum.bootstrap.servers}. Every failure is a {@link ConfigException} naming the
 * config.
 */
final class Listeners {

  /** Host characters Kafka accepts: names, IPv4 and (bracketed) IPv6 literals, zone ids. */
  private static final Pattern HOST = Pattern.compile("[0-9a-zA-Z\\-%._:]*");

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

  private Listeners() {}

  /** Listener names are case-insensitive; Kafka upper-cases them. */
  static String normalise(String listenerName) {
    return listenerName.trim().toUpperCase(Locale.ROOT);
  }

  /** Splits a comma-separated value, trimming entries and dropping empty ones. */
  static List<String> csv(String value) {
    List<String> out = new ArrayList<>();
    if (value == null) {
      return out;
    }
    for (String part : value.split(",")) {
      if (!part.trim().isEmpty()) {
        out.add(part.trim());
      }
    }
    return out;
  }

  /** Parses {@code NAME:PROTOCOL,...} into upper-cased listener names mapped to protocols. */
  static Map<String, SecurityProtocol> parseSecurityProtocolMap(String configName, String value) {
    Map<String, SecurityProtocol> map = new LinkedHashMap<>();
    for (String entry : csv(value)) {
      int colon = entry.lastIndexOf(':');
      if (colon <= 0 || colon == entry.length() - 1) {
        throw new ConfigException(
            configName, value, "entry '" + entry + "' is not of the form LISTENER_NAME:PROTOCOL");
      }
      String name = normalise(entry.substring(0, colon));
      String protocolName = entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
      SecurityProtocol protocol;
      try {
        protocol = SecurityProtocol.forName(protocolName);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            configName,
            value,
            "unknown security protocol "
                + protocolName
                + " for listener "
                + name
                + "; allowed: "
                + String.join(", ", SecurityProtocol.names()));
      }
      if (map.put(name, protocol) != null) {
        throw new ConfigException(configName, value, "listener " + name + " is mapped twice");
      }
    }
    return map;
  }

  /** The listener name of one {@code NAME://host:port} entry, upper-cased, or "" if malformed. */
  static String listenerNameOf(String entry) {
    int sep = entry.indexOf("://");
    return sep <= 0 ? "" : normalise(entry.substring(0, sep));
  }

  /**
   * Parses {@code NAME://host:port,...}.
   *
   * @param protocolFor the security protocol of a listener name, or null if it has none.
   * @param requireDistinctPorts {@code listeners} must not bind one port twice, except once over
   *     IPv4 and once over IPv6; advertised addresses may share ports (they are often behind
   *     different load balancers).
   */
  static List<Endpoint> parseEndpoints(
      String configName,
      String value,
      Function<String, SecurityProtocol> protocolFor,
      boolean requireDistinctPorts) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (String entry : csv(value)) {
      endpoints.add(parseEndpoint(configName, value, entry, protocolFor));
    }
    Set<String> names = new LinkedHashSet<>();
    for (Endpoint e : endpoints) {
      if (!names.add(e.listenerName())) {
        throw new ConfigException(
            configName,
            value,
            "each listener must have a different name, but " + e.listenerName() + " repeats");
      }
    }
    if (requireDistinctPorts) {
      checkDistinctPorts(configName, value, endpoints);
    }
    return List.copyOf(endpoints);
  }

  private static Endpoint parseEndpoint(
      String configName,
      String value,
      String entry,
      Function<String, SecurityProtocol> protocolFor) {
    int sep = entry.indexOf("://");
    if (sep <= 0) {
      throw malformedEndpoint(configName, value, entry);
    }
    String name = normalise(entry.substring(0, sep));
    HostPort hostPort = parseHostPort(entry.substring(sep + 3));
    if (hostPort == null) {
      throw malformedEndpoint(configName, value, entry);
    }
    SecurityProtocol protocol = protocolFor.apply(name);
    if (protocol == null) {
      throw new ConfigException(
          configName,
          value,
          "no security protocol is defined for listener "
              + name
              + "; name it after a protocol ("
              + String.join(", ", SecurityProtocol.names())
              + ") or map it in listener.security.protocol.map");
    }
    return new Endpoint(name, hostPort.host(), hostPort.port(), protocol);
  }

  private static ConfigException malformedEndpoint(String configName, String value, String entry) {
    return new ConfigException(
        configName, value, "cannot parse '" + entry + "'; expected LISTENER_NAME://host:port");
  }

  /** Ports may repeat only for one IPv4 and one IPv6 literal; port 0 (any free port) may repeat. */
  private static void checkDistinctPorts(
      String configName, String value, List<Endpoint> endpoints) {
    Map<Integer, List<Endpoint>> byPort = new HashMap<>();
    for (Endpoint e : endpoints) {
      if (e.port() != 0) {
        byPort.computeIfAbsent(e.port(), p -> new ArrayList<>()).add(e);
      }
    }
    for (Map.Entry<Integer, List<Endpoint>> samePort : byPort.entrySet()) {
      List<Endpoint> eps = samePort.getValue();
      if (eps.size() == 1) {
        continue;
      }
      boolean oneV4OneV6 =
          eps.size() == 2
              && ((isIpv4(eps.get(0).host()) && isIpv6(eps.get(1).host()))
                  || (isIpv6(eps.get(0).host()) && isIpv4(eps.get(1).host())));
      if (!oneV4OneV6) {
        throw new ConfigException(
            configName,
            value,
            "each listener must have a different port unless one binds an IPv4 and the other an"
                + " IPv6 address; port "
                + samePort.getKey()
                + " repeats");
      }
    }
  }

  private static boolean isIpv4(String host) {
    return IPV4.matcher(host).matches();
  }

  private static boolean isIpv6(String host) {
    return host.contains(":");
  }

  /** {@code host:port}, {@code [v6]:port} or {@code :port}; null if malformed. */
  static HostPort parseHostPort(String text) {
    String host;
    String portText;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
        return null;
      }
      host = text.substring(1, close);
      portText = text.substring(close + 2);
    } else {
      int colon = text.lastIndexOf(':');
      if (colon < 0) {
        return null;
      }
      host = text.substring(0, colon);
      portText = text.substring(colon + 1);
    }
    if (!HOST.matcher(host).matches() || !portText.matches("[0-9]{1,5}")) {
      return null;
    }
    int port = Integer.parseInt(portText);
    return port > 65_535 ? null : new HostPort(host, port);
  }

  /**
   * Node ids of {@code controller.quorum.voters} entries ({@code id@host:port}); the value has
   * passed {@link #votersValidator()}.
   */
  static Set<Integer> voterIds(List<String> voters) {
    Set<Integer> ids = new LinkedHashSet<>();
    for (String voter : voters) {
      ids.add(Integer.parseInt(voter.substring(0, voter.indexOf('@')).trim()));
    }
    return ids;
  }

  /** Each entry must be {@code id@host:port} with a non-negative id and a non-empty host. */
  static Validator votersValidator() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          for (Object o : (List<?>) value) {
            String voter = o.toString().trim();
            int at = voter.indexOf('@');
            HostPort hostPort = at < 0 ? null : parseHostPort(voter.substring(at + 1));
            if (at <= 0
                || !voter.substring(0, at).trim().matches("[0-9]+")
                || hostPort == null
                || hostPort.host().isEmpty()) {
              throw new ConfigException(
                  name, value, "entry '" + voter + "' is not of the form id@host:port");
            }
          }
        },
        () -> "id@host:port,...");
  }

  /** Each entry must be {@code host:port} with a non-empty host. */
  static Validator hostPortListValidator() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          for (Object o : (List<?>) value) {
            HostPort hostPort = parseHostPort(o.toString().trim());
            if (hostPort == null || hostPort.host().isEmpty()) {
              throw new ConfigException(
                  name, value, "entry '" + o + "' is not of the form host:port");
            }
          }
        },
        () -> "host:port,...");
  }

  /** A parsed address; host is empty for "every interface". */
  record HostPort(String host, int port) {}
}
