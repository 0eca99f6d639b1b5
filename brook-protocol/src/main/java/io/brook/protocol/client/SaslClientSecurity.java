package io.brook.protocol.client;

import io.brook.protocol.codec.RequestEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;

/**
 * SASL on an outgoing inter-node connection: SaslHandshake v1 and SaslAuthenticate v1 with
 * kafka-clients' SCRAM client or the JDK's PLAIN client, before ApiVersions. A handler at the front
 * of the pipeline owns the connection's input until authentication is over (the connection sends
 * nothing else meanwhile), then removes itself and passes on whatever followed.
 *
 * <p>The SASL client's steps run on a small bounded pool, not the event loop: SCRAM's client
 * derives the salted password with PBKDF2 (thousands of HMACs).
 */
final class SaslClientSecurity implements ConnectionSecurity {
  private static final String HANDLER = "sasl-client";

  /** Largest SASL response read: Kafka's {@code sasl.server.max.receive.size}. */
  private static final int MAX_RESPONSE_BYTES = 512 * 1024;

  private static final short HANDSHAKE_VERSION = 1;
  private static final short AUTHENTICATE_VERSION = 1;

  /** One thread for every client of the JVM; a full queue fails the handshake. */
  private static final Executor CRYPTO = cryptoPool();

  private final SaslClientCredentials credentials;

  SaslClientSecurity(SaslClientCredentials credentials) {
    this.credentials = credentials;
    // Refuse an unknown mechanism now, not at the first connection.
    if (!credentials.mechanism().equals("PLAIN")
        && !ScramMechanism.isScram(credentials.mechanism())) {
      throw new IllegalArgumentException(
          "inter-node SASL supports PLAIN and SCRAM, not " + credentials.mechanism());
    }
  }

  @Override
  public void install(Channel channel, InetSocketAddress peer) {
    channel.pipeline().addFirst(HANDLER, new Exchange());
  }

  @Override
  public CompletionStage<Void> handshake(Channel channel) {
    Exchange exchange = (Exchange) channel.pipeline().get(HANDLER);
    exchange.start(channel);
    return exchange.done;
  }

  private SaslClient newClient() throws SaslException {
    javax.security.auth.callback.CallbackHandler handler = this::handle;
    if (credentials.mechanism().equals("PLAIN")) {
      return new PlainClient(credentials.username(), credentials.password());
    }
    try {
      return new ScramSaslClient(ScramMechanism.forMechanismName(credentials.mechanism()), handler);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new SaslException("no hash for " + credentials.mechanism(), e);
    }
  }

  private void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    for (Callback callback : callbacks) {
      if (callback instanceof NameCallback name) {
        name.setName(credentials.username());
      } else if (callback instanceof PasswordCallback password) {
        password.setPassword(credentials.password().toCharArray());
      } else if (!(callback instanceof ScramExtensionsCallback)) {
        throw new UnsupportedCallbackException(callback);
      }
    }
  }

  private static Executor cryptoPool() {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(256),
            r -> {
              Thread t = new Thread(r, "brook-sasl-client");
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * One connection's exchange. Its state is touched on the event loop and the crypto thread in
   * turn.
   */
  private final class Exchange extends ChannelInboundHandlerAdapter {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private Channel channel;
    private SaslClient client;
    private ByteBuf input;
    private int correlationId;
    private boolean handshakeAnswered;

    void start(Channel ch) {
      this.channel = ch;
      send(
          ApiKeys.SASL_HANDSHAKE,
          HANDSHAKE_VERSION,
          new SaslHandshakeRequestData().setMechanism(credentials.mechanism()));
    }

    private void send(ApiKeys key, short version, ApiMessage body) {
      java.util.List<Object> parts =
          RequestEncoder.encode(
              channel.alloc(), key, version, ++correlationId, "brook-inter-node", body);
      for (Object part : parts) {
        channel.write(part, channel.voidPromise());
      }
      channel.flush();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      if (input == null) {
        input = in;
      } else {
        input = ctx.alloc().compositeBuffer().addComponents(true, input, in);
      }
      while (!done.isDone() && input.readableBytes() >= 4) {
        int length = input.getInt(input.readerIndex());
        if (length < 4 || length > MAX_RESPONSE_BYTES) {
          fail(new SaslAuthenticationException("SASL response of " + length + " bytes"));
          return;
        }
        if (input.readableBytes() < 4 + length) {
          return;
        }
        input.skipBytes(4);
        byte[] bytes = new byte[length];
        input.readBytes(bytes);
        onResponse(ByteBuffer.wrap(bytes));
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(new SaslAuthenticationException("connection closed during SASL authentication"));
      ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      if (input != null) {
        if (input.isReadable()) {
          ctx.fireChannelRead(input); // what the peer sent after the last SASL answer
        } else {
          input.release();
        }
        input = null;
      }
    }

    private void onResponse(ByteBuffer frame) {
      ResponseHeader.parse(frame, (short) 0);
      ByteBufferAccessor body = new ByteBufferAccessor(frame);
      if (!handshakeAnswered) {
        handshakeAnswered = true;
        SaslHandshakeResponseData handshake =
            new SaslHandshakeResponseData(body, HANDSHAKE_VERSION);
        if (handshake.errorCode() != Errors.NONE.code()) {
          fail(
              new SaslAuthenticationException(
                  "SaslHandshake with "
                      + credentials.mechanism()
                      + " refused: "
                      + Errors.forCode(handshake.errorCode())
                      + ", enabled "
                      + handshake.mechanisms()));
          return;
        }
        offLoop(
            () -> {
              client = newClient();
              return client.hasInitialResponse()
                  ? client.evaluateChallenge(new byte[0])
                  : new byte[0];
            });
        return;
      }
      SaslAuthenticateResponseData answer =
          new SaslAuthenticateResponseData(body, AUTHENTICATE_VERSION);
      if (answer.errorCode() != Errors.NONE.code()) {
        fail(new SaslAuthenticationException(answer.errorMessage()));
        return;
      }
      byte[] challenge = answer.authBytes();
      offLoop(
          () -> {
            byte[] response = client.isComplete() ? null : client.evaluateChallenge(challenge);
            return client.isComplete() && (response == null || response.length == 0)
                ? null
                : response;
          });
    }

    /** Runs a SASL client step off the loop; a null token means authenticated. */
    private void offLoop(SaslStep step) {
      try {
        CRYPTO.execute(
            () -> {
              byte[] token;
              try {
                token = step.run();
              } catch (SaslException | RuntimeException e) {
                channel.eventLoop().execute(() -> fail(e));
                return;
              }
              channel
                  .eventLoop()
                  .execute(
                      () -> {
                        if (token == null) {
                          succeed();
                        } else {
                          send(
                              ApiKeys.SASL_AUTHENTICATE,
                              AUTHENTICATE_VERSION,
                              new SaslAuthenticateRequestData().setAuthBytes(token));
                        }
                      });
            });
      } catch (RejectedExecutionException e) {
        fail(e);
      }
    }

    private void succeed() {
      if (done.complete(null)) {
        dispose();
        channel.pipeline().remove(this);
      }
    }

    private void fail(Throwable error) {
      if (done.completeExceptionally(error)) {
        dispose();
        if (input != null) {
          input.release();
          input = null;
        }
        channel.close();
      }
    }

    private void dispose() {
      if (client != null) {
        try {
          client.dispose();
        } catch (SaslException e) {
          // nothing held
        }
      }
    }
  }

  @FunctionalInterface
  private interface SaslStep {
    byte[] run() throws SaslException;
  }

  /** PLAIN's single message: authorization id (empty), user, password (RFC 4616). */
  private static final class PlainClient implements SaslClient {
    private final String username;
    private final String password;
    private boolean complete;

    PlainClient(String username, String password) {
      this.username = username;
      this.password = password;
    }

    @Override
    public String getMechanismName() {
      return "PLAIN";
    }

    @Override
    public boolean hasInitialResponse() {
      return true;
    }

    @Override
    public byte[] evaluateChallenge(byte[] challenge) {
      if (complete) {
        return null;
      }
      complete = true;
      return ("\0" + username + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean isComplete() {
      return complete;
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) {
      throw new IllegalStateException("PLAIN has no security layer");
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
      throw new IllegalStateException("PLAIN has no security layer");
    }

    @Override
    public Object getNegotiatedProperty(String propName) {
      return null;
    }

    @Override
    public void dispose() {}
  }
}
