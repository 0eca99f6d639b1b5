package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.CLASS;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LIST;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.PASSWORD;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import org.apache.kafka.common.config.SaslConfigs;

/**
 * SASL authentication on {@code SASL_PLAINTEXT} (and {@code SASL_SSL}) listeners: PLAIN,
 * SCRAM-SHA-256/512 and OAUTHBEARER (whose token validation keys are Kafka's {@code
 * sasl.oauthbearer.*}, with kafka-clients' defaults). Each key may also be given per listener and
 * mechanism under Kafka's prefix, {@code listener.name.<listener>.<mechanism>.<key>} (JAAS config,
 * callback handler) or {@code listener.name.<listener>.<key>} (enabled mechanisms); see {@code
 * docs/security.md}.
 */
final class SaslSettings {
  static final String ENABLED_MECHANISMS = "sasl.enabled.mechanisms";
  static final String INTER_BROKER_MECHANISM = "sasl.mechanism.inter.broker.protocol";
  static final String JAAS_CONFIG = "sasl.jaas.config";
  static final String SERVER_CALLBACK_HANDLER = "sasl.server.callback.handler.class";
  static final String MAX_RECEIVE_SIZE = "sasl.server.max.receive.size";
  static final String FAILED_AUTHENTICATION_DELAY_MS = "connection.failed.authentication.delay.ms";
  static final String MAX_REAUTH_MS = "connections.max.reauth.ms";
  static final String ACCEPT_LEGACY_NONCE = "brook.sasl.scram.accept.legacy.nonce";
  static final String BOOTSTRAP_SCRAM = "brook.sasl.scram.bootstrap.credentials";
  static final String OAUTH_JWKS_URL = SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL;
  static final String OAUTH_JWKS_REFRESH_MS = SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS;
  static final String OAUTH_JWKS_BACKOFF_MS =
      SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS;
  static final String OAUTH_JWKS_BACKOFF_MAX_MS =
      SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS;
  static final String OAUTH_AUDIENCE = SaslConfigs.SASL_OAUTHBEARER_EXPECTED_AUDIENCE;
  static final String OAUTH_ISSUER = SaslConfigs.SASL_OAUTHBEARER_EXPECTED_ISSUER;
  static final String OAUTH_ALLOW_UNVERIFIED_AUDIENCE =
      SaslConfigs.SASL_OAUTHBEARER_ALLOW_UNVERIFIED_AUDIENCE;
  static final String OAUTH_ALLOW_UNVERIFIED_ISSUER =
      SaslConfigs.SASL_OAUTHBEARER_ALLOW_UNVERIFIED_ISSUER;
  static final String OAUTH_SUB_CLAIM = SaslConfigs.SASL_OAUTHBEARER_SUB_CLAIM_NAME;
  static final String OAUTH_SCOPE_CLAIM = SaslConfigs.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME;
  static final String OAUTH_CLOCK_SKEW_SECONDS = SaslConfigs.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS;

  private SaslSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.SASL)
        .uses(
            ENABLED_MECHANISMS,
            LIST,
            "GSSAPI",
            ANY,
            MEDIUM,
            "Mechanisms SASL listeners offer. Brook implements PLAIN, SCRAM-SHA-256,"
                + " SCRAM-SHA-512 and OAUTHBEARER; any other (GSSAPI, Kafka's default) on a SASL"
                + " listener stops start-up.")
        .uses(
            INTER_BROKER_MECHANISM,
            STRING,
            "GSSAPI",
            ANY,
            MEDIUM,
            "Mechanism brokers authenticate to each other with when the inter-broker listener is"
                + " SASL_*; its credentials are the username and password options of that"
                + " listener's JAAS config for the mechanism.")
        .uses(
            JAAS_CONFIG,
            PASSWORD,
            null,
            ANY,
            MEDIUM,
            "JAAS login module and options, used where no listener.name.<l>.<mechanism>."
                + JAAS_CONFIG
                + " is given. PLAIN users are PlainLoginModule's user_<name>=\"<password>\""
                + " options.")
        .uses(
            SERVER_CALLBACK_HANDLER,
            CLASS,
            null,
            ANY,
            MEDIUM,
            "An AuthenticateCallbackHandler that checks PLAIN passwords instead of the JAAS"
                + " user_<name> options, or validates OAUTHBEARER tokens instead of the unsecured"
                + " validator (OAuthBearerValidatorCallbackHandler: JWKS); usually given per"
                + " listener and mechanism.")
        .uses(
            MAX_RECEIVE_SIZE,
            INT,
            524288,
            atLeast(1),
            LOW,
            "Largest request frame read before a connection has authenticated; a larger length"
                + " prefix closes the connection before anything is allocated.")
        .uses(
            FAILED_AUTHENTICATION_DELAY_MS,
            INT,
            100,
            atLeast(0),
            LOW,
            "How long the answer to a failed authentication, and the close that follows, are"
                + " held back.")
        .uses(
            MAX_REAUTH_MS,
            LONG,
            0L,
            atLeast(0),
            LOW,
            "Session lifetime given to SASL clients (KIP-368): a connection that sends anything"
                + " but a re-authentication after it is closed. 0: sessions do not expire.")
        .uses(
            ACCEPT_LEGACY_NONCE,
            BOOLEAN,
            true,
            ANY,
            LOW,
            "Accept the SCRAM client-final-message of librdkafka before 2.6.1, which repeats the"
                + " client nonce (Kafka 3.x accepted it, 4.x refuses it); the server nonce and the"
                + " client proof are checked either way.")
        .uses(
            BOOTSTRAP_SCRAM,
            PASSWORD,
            null,
            ANY,
            LOW,
            "SCRAM users (sensitive: holds passwords) the first active controller writes into the metadata log when it"
                + " initialises the cluster, as kafka-storage format --add-scram does: entries"
                + " SCRAM-SHA-256=[name=alice,password=secret] (optionally iterations=N), several separated"
                + " by spaces.");
    defineOAuthBearer(table);
  }

  /**
   * Token validation of OAUTHBEARER with {@code OAuthBearerValidatorCallbackHandler} (KIP-768):
   * Kafka's keys and defaults, also accepted as {@code listener.name.<l>.[oauthbearer.]<key>}.
   */
  private static void defineOAuthBearer(ConfigTable table) {
    table
        .section(ConfigArea.SASL)
        .uses(
            OAUTH_JWKS_URL,
            STRING,
            null,
            ANY,
            MEDIUM,
            "Where the OAuth/OIDC provider publishes its signing keys (JWKS, http(s) or file:);"
                + " required by OAuthBearerValidatorCallbackHandler. The URL must also be listed in"
                + " the JVM system property org.apache.kafka.sasl.oauthbearer.allowed.urls.")
        .uses(
            OAUTH_JWKS_REFRESH_MS,
            LONG,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS,
            atLeast(0),
            LOW,
            "How often the JWKS is fetched again; a token signed with an unknown key id also"
                + " triggers a fetch.")
        .uses(
            OAUTH_JWKS_BACKOFF_MS,
            LONG,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS,
            atLeast(0),
            LOW,
            "First wait before retrying a failed JWKS fetch.")
        .uses(
            OAUTH_JWKS_BACKOFF_MAX_MS,
            LONG,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS,
            atLeast(0),
            LOW,
            "Longest wait between retries of a failed JWKS fetch.")
        .uses(
            OAUTH_AUDIENCE,
            LIST,
            java.util.List.of(),
            ANY,
            HIGH,
            "Audiences (aud claim) a token must name one of; required with a JWKS unless"
                + " sasl.oauthbearer.allow.unverified.audience=true.")
        .uses(
            OAUTH_ALLOW_UNVERIFIED_AUDIENCE,
            BOOLEAN,
            false,
            ANY,
            MEDIUM,
            "Accept tokens whatever their audience (insecure).")
        .uses(
            OAUTH_ISSUER,
            STRING,
            null,
            ANY,
            HIGH,
            "The issuer (iss claim) a token must carry; required with a JWKS unless"
                + " sasl.oauthbearer.allow.unverified.issuer=true.")
        .uses(
            OAUTH_ALLOW_UNVERIFIED_ISSUER,
            BOOLEAN,
            false,
            ANY,
            MEDIUM,
            "Accept tokens whatever their issuer (insecure).")
        .uses(
            OAUTH_SUB_CLAIM,
            STRING,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_SUB_CLAIM_NAME,
            ANY,
            LOW,
            "The claim whose value is the principal (User:<value>) ACLs apply to.")
        .uses(
            OAUTH_SCOPE_CLAIM,
            STRING,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_SCOPE_CLAIM_NAME,
            ANY,
            LOW,
            "The claim holding the token's scopes.")
        .uses(
            OAUTH_CLOCK_SKEW_SECONDS,
            INT,
            SaslConfigs.DEFAULT_SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS,
            ANY,
            LOW,
            "Seconds of clock difference with the provider allowed when checking exp, iat and"
                + " nbf.");
  }

  /** The OAUTHBEARER validation keys, which may also be given per listener. */
  static final java.util.List<String> OAUTH_KEYS =
      java.util.List.of(
          OAUTH_JWKS_URL,
          OAUTH_JWKS_REFRESH_MS,
          OAUTH_JWKS_BACKOFF_MS,
          OAUTH_JWKS_BACKOFF_MAX_MS,
          OAUTH_AUDIENCE,
          OAUTH_ALLOW_UNVERIFIED_AUDIENCE,
          OAUTH_ISSUER,
          OAUTH_ALLOW_UNVERIFIED_ISSUER,
          OAUTH_SUB_CLAIM,
          OAUTH_SCOPE_CLAIM,
          OAUTH_CLOCK_SKEW_SECONDS);
}
