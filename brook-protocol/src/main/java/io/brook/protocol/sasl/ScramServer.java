package io.brook.protocol.sasl;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Objects;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;

/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677) on kafka-clients' message parsing and
 * key derivation ({@link ScramFormatter}, {@code ScramMessages}).
 *
 * <p>Brook has its own server rather than kafka-clients' {@code ScramSaslServer} for one reason:
 * librdkafka before 2.6.1 sends the client nonce twice in its client-final-message (client nonce
 * followed by the whole server nonce, which already starts with it). Kafka up to 3.x accepted that
 * by checking only that the nonce ends with the server nonce; Kafka 4.x compares it exactly and
 * refuses such clients. With {@code acceptLegacyNonce} this server accepts exactly that one legacy
 * form too; the server nonce it must contain and the client proof (computed over the message as
 * sent) are checked as always.
 *
 * <p>No PBKDF2 happens here: the stored and server keys are derived when a credential is created,
 * so an exchange costs a credential lookup and a few HMACs and hashes; like every SASL server step
 * it runs on a {@link SaslWorkers} thread, not on the event loop.
 */
public final class ScramServer implements SaslServer {
  private enum State {
    RECEIVE_CLIENT_FIRST,
    RECEIVE_CLIENT_FINAL,
    COMPLETE,
    FAILED
  }

  private final ScramMechanism mechanism;
  private final ScramFormatter formatter;
  private final ScramCredentialStore store;
  private final boolean acceptLegacyNonce;
  private State state = State.RECEIVE_CLIENT_FIRST;
  private String username;
  private ClientFirstMessage clientFirst;
  private ServerFirstMessage serverFirst;
  private ScramCredential credential;

  public ScramServer(
      ScramMechanism mechanism, ScramCredentialStore store, boolean acceptLegacyNonce) {
    this.mechanism = Objects.requireNonNull(mechanism, "mechanism");
    this.store = Objects.requireNonNull(store, "store");
    this.acceptLegacyNonce = acceptLegacyNonce;
    try {
      this.formatter = new ScramFormatter(mechanism);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no " + mechanism.hashAlgorithm() + " in this JVM", e);
    }
  }

  /** A factory of servers for {@code mechanism}. */
  public static SaslServerFactory factory(
      ScramMechanism mechanism, ScramCredentialStore store, boolean acceptLegacyNonce) {
    return () -> new ScramServer(mechanism, store, acceptLegacyNonce);
  }

  @Override
  public byte[] evaluateResponse(byte[] response) throws SaslException {
    try {
      return switch (state) {
        case RECEIVE_CLIENT_FIRST -> clientFirst(response);
        case RECEIVE_CLIENT_FINAL -> clientFinal(response);
        default -> throw new IllegalStateException("SCRAM exchange is over: " + state);
      };
    } catch (SaslException | RuntimeException e) {
      state = State.FAILED;
      throw e;
    }
  }

  private byte[] clientFirst(byte[] response) throws SaslException {
    clientFirst = new ClientFirstMessage(response);
    if (!clientFirst.extensions().map().isEmpty()) {
      // The only SCRAM extension Kafka knows is tokenauth (delegation tokens): not in Brook.
      throw new SaslAuthenticationException(
          "Authentication failed: SCRAM extensions are not supported");
    }
    username = ScramFormatter.username(clientFirst.saslName());
    String authorizationId = clientFirst.authorizationId();
    if (!authorizationId.isEmpty() && !authorizationId.equals(username)) {
      throw new SaslAuthenticationException(
          "Authentication failed: Client requested an authorization id that is different from"
              + " username");
    }
    credential = store.credential(username, mechanism);
    if (credential == null) {
      throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
    }
    if (credential.iterations() < mechanism.minIterations()) {
      throw new SaslAuthenticationException(
          "Iterations "
              + credential.iterations()
              + " is less than the minimum "
              + mechanism.minIterations()
              + " for "
              + mechanism.mechanismName());
    }
    serverFirst =
        new ServerFirstMessage(
            clientFirst.nonce(),
            formatter.secureRandomString(),
            credential.salt(),
            credential.iterations());
    state = State.RECEIVE_CLIENT_FINAL;
    return serverFirst.toBytes();
  }

  private byte[] clientFinal(byte[] response) throws SaslException {
    ClientFinalMessage clientFinal = new ClientFinalMessage(response);
    String nonce = clientFinal.nonce();
    boolean exact = nonce.equals(serverFirst.nonce());
    boolean legacy = acceptLegacyNonce && nonce.equals(clientFirst.nonce() + serverFirst.nonce());
    if (!exact && !legacy) {
      throw new SaslException("Invalid client nonce in the final client message.");
    }
    try {
      byte[] signature =
          formatter.clientSignature(credential.storedKey(), clientFirst, serverFirst, clientFinal);
      byte[] clientKey = ScramFormatter.xor(signature, clientFinal.proof());
      if (!MessageDigest.isEqual(formatter.hash(clientKey), credential.storedKey())) {
        throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
      }
      byte[] serverSignature =
          formatter.serverSignature(credential.serverKey(), clientFirst, serverFirst, clientFinal);
      state = State.COMPLETE;
      return new ServerFinalMessage(null, serverSignature).toBytes();
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      // A proof of the wrong length makes xor throw: the client's mistake, not the server's.
      throw new SaslAuthenticationException("Authentication failed: Invalid user credentials", e);
    }
  }

  @Override
  public String getMechanismName() {
    return mechanism.mechanismName();
  }

  @Override
  public boolean isComplete() {
    return state == State.COMPLETE;
  }

  @Override
  public String getAuthorizationID() {
    if (!isComplete()) {
      throw new IllegalStateException("Authentication exchange has not completed");
    }
    return username;
  }

  @Override
  public Object getNegotiatedProperty(String propName) {
    if (!isComplete()) {
      throw new IllegalStateException("Authentication exchange has not completed");
    }
    return null;
  }

  @Override
  public byte[] unwrap(byte[] incoming, int offset, int len) {
    throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
  }

  @Override
  public byte[] wrap(byte[] outgoing, int offset, int len) {
    throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
  }

  @Override
  public void dispose() {
    clientFirst = null;
    serverFirst = null;
    credential = null;
  }
}
