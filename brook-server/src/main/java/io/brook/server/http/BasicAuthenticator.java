package io.brook.server.http;

import org.apache.kafka.common.security.auth.KafkaPrincipal;

/** Checks HTTP Basic credentials; called on a worker thread (the check may be slow on purpose). */
public interface BasicAuthenticator {
  /**
   * The principal {@code user} acts as when {@code password} is right, else null.
   *
   * @param password the password's characters; the caller clears them afterwards
   */
  KafkaPrincipal authenticate(String user, char[] password);
}
