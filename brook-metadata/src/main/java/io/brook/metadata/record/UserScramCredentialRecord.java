package io.brook.metadata.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * A user's SCRAM credential for one mechanism, as Kafka's {@code UserScramCredentialRecord}: what a
 * broker needs to check a SCRAM exchange, never the password. Replaces the user's credential for
 * that mechanism.
 *
 * @param name the user name
 * @param mechanism Kafka's mechanism type: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
 * @param salt the random salt
 * @param storedKey H(ClientKey)
 * @param serverKey HMAC(SaltedPassword, "Server Key")
 * @param iterations the PBKDF2 iteration count
 */
public record UserScramCredentialRecord(
    String name, byte mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations)
    implements MetadataRecord {
  public UserScramCredentialRecord {
    Objects.requireNonNull(name, "name");
    salt = salt.clone();
    storedKey = storedKey.clone();
    serverKey = serverKey.clone();
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  @Override
  public byte[] storedKey() {
    return storedKey.clone();
  }

  @Override
  public byte[] serverKey() {
    return serverKey.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UserScramCredentialRecord r
        && name.equals(r.name)
        && mechanism == r.mechanism
        && iterations == r.iterations
        && Arrays.equals(salt, r.salt)
        && Arrays.equals(storedKey, r.storedKey)
        && Arrays.equals(serverKey, r.serverKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, mechanism, iterations, Arrays.hashCode(salt));
  }

  /** Without the keys: they must not reach logs. */
  @Override
  public String toString() {
    return "UserScramCredentialRecord(name="
        + name
        + ", mechanism="
        + mechanism
        + ", iterations="
        + iterations
        + ")";
  }
}
