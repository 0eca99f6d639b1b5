package io.brook.protocol.client;

import java.util.Objects;

/**
 * How an inter-node connection authenticates to a SASL listener.
 *
 * @param mechanism {@code PLAIN}, {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}
 * @param username the node's user
 * @param password its password
 */
public record SaslClientCredentials(String mechanism, String username, String password) {
  public SaslClientCredentials {
    Objects.requireNonNull(mechanism, "mechanism");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
  }

  @Override
  public String toString() {
    return "SaslClientCredentials(mechanism=" + mechanism + ", username=" + username + ")";
  }
}
