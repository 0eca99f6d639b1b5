package io.brook.server.config;

import java.util.Locale;

/** A value of {@code process.roles}: what this node does in a KRaft cluster. */
public enum ProcessRole {
  /** Serves clients: hosts partition replicas, groups and transactions. */
  BROKER,
  /** Votes in the metadata quorum and may become the active controller. */
  CONTROLLER;

  /** The value as written in {@code process.roles}: {@code broker} or {@code controller}. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  static ProcessRole forConfigValue(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
