package io.brook.protocol.sasl;

import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/** Creates the server side of one SASL mechanism for one authentication (one per exchange). */
@FunctionalInterface
public interface SaslServerFactory {
  SaslServer create() throws SaslException;
}
