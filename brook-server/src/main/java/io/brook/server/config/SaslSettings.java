package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
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

/**
 * SASL authentication on {@code SASL_PLAINTEXT} (and {@code SASL_SSL}) listeners: PLAIN and
 * SCRAM-SHA-256/512. Each key may also be given per listener and mechanism under Kafka's prefix,
 * {@code listener.name.<listener>.<mechanism>.<key>} (JAAS config, callback handler) or {@code
 * listener.name.<listener>.<key>} (enabled mechanisms); see {@code docs/security.md}.
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
            "Mechanisms SASL listeners offer. Brook implements PLAIN, SCRAM-SHA-256 and"
                + " SCRAM-SHA-512; any other (GSSAPI, Kafka's default, or OAUTHBEARER) on a SASL"
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
                + " user_<name> options (usually given per listener and mechanism).")
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
  }
}
