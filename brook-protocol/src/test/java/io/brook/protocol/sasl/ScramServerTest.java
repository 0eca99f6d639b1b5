package io.brook.protocol.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ScramServer} against kafka-clients' own SCRAM client, and against hand-made
 * client-final-messages: librdkafka's legacy nonce (accepted only when allowed), a wrong nonce and
 * a wrong proof (refused).
 */
class ScramServerTest {
  private static final String USER = "alice";
  private static final String PASSWORD = "alice-secret";

  private static ScramCredentialStore store(ScramMechanism mechanism) throws Exception {
    ScramCredential credential =
        new ScramFormatter(mechanism).generateCredential(PASSWORD, mechanism.minIterations());
    return (user, m) -> user.equals(USER) && m == mechanism ? credential : null;
  }

  private static ScramSaslClient client(ScramMechanism mechanism, String password)
      throws Exception {
    return new ScramSaslClient(
        mechanism,
        callbacks -> {
          for (var callback : callbacks) {
            if (callback instanceof NameCallback name) {
              name.setName(USER);
            } else if (callback instanceof PasswordCallback pw) {
              pw.setPassword(password.toCharArray());
            } else if (!(callback instanceof ScramExtensionsCallback)) {
              throw new javax.security.auth.callback.UnsupportedCallbackException(callback);
            }
          }
        });
  }

  @ParameterizedTest
  @EnumSource(ScramMechanism.class)
  void kafkaClientsScramClientAuthenticates(ScramMechanism mechanism) throws Exception {
    ScramServer server = new ScramServer(mechanism, store(mechanism), false);
    ScramSaslClient client = client(mechanism, PASSWORD);

    byte[] serverFirst = server.evaluateResponse(client.evaluateChallenge(new byte[0]));
    byte[] serverFinal = server.evaluateResponse(client.evaluateChallenge(serverFirst));
    client.evaluateChallenge(serverFinal); // checks the server signature

    assertThat(server.isComplete()).isTrue();
    assertThat(client.isComplete()).isTrue();
    assertThat(server.getAuthorizationID()).isEqualTo(USER);
  }

  @Test
  void aWrongPasswordIsRefused() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_256;
    ScramServer server = new ScramServer(mechanism, store(mechanism), true);
    ScramSaslClient client = client(mechanism, "wrong");
    byte[] serverFirst = server.evaluateResponse(client.evaluateChallenge(new byte[0]));
    byte[] clientFinal = client.evaluateChallenge(serverFirst);

    assertThatThrownBy(() -> server.evaluateResponse(clientFinal))
        .isInstanceOf(SaslAuthenticationException.class);
    assertThat(server.isComplete()).isFalse();
  }

  @Test
  void anUnknownUserIsRefusedAtTheFirstMessage() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_512;
    ScramServer server = new ScramServer(mechanism, (user, m) -> null, true);
    byte[] first = new ClientFirstMessage("mallory", "nonce123", Map.of()).toBytes();

    assertThatThrownBy(() -> server.evaluateResponse(first))
        .isInstanceOf(SaslAuthenticationException.class);
  }

  /** A client-final-message built by hand with {@code nonce}, proof computed over it as sent. */
  private static byte[] clientFinal(
      ScramMechanism mechanism,
      ClientFirstMessage clientFirst,
      ServerFirstMessage serverFirst,
      String nonce,
      String password)
      throws Exception {
    ScramFormatter formatter = new ScramFormatter(mechanism);
    ClientFinalMessage message =
        new ClientFinalMessage("n,,".getBytes(StandardCharsets.UTF_8), nonce);
    byte[] salted =
        formatter.saltedPassword(password, serverFirst.salt(), serverFirst.iterations());
    message.proof(formatter.clientProof(salted, clientFirst, serverFirst, message));
    return message.toBytes();
  }

  private static byte[] legacyExchange(
      ScramServer server, ScramMechanism mechanism, String password) throws Exception {
    ClientFirstMessage clientFirst = new ClientFirstMessage(USER, "clientnonce42", Map.of());
    ServerFirstMessage serverFirst =
        new ServerFirstMessage(server.evaluateResponse(clientFirst.toBytes()));
    // librdkafka < 2.6.1: the client nonce, then the whole server nonce (which starts with it).
    String legacyNonce = clientFirst.nonce() + serverFirst.nonce();
    return server.evaluateResponse(
        clientFinal(mechanism, clientFirst, serverFirst, legacyNonce, password));
  }

  @Test
  void librdkafkasRepeatedClientNonceIsAcceptedWhenAllowed() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_512;
    ScramServer server = new ScramServer(mechanism, store(mechanism), true);

    byte[] serverFinal = legacyExchange(server, mechanism, PASSWORD);

    assertThat(server.isComplete()).isTrue();
    assertThat(new ServerFinalMessage(serverFinal).error()).isNull();
  }

  @Test
  void librdkafkasRepeatedClientNonceIsRefusedWhenNotAllowed() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_512;
    ScramServer server = new ScramServer(mechanism, store(mechanism), false);

    assertThatThrownBy(() -> legacyExchange(server, mechanism, PASSWORD))
        .isInstanceOf(SaslException.class)
        .hasMessageContaining("nonce");
  }

  @Test
  void theLegacyFormStillChecksTheProof() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_512;
    ScramServer server = new ScramServer(mechanism, store(mechanism), true);

    assertThatThrownBy(() -> legacyExchange(server, mechanism, "wrong"))
        .isInstanceOf(SaslAuthenticationException.class);
  }

  @Test
  void aNonceWithoutTheServerPartIsRefused() throws Exception {
    ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_256;
    ScramServer server = new ScramServer(mechanism, store(mechanism), true);
    ClientFirstMessage clientFirst = new ClientFirstMessage(USER, "clientnonce42", Map.of());
    ServerFirstMessage serverFirst =
        new ServerFirstMessage(server.evaluateResponse(clientFirst.toBytes()));
    byte[] replayed =
        clientFinal(mechanism, clientFirst, serverFirst, clientFirst.nonce() + "other", PASSWORD);

    assertThatThrownBy(() -> server.evaluateResponse(replayed))
        .isInstanceOf(SaslException.class)
        .hasMessageContaining("nonce");
  }
}
