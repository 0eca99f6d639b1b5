package io.brook.server.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import java.net.URI;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** The admin HTTP listener: Prometheus metrics and the health and readiness checks. */
final class AdminSettings {
  static final String ADMIN_LISTENER = "brook.admin.listener";
  static final String LAG_INTERVAL_MS = "brook.metrics.lag.interval.ms";
  static final String LAG_MAX_SERIES = "brook.metrics.lag.max.series";

  private AdminSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.ADMIN)
        .uses(
            ADMIN_LISTENER,
            STRING,
            "",
            ConfigDef.LambdaValidator.with(
                (name, value) -> parse(name, (String) value), () -> "empty, or http://host:port"),
            MEDIUM,
            "Where the admin HTTP listener binds (GET /metrics, /health, /ready, and the web"
                + " console at /console/ on a broker), as http://host:port; port 0 picks a free"
                + " one. Empty: no admin listener.")
        .uses(
            LAG_INTERVAL_MS,
            LONG,
            30_000L,
            atLeast(100),
            LOW,
            "How often the consumer-group lag metrics (lag in records and seconds, the data-loss"
                + " forecast) are computed for the groups this broker coordinates.")
        .uses(
            LAG_MAX_SERIES,
            INT,
            10_000,
            atLeast(0),
            LOW,
            "At most this many group-partitions get their own lag metrics; the groups past it"
                + " (by group id) are published only as one summary per group.");
  }

  /** The host and port of {@code value}, or null when it is empty. */
  static URI parse(String name, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    URI uri;
    try {
      uri = new URI(value.trim());
    } catch (java.net.URISyntaxException e) {
      throw new ConfigException(name, value, "not a URL: " + e.getMessage());
    }
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
      throw new ConfigException(name, value, "must be http://host:port");
    }
    if ((uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))
        || uri.getQuery() != null) {
      throw new ConfigException(name, value, "must be http://host:port, without a path");
    }
    return uri;
  }
}
