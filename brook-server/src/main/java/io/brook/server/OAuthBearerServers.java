package io.brook.server;

import io.brook.protocol.sasl.SaslServerFactory;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.ListenerOAuthBearer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;
import org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler;

/**
 * The OAUTHBEARER mechanism of one SASL listener (KIP-255), built from kafka-clients' server side
 * as Kafka's broker builds it: {@link OAuthBearerSaslServer} asks the listener's callback handler
 * to validate each token. The handler is {@code
 * listener.name.<l>.oauthbearer.sasl.server.callback.handler.class} (or the unprefixed key), by
 * default the unsecured validator (unsigned tokens, for development: its options come from the
 * listener's {@code OAuthBearerLoginModule} JAAS entry); {@code
 * OAuthBearerValidatorCallbackHandler} checks signatures against the provider's JWKS, the audience,
 * issuer and times, with the listener's {@code sasl.oauthbearer.*} settings (KIP-768).
 *
 * <p>The token's subject (or the configured claim) becomes the principal, and its expiry shortens
 * the session (see {@code SaslSession}). A JWKS is fetched and refreshed on the handler's own
 * thread; validating a token runs on the connection's event loop and only reads the cached keys.
 */
final class OAuthBearerServers {
  private OAuthBearerServers() {}

  /**
   * The listener's OAUTHBEARER server factory; its configured handler is added to {@code handlers}
   * (closed when the node stops) before it is configured, so a failed configuration is closed too.
   *
   * @throws org.apache.kafka.common.config.ConfigException if the listener has no JAAS entry for
   *     OAUTHBEARER or the handler refuses its settings (a JWKS validator without an allowed {@code
   *     sasl.oauthbearer.jwks.endpoint.url}, or without an expected audience or issuer)
   */
  static SaslServerFactory factory(
      BrokerConfig config, String listener, List<AuthenticateCallbackHandler> handlers) {
    String mechanism = SaslListeners.OAUTHBEARER;
    String className = SaslListeners.callbackHandlerClass(config, listener, mechanism);
    // As in Kafka, the listener needs an OAuthBearerLoginModule entry whichever handler validates.
    List<AppConfigurationEntry> jaas = SaslListeners.jaasEntries(config, listener, mechanism, true);
    AuthenticateCallbackHandler handler =
        className == null
            ? new OAuthBearerUnsecuredValidatorCallbackHandler()
            : SaslListeners.newCallbackHandler(className, listener, mechanism);
    handlers.add(handler);
    Map<String, Object> settings = new HashMap<>(config.originals());
    settings.putAll(ListenerOAuthBearer.settings(config, listener));
    handler.configure(settings, mechanism, jaas);
    return () -> new OAuthBearerSaslServer(handler);
  }
}
