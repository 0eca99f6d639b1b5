package io.brook.server;

import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.sasl.ScramCredentialStore;
import io.brook.server.config.BrokerConfig;
import io.brook.server.http.BasicAuthenticator;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP Basic credentials checked as a SASL listener checks them ({@code
 * brook.http.authentication.listener}): against its PLAIN users (its JAAS {@code user_<name>}
 * options or callback handler) when it enables PLAIN, and against the SCRAM credentials in the
 * metadata image for each SCRAM mechanism it enables (the password's salted key derived as a SCRAM
 * client would, compared with the stored key). The user then acts as {@code User:<name>}, the
 * principal a SASL client of that listener gets, so the same ACLs apply.
 */
final class HttpCredentials implements BasicAuthenticator {
  private static final Logger LOG = LoggerFactory.getLogger(HttpCredentials.class);

  private final AuthenticateCallbackHandler plain;
  private final List<ScramMechanism> scram;
  private final ScramCredentialStore store;

  private HttpCredentials(
      AuthenticateCallbackHandler plain, List<ScramMechanism> scram, ScramCredentialStore store) {
    this.plain = plain;
    this.scram = scram;
    this.store = store;
  }

  /** The checker of the node's HTTP API, or null when it has no authentication listener. */
  static BasicAuthenticator of(BrokerConfig config, Supplier<MetadataImage> image) {
    String listener = config.httpApi().authenticationListener();
    if (listener == null) {
      return null;
    }
    AuthenticateCallbackHandler plain = null;
    List<ScramMechanism> scram = new ArrayList<>();
    for (String mechanism : SaslListeners.enabledMechanisms(config, listener)) {
      if (SaslListeners.PLAIN.equals(mechanism)) {
        plain = SaslListeners.plainCallbackHandler(config, listener);
      } else if (ScramMechanism.isScram(mechanism)) {
        scram.add(ScramMechanism.forMechanismName(mechanism));
      }
    }
    return new HttpCredentials(plain, scram, SaslListeners.credentials(image));
  }

  @Override
  public KafkaPrincipal authenticate(String user, char[] password) {
    if (user.isEmpty()) {
      return null;
    }
    if (plain != null && plainAccepts(user, password)) {
      return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, user);
    }
    for (ScramMechanism mechanism : scram) {
      ScramCredential credential = store.credential(user, mechanism);
      if (credential != null && scramAccepts(mechanism, credential, password)) {
        return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, user);
      }
    }
    return null;
  }

  private boolean plainAccepts(String user, char[] password) {
    NameCallback name = new NameCallback("username:", user);
    PlainAuthenticateCallback check = new PlainAuthenticateCallback(password);
    try {
      plain.handle(new Callback[] {name, check});
      return check.authenticated();
    } catch (IOException | UnsupportedCallbackException | RuntimeException e) {
      LOG.warn("PLAIN check of an HTTP API user failed user={} error={}", user, e.toString());
      return false;
    }
  }

  private static boolean scramAccepts(
      ScramMechanism mechanism, ScramCredential credential, char[] password) {
    try {
      ScramFormatter formatter = new ScramFormatter(mechanism);
      byte[] salted =
          formatter.saltedPassword(
              new String(password), credential.salt(), credential.iterations());
      byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
      return MessageDigest.isEqual(storedKey, credential.storedKey());
    } catch (GeneralSecurityException e) {
      LOG.warn(
          "SCRAM check of an HTTP API user failed mechanism={} error={}", mechanism, e.toString());
      return false;
    }
  }
}
