package io.brook.server.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.between;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import java.net.URI;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/** The HTTP API listener (/v1): where it binds, how it authenticates, its size bounds. */
final class HttpSettings {
  static final String HTTP_LISTENER = "brook.http.listener";
  static final String AUTHENTICATION_LISTENER = "brook.http.authentication.listener";
  static final String MAX_REQUEST_BYTES = "brook.http.max.request.bytes";
  static final String FETCH_MAX_BYTES = "brook.http.fetch.max.bytes";
  static final String ALLOW_PLAINTEXT_AUTH = "brook.http.allow.plaintext.auth";

  private HttpSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.HTTP)
        .uses(
            HTTP_LISTENER,
            STRING,
            "",
            ConfigDef.LambdaValidator.with(
                (name, value) -> parse(name, (String) value),
                () -> "empty, http://host:port or https://host:port"),
            MEDIUM,
            "Where the HTTP API (/v1: metadata, topics, produce, fetch, group offsets) binds, as"
                + " http://host:port, or https://host:port for TLS with the listener.name.http.ssl.*"
                + " settings (else the broker-wide ssl.* ones); port 0 picks a free one. Empty: no"
                + " HTTP API. Brokers only.")
        .uses(
            AUTHENTICATION_LISTENER,
            STRING,
            "",
            ConfigTable.ANY,
            MEDIUM,
            "The SASL listener whose credentials the HTTP API checks: requests then need HTTP Basic"
                + " credentials, checked against that listener's PLAIN users and SCRAM credentials,"
                + " and act as User:<name>. Empty: requests act as User:ANONYMOUS, which a node with"
                + " SASL listeners refuses (it does not start).")
        .uses(
            MAX_REQUEST_BYTES,
            INT,
            4 * 1024 * 1024,
            between(1024, 64 * 1024 * 1024),
            MEDIUM,
            "The largest HTTP API request body; a longer one is refused with 413 before it is"
                + " read.")
        .uses(
            FETCH_MAX_BYTES,
            INT,
            4 * 1024 * 1024,
            between(1024, 64 * 1024 * 1024),
            MEDIUM,
            "The most record bytes one HTTP fetch reads (its max_bytes is capped to this); the"
                + " first batch is answered whole even when larger, as in Kafka.")
        .uses(
            ALLOW_PLAINTEXT_AUTH,
            BOOLEAN,
            false,
            null,
            MEDIUM,
            "Whether the HTTP API may check Basic credentials over plain http:// on an address"
                + " other than loopback (passwords would cross the network in clear). False: such a"
                + " node does not start; use https:// or a loopback address.");
  }

  static HttpApiConfig values(BrokerConfig c) {
    URI listener = parse(HTTP_LISTENER, c.valueString(HTTP_LISTENER));
    String authentication = c.valueString(AUTHENTICATION_LISTENER).trim();
    return new HttpApiConfig(
        listener,
        authentication.isEmpty() ? null : authentication.toUpperCase(java.util.Locale.ROOT),
        (Integer) c.value(MAX_REQUEST_BYTES),
        (Integer) c.value(FETCH_MAX_BYTES),
        listener != null && "https".equals(listener.getScheme()));
  }

  /** {@code http://host:port} or {@code https://host:port}, or null when empty. */
  private static URI parse(String name, String value) {
    if (value != null && value.trim().startsWith("https://")) {
      URI plain = AdminSettings.parse(name, "http://" + value.trim().substring(8));
      return URI.create("https://" + plain.getHost() + ":" + plain.getPort());
    }
    return AdminSettings.parse(name, value);
  }

  /** Whether {@code host} is a loopback address (a name that does not resolve is not). */
  private static boolean loopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /**
   * An HTTP listener only on a broker; its authentication listener must be one of the node's SASL
   * listeners; and a node with SASL listeners does not serve the API unauthenticated (fail closed:
   * an operator who secured the Kafka listeners would otherwise open an anonymous door).
   */
  static void check(BrokerConfig c) {
    HttpApiConfig http = values(c);
    if (http.listener() == null) {
      return;
    }
    if (!c.isBroker()) {
      throw new ConfigException(HTTP_LISTENER + " is set on a node without the broker role");
    }
    boolean saslListeners = false;
    boolean named = false;
    for (Endpoint endpoint : c.withoutControllerListeners(c.listeners())) {
      SecurityProtocol protocol = endpoint.securityProtocol();
      boolean sasl =
          protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
      saslListeners |= sasl;
      named |= sasl && endpoint.listenerName().equals(http.authenticationListener());
    }
    if (http.authenticationListener() == null && saslListeners) {
      throw new ConfigException(
          HTTP_LISTENER
              + " is set on a node with SASL listeners but "
              + AUTHENTICATION_LISTENER
              + " is empty: the HTTP API would accept anonymous requests; name the SASL listener"
              + " whose credentials it checks");
    }
    if (http.authenticationListener() != null
        && !http.tls()
        && !loopback(http.listener().getHost())
        && !(Boolean) c.value(ALLOW_PLAINTEXT_AUTH)) {
      // Fail closed: Basic credentials are the users' Kafka passwords.
      throw new ConfigException(
          HTTP_LISTENER
              + " is plain http:// on "
              + http.listener().getHost()
              + ", not a loopback address, and checks Basic credentials: passwords would cross the"
              + " network in clear; use https:// (with listener.name.http.ssl.* settings), bind"
              + " to loopback, or set "
              + ALLOW_PLAINTEXT_AUTH
              + "=true (a TLS-terminating proxy in front, for example)");
    }
    if (http.authenticationListener() != null && !named) {
      throw new ConfigException(
          AUTHENTICATION_LISTENER
              + " must name one of this node's SASL listeners, not "
              + http.authenticationListener());
    }
  }
}
