package io.brook.server.config;

/** The groups broker configs are documented in; one table per area in docs/configuration.md. */
public enum ConfigArea {
  NODE("Node, roles and listeners"),
  STORAGE("Storage and log"),
  RETENTION("Retention and compaction"),
  NETWORK("Network and requests"),
  REPLICATION("Replication"),
  GROUPS("Consumer groups and offsets"),
  TRANSACTIONS("Transactions and idempotent producers"),
  QUOTAS("Quotas"),
  SECURITY("Security: TLS"),
  SASL("Authentication (SASL)"),
  TIERED_STORAGE("Tiered storage"),
  AUTHORIZATION("Authorization"),
  ADMIN("Admin listener and metrics"),
  HTTP("HTTP API");

  private final String title;

  ConfigArea(String title) {
    this.title = title;
  }

  /** The heading of the area's table. */
  public String title() {
    return title;
  }
}
