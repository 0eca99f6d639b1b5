package io.brook.protocol.sasl;

import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Where a SCRAM server finds a user's credential: on a broker, its own metadata image. Called on a
 * {@link SaslWorkers} thread (never an event loop); a lookup should still be quick, as the pool is
 * small.
 */
@FunctionalInterface
public interface ScramCredentialStore {
  /** The user's credential for {@code mechanism}, or null when the user has none. */
  ScramCredential credential(String user, ScramMechanism mechanism);
}
