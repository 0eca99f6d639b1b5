package io.brook.protocol.sasl;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import io.brook.protocol.codec.FrameDecoder;
import io.brook.protocol.network.ConnectionPrincipal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.authenticator.SaslInternalConfigs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SASL state of one connection on a SASL listener: which requests it may send ({@link
 * #admits}), the handshake and the authentication exchange (the connection's own {@link
 * #handlers()} for SaslHandshake and SaslAuthenticate, answered in request order like any other
 * request), the authenticated principal and the session's expiry (KIP-368).
 *
 * <p>States: {@code HANDSHAKE} (ApiVersions and SaslHandshake only) → {@code AUTHENTICATE}
 * (SaslAuthenticate only; or {@code RAW_TOKENS} after a v0 handshake: the next frames are bare SASL
 * tokens) → {@code AUTHENTICATED} (everything; a SaslHandshake starts a re-authentication, {@code
 * REAUTHENTICATE}, back to {@code AUTHENTICATED}) — and {@code FAILED} from anywhere, after which
 * nothing more is read and the connection closes.
 *
 * <p>Event-loop confined, except each step of the SASL server ({@code evaluateResponse}), which
 * runs on the {@link SaslWorkers} and hands its outcome back to the event loop; while a step runs
 * the connection may send no other SASL request (clients never do) or it is closed.
 */
public final class SaslSession {
  private static final Logger LOG = LoggerFactory.getLogger(SaslSession.class);

  enum State {
    HANDSHAKE,
    AUTHENTICATE,
    RAW_TOKENS,
    AUTHENTICATED,
    REAUTHENTICATE,
    FAILED
  }

  private final SaslListenerConfig config;
  private final String listenerName;
  private final Channel channel;
  private final FrameDecoder frames;
  private State state = State.HANDSHAKE;
  private SaslServer server;
  private String mechanism;
  private String principalName;

  /** {@code System.nanoTime()} past which the session is over; 0 when it never expires. */
  private long sessionExpiryNanos;

  /** Whether a step of the SASL server is running on a worker. */
  private boolean evaluating;

  /** The session lifetime told to the client (SaslAuthenticate v1+); 0 when it never expires. */
  private long sessionLifetimeMs;

  public SaslSession(
      SaslListenerConfig config, String listenerName, Channel channel, FrameDecoder frames) {
    this.config = config;
    this.listenerName = listenerName;
    this.channel = channel;
    this.frames = frames;
    frames.limitFrames(config.maxReceiveSize(), "sasl.server.max.receive.size");
  }

  State state() {
    return state;
  }

  /** Whether a request of {@code apiKey} may be served now; if not, the connection must close. */
  boolean admits(ApiKeys apiKey) {
    return switch (state) {
      case HANDSHAKE -> apiKey == ApiKeys.API_VERSIONS || apiKey == ApiKeys.SASL_HANDSHAKE;
      case AUTHENTICATE -> apiKey == ApiKeys.SASL_AUTHENTICATE && !evaluating;
      case AUTHENTICATED -> !expired() || apiKey == ApiKeys.SASL_HANDSHAKE;
      case REAUTHENTICATE ->
          !evaluating || (apiKey != ApiKeys.SASL_AUTHENTICATE && apiKey != ApiKeys.SASL_HANDSHAKE);
      case RAW_TOKENS, FAILED -> false;
    };
  }

  /** Whether an authenticated session has outlived {@code connections.max.reauth.ms}. */
  boolean expired() {
    return sessionExpiryNanos != 0 && System.nanoTime() - sessionExpiryNanos > 0;
  }

  boolean failed() {
    return state == State.FAILED;
  }

  /** The connection's SaslHandshake and SaslAuthenticate handlers, in place of the broker's. */
  public Map<ApiKeys, ApiHandler> handlers() {
    return Map.of(
        ApiKeys.SASL_HANDSHAKE,
        new SaslApi(ApiKeys.SASL_HANDSHAKE, this::handshake),
        ApiKeys.SASL_AUTHENTICATE,
        new SaslApi(ApiKeys.SASL_AUTHENTICATE, this::authenticate));
  }

  private CompletionStage<ApiMessage> handshake(RequestContext context, ApiMessage body) {
    String requested = ((SaslHandshakeRequestData) body).mechanism();
    SaslHandshakeResponseData response =
        new SaslHandshakeResponseData().setMechanisms(config.mechanismNames());
    boolean reauthentication = state == State.AUTHENTICATED;
    if (state != State.HANDSHAKE && !reauthentication) {
      return fail(response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()), "unexpected handshake");
    }
    SaslServerFactory factory = config.mechanisms().get(requested);
    if (factory == null) {
      return fail(
          response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()),
          "unsupported mechanism " + requested);
    }
    if (reauthentication && (!requested.equals(mechanism) || context.apiVersion() < 1)) {
      // KIP-368: a session is renewed with the mechanism it began with, over SaslAuthenticate.
      return fail(
          response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()),
          "re-authentication with " + requested + " v" + context.apiVersion());
    }
    try {
      server = factory.create();
    } catch (SaslException e) {
      return fail(response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()), e.toString());
    }
    mechanism = requested;
    if (reauthentication) {
      state = State.REAUTHENTICATE;
    } else {
      state = context.apiVersion() == 0 ? State.RAW_TOKENS : State.AUTHENTICATE;
    }
    return CompletableFuture.completedFuture(response);
  }

  private CompletionStage<ApiMessage> authenticate(RequestContext context, ApiMessage body) {
    SaslAuthenticateResponseData response = new SaslAuthenticateResponseData();
    if (state != State.AUTHENTICATE && state != State.REAUTHENTICATE) {
      return fail(
          response
              .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
              .setErrorMessage("SaslAuthenticate without a SaslHandshake"),
          "unexpected SaslAuthenticate");
    }
    CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
    evaluate(((SaslAuthenticateRequestData) body).authBytes())
        .thenAccept(
            step -> {
              if (step.failure() != null) {
                failAuthentication(response, step.failure()).thenAccept(answer::complete);
                return;
              }
              response.setAuthBytes(step.challenge());
              if (state == State.AUTHENTICATED && context.apiVersion() >= 1) {
                response.setSessionLifetimeMs(sessionLifetimeMs);
              }
              answer.complete(response);
            });
    return answer;
  }

  /**
   * A bare token after a v0 handshake; answers with a bare token, or closes the connection.
   *
   * @param token the frame's bytes, not retained
   */
  void rawToken(ByteBuf token) {
    if (evaluating) {
      LOG.info(
          "Closing connection peer={} listener={} reason=SASL token before the last was answered",
          channel.remoteAddress(),
          listenerName);
      state = State.FAILED;
      channel.close();
      return;
    }
    byte[] bytes = new byte[token.readableBytes()];
    token.getBytes(token.readerIndex(), bytes);
    evaluate(bytes)
        .thenAccept(
            step -> {
              if (step.failure() != null) {
                state = State.FAILED;
                logFailure(step.failure());
                channel
                    .eventLoop()
                    .schedule(
                        () -> channel.close(),
                        config.failedAuthenticationDelayMs(),
                        TimeUnit.MILLISECONDS);
                return;
              }
              byte[] challenge = step.challenge();
              ByteBuf out = channel.alloc().buffer(4 + challenge.length);
              out.writeInt(challenge.length).writeBytes(challenge);
              channel.writeAndFlush(out, channel.voidPromise());
            });
  }

  /** The outcome of one SASL server step: the challenge to send, or why it failed. */
  private record Step(byte[] challenge, Exception failure) {}

  /**
   * Runs one step of the SASL server on a {@link SaslWorkers} thread; the returned stage completes
   * on this connection's event loop, where a completed exchange has already been {@linkplain
   * #completeAuthentication recorded}.
   */
  private CompletionStage<Step> evaluate(byte[] token) {
    SaslServer current = server;
    CompletableFuture<Step> outcome = new CompletableFuture<>();
    evaluating = true;
    Runnable step =
        () -> {
          Step result;
          String authorizationId = null;
          try {
            byte[] challenge = current.evaluateResponse(token);
            if (current.isComplete()) {
              authorizationId = current.getAuthorizationID();
            }
            result = new Step(challenge, null);
          } catch (SaslException | SaslAuthenticationException e) {
            result = new Step(null, e);
          } catch (RuntimeException e) {
            LOG.warn("SASL server step failed mechanism={}", mechanism, e);
            result = new Step(null, new SaslException("authentication failed", e));
          }
          Step done = result;
          String authenticatedAs = authorizationId;
          try {
            channel.eventLoop().execute(() -> finish(done, authenticatedAs, outcome));
          } catch (java.util.concurrent.RejectedExecutionException e) {
            // The event loop is shutting down and the connection with it.
          }
        };
    try {
      SaslWorkers.executor().execute(step);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      finish(
          new Step(null, new SaslAuthenticationException("Too many authentications in progress")),
          null,
          outcome);
    }
    return outcome;
  }

  /** Back on the event loop: records a completed exchange, then hands the step on. */
  private void finish(Step step, String authorizationId, CompletableFuture<Step> outcome) {
    evaluating = false;
    if (step.failure() == null && authorizationId != null) {
      try {
        completeAuthentication(authorizationId);
      } catch (SaslAuthenticationException e) {
        outcome.complete(new Step(null, e));
        return;
      }
    }
    outcome.complete(step);
  }

  private void completeAuthentication(String authorizationId) throws SaslAuthenticationException {
    if (state == State.REAUTHENTICATE && !authorizationId.equals(principalName)) {
      throw new SaslAuthenticationException(
          "Cannot change principals during re-authentication from User:"
              + principalName
              + " to User:"
              + authorizationId);
    }
    principalName = authorizationId;
    // The one place requests read it from (RequestContext.principal()); on SASL_SSL it replaces
    // the TLS handshake's, as Kafka's principal builder prefers the SASL identity.
    ConnectionPrincipal.set(channel, new KafkaPrincipal(KafkaPrincipal.USER_TYPE, authorizationId));
    state = State.AUTHENTICATED;
    Long credentialExpiryMs = credentialExpiryMs(server);
    disposeQuietly(server);
    server = null;
    frames.restoreLimit();
    startSession(credentialExpiryMs);
    LOG.debug(
        "Authenticated connection peer={} listener={} principal=User:{} mechanism={}",
        channel.remoteAddress(),
        listenerName,
        authorizationId,
        mechanism);
  }

  /**
   * When the credential just presented stops being valid (an OAUTHBEARER token's {@code exp}), in
   * epoch milliseconds, or null when the mechanism's credentials do not expire.
   */
  private static Long credentialExpiryMs(SaslServer server) {
    Object value =
        server.getNegotiatedProperty(
            SaslInternalConfigs.CREDENTIAL_LIFETIME_MS_SASL_NEGOTIATED_PROPERTY_KEY);
    return value instanceof Long expiry ? expiry : null;
  }

  /**
   * The session's lifetime, as Kafka's broker sets it (KIP-368, KIP-255): {@code
   * connections.max.reauth.ms}, shortened to what is left of the credential when that expires
   * sooner; a session whose credential has already expired is over at once.
   */
  private void startSession(Long credentialExpiryMs) {
    long maxReauthMs = config.connectionsMaxReauthMs();
    long now = System.nanoTime();
    if (credentialExpiryMs == null && maxReauthMs == 0) {
      sessionLifetimeMs = 0;
      sessionExpiryNanos = 0;
      return;
    }
    long lifetimeMs = maxReauthMs == 0 ? Long.MAX_VALUE : maxReauthMs;
    if (credentialExpiryMs != null) {
      lifetimeMs =
          Math.min(lifetimeMs, Math.max(0, credentialExpiryMs - System.currentTimeMillis()));
    }
    sessionLifetimeMs = lifetimeMs;
    // | 1: never 0, which means "no expiry"
    sessionExpiryNanos = (now + TimeUnit.MILLISECONDS.toNanos(lifetimeMs)) | 1;
  }

  /**
   * A failed authentication: answered with SASL_AUTHENTICATION_FAILED after {@code
   * connection.failed.authentication.delay.ms}, then the connection closes.
   */
  private CompletionStage<ApiMessage> failAuthentication(
      SaslAuthenticateResponseData response, Exception e) {
    logFailure(e);
    String message =
        e instanceof SaslAuthenticationException
            ? e.getMessage()
            : "Authentication failed during authentication due to invalid credentials with SASL"
                + " mechanism "
                + mechanism;
    response.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message);
    state = State.FAILED;
    if (server != null) {
      disposeQuietly(server);
      server = null;
    }
    CompletableFuture<ApiMessage> delayed = new CompletableFuture<>();
    channel
        .eventLoop()
        .schedule(
            () -> {
              delayed.complete(response);
              closeAfterWrites();
            },
            config.failedAuthenticationDelayMs(),
            TimeUnit.MILLISECONDS);
    return delayed;
  }

  /** Answers with an error and closes the connection once that answer is written. */
  private CompletionStage<ApiMessage> fail(ApiMessage response, String reason) {
    LOG.info(
        "Closing connection after a SASL error peer={} listener={} reason={}",
        channel.remoteAddress(),
        listenerName,
        reason);
    state = State.FAILED;
    // After the current read: the answer is written (and flushed) by then.
    channel.eventLoop().execute(this::closeAfterWrites);
    return CompletableFuture.completedFuture(response);
  }

  private void closeAfterWrites() {
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  private void logFailure(Exception e) {
    LOG.info(
        "Failed authentication peer={} listener={} mechanism={} error={}",
        channel.remoteAddress(),
        listenerName,
        mechanism,
        e.getMessage());
  }

  private static void disposeQuietly(SaslServer server) {
    try {
      server.dispose();
    } catch (SaslException e) {
      LOG.debug("SASL server dispose failed", e);
    }
  }
}
