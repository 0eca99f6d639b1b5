package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;

/** Which config resources this broker answers for. */
final class ConfigsAccess {
  private ConfigsAccess() {}

  /** A BROKER resource name this broker answers for: its own id, or "" for the cluster default. */
  static boolean isThisBroker(String resourceName, BrokerIdentity identity) {
    return resourceName == null
        || resourceName.isEmpty()
        || resourceName.equals(Integer.toString(identity.brokerId()));
  }
}
