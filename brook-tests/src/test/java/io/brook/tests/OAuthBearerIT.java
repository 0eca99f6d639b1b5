package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SASL/OAUTHBEARER with real clients and the StandardAuthorizer on, one broker with two SASL
 * listeners. {@code UNSECURED}: Kafka's unsecured validator (unsigned tokens), kafka-clients with
 * {@code unsecuredLoginStringClaim_sub}. {@code JWKS}: {@code OAuthBearerValidatorCallbackHandler}
 * against an identity provider run by the test ({@code com.sun.net.httpserver}: a JWKS with an RSA
 * key generated now, and a client-credentials token endpoint that signs tokens with it), with an
 * expected audience and issuer and the principal taken from the {@code user} claim; kafka-clients
 * fetch their tokens with {@code OAuthBearerLoginCallbackHandler}. Tokens with a wrong audience, a
 * wrong signature or past their expiry are refused with SASL_AUTHENTICATION_FAILED and store
 * nothing; each token's principal is what the ACLs see; a session ends with its token.
 */
@Timeout(180)
class OAuthBearerIT {
  private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
  private static final String AUDIENCE = "brook-cluster";
  private static final String TOPIC = "oauth-orders";
  private static final long MAX_REAUTH_MS = 3_600_000;

  private static final KeyPair SIGNING = rsaKeyPair();
  private static final KeyPair ROGUE = rsaKeyPair();
  private static final HttpServer IDP = identityProvider();
  private static final String ISSUER = "http://127.0.0.1:" + IDP.getAddress().getPort();

  @RegisterExtension static final BrookExtension BROOK = new BrookExtension(builder());

  private static EmbeddedBrook.Builder builder() {
    String unsecuredJaas =
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
            + " unsecuredLoginStringClaim_sub=\"admin\";";
    return EmbeddedBrook.builder()
        .config(
            "listeners",
            "PLAINTEXT://127.0.0.1:0,UNSECURED://127.0.0.1:0,JWKS://127.0.0.1:0,"
                + "CONTROLLER://127.0.0.1:0")
        .config(
            "advertised.listeners",
            "PLAINTEXT://127.0.0.1:0,UNSECURED://127.0.0.1:0,JWKS://127.0.0.1:0")
        .config(
            "listener.security.protocol.map",
            "PLAINTEXT:PLAINTEXT,UNSECURED:SASL_PLAINTEXT,JWKS:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
        .config("inter.broker.listener.name", "PLAINTEXT")
        .config("sasl.enabled.mechanisms", "OAUTHBEARER")
        .config("listener.name.unsecured.oauthbearer.sasl.jaas.config", unsecuredJaas)
        .config(
            "listener.name.jwks.oauthbearer.sasl.jaas.config",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;")
        .config(
            "listener.name.jwks.oauthbearer.sasl.server.callback.handler.class",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
        .config(
            "listener.name.jwks.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", ISSUER + "/jwks")
        .config("listener.name.jwks.oauthbearer.sasl.oauthbearer.expected.audience", AUDIENCE)
        .config("listener.name.jwks.oauthbearer.sasl.oauthbearer.expected.issuer", ISSUER)
        .config("listener.name.jwks.oauthbearer.sasl.oauthbearer.sub.claim.name", "user")
        .config("connections.max.reauth.ms", Long.toString(MAX_REAUTH_MS))
        .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .config("super.users", "User:admin");
  }

  private static String bootstrap(String listener) {
    return "127.0.0.1:" + BROOK.brook().server().boundPort(listener);
  }

  // ---- the identity provider ----

  private static KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * {@code /jwks} serves the signing key; {@code /token} answers a client-credentials request with
   * a token for the client id (HTTP Basic): its {@code user} claim is the client id, except that
   * {@code wrong-audience} and {@code wrong-signature} get alice's token made unacceptable. Kafka 4
   * fetches only URLs listed in the allow-list system property, set here for broker and clients.
   */
  private static HttpServer identityProvider() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/jwks", exchange -> respond(exchange, jwks()));
      server.createContext("/token", OAuthBearerIT::issueToken);
      server.start();
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      System.setProperty(ALLOWED_URLS, base + "/jwks," + base + "/token");
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  static void stopIdentityProvider() {
    IDP.stop(0);
    System.clearProperty(ALLOWED_URLS);
  }

  private static String jwks() {
    RSAPublicKey key = (RSAPublicKey) SIGNING.getPublic();
    return "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"alg\":\"RS256\",\"kid\":\"k1\","
        + "\"n\":\""
        + base64Url(unsigned(key.getModulus()))
        + "\",\"e\":\""
        + base64Url(unsigned(key.getPublicExponent()))
        + "\"}]}";
  }

  private static void issueToken(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    String credentials =
        new String(
            Base64.getDecoder().decode(authorization.substring("Basic ".length()).trim()),
            StandardCharsets.UTF_8);
    String clientId =
        URLDecoder.decode(
            credentials.substring(0, credentials.indexOf(':')), StandardCharsets.UTF_8);
    long now = System.currentTimeMillis() / 1000;
    String token =
        switch (clientId) {
          case "wrong-audience" -> signedToken("alice", "another-cluster", now + 600, SIGNING);
          case "wrong-signature" -> signedToken("alice", AUDIENCE, now + 600, ROGUE);
          default -> signedToken(clientId, AUDIENCE, now + 600, SIGNING);
        };
    respond(
        exchange,
        "{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":600}");
  }

  private static void respond(HttpExchange exchange, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  /** An RS256 token of {@code user} (also in {@code sub}, prefixed) signed with {@code keys}. */
  private static String signedToken(String user, String audience, long expiry, KeyPair keys) {
    String claims =
        "{\"iss\":\""
            + ISSUER
            + "\",\"aud\":\""
            + audience
            + "\",\"sub\":\"svc-"
            + user
            + "\",\"user\":\""
            + user
            + "\",\"scope\":\"kafka\",\"iat\":"
            + (expiry - 900)
            + ",\"exp\":"
            + expiry
            + "}";
    String signingInput =
        base64Url("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"k1\"}") + "." + base64Url(claims);
    return signingInput + "." + base64Url(sign(signingInput, keys.getPrivate()));
  }

  /** An unsigned token (alg none) as the unsecured validator accepts it. */
  private static String unsecuredToken(String subject, long expiryMs) {
    long now = System.currentTimeMillis();
    String claims =
        "{\"sub\":\""
            + subject
            + "\",\"iat\":"
            + now / 1000.0
            + ",\"exp\":"
            + expiryMs / 1000.0
            + "}";
    return base64Url("{\"alg\":\"none\"}") + "." + base64Url(claims) + ".";
  }

  private static byte[] sign(String input, PrivateKey key) {
    try {
      Signature signature = Signature.getInstance("SHA256withRSA");
      signature.initSign(key);
      signature.update(input.getBytes(StandardCharsets.US_ASCII));
      return signature.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] unsigned(BigInteger value) {
    byte[] bytes = value.toByteArray();
    return bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
  }

  private static String base64Url(String text) {
    return base64Url(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String base64Url(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  // ---- clients ----

  private static final String[] TIMEOUTS = {
    "request.timeout.ms", "10000", "delivery.timeout.ms", "20000", "max.block.ms", "20000"
  };

  /** kafka-clients on the unsecured listener with an unsigned token of {@code subject}. */
  private static String[] unsecured(String subject) {
    return with(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "OAUTHBEARER",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
            + " unsecuredLoginStringClaim_sub=\""
            + subject
            + "\";");
  }

  /** kafka-clients on the JWKS listener, fetching tokens from the test's token endpoint. */
  private static String[] fromTokenEndpoint(String clientId) {
    return with(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "OAUTHBEARER",
        "sasl.login.callback.handler.class",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "sasl.oauthbearer.token.endpoint.url",
        ISSUER + "/token",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\""
            + clientId
            + "\" clientSecret=\""
            + clientId
            + "-secret\";");
  }

  private static String[] with(String... pairs) {
    List<String> out = new ArrayList<>(List.of(pairs));
    out.addAll(List.of(TIMEOUTS));
    return out.toArray(String[]::new);
  }

  private static Admin admin() {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("bootstrap.servers", bootstrap("UNSECURED"));
    String[] pairs = unsecured("admin");
    for (int i = 0; i < pairs.length; i += 2) {
      props.put(pairs[i], pairs[i + 1]);
    }
    return Admin.create(props);
  }

  private static void produce(String listener, String[] settings, String topic, String value)
      throws Exception {
    List<String> props = new ArrayList<>(List.of(settings));
    // Not idempotent: a principal without WRITE anywhere then reaches the topic's own check.
    props.addAll(List.of("enable.idempotence", "false", "retries", "0"));
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(bootstrap(listener), props.toArray(String[]::new))) {
      producer.send(new ProducerRecord<>(topic, value.getBytes(StandardCharsets.UTF_8))).get();
    }
  }

  private static List<String> consume(String listener, String[] settings, String topic, int n) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(bootstrap(listener), settings)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < n && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
      }
    }
    return values;
  }

  private static long endOffset(String topic) throws Exception {
    try (Admin admin = admin()) {
      TopicPartition tp = new TopicPartition(topic, 0);
      return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
    }
  }

  @BeforeAll
  static void topicsAndAcls() throws Exception {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(new NewTopic(TOPIC, 1, (short) 1), new NewTopic("oauth-dev", 1, (short) 1)))
          .all()
          .get();
      ResourcePattern topic = new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL);
      List<AclBinding> acls = new ArrayList<>();
      for (AclOperation operation : List.of(AclOperation.WRITE, AclOperation.READ)) {
        acls.add(
            new AclBinding(
                topic,
                new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW)));
      }
      admin.createAcls(acls).all().get();
    }
  }

  // ---- tests ----

  @Test
  void unsecuredTokensProduceAndConsumeAsTheirSubject() throws Exception {
    produce("UNSECURED", unsecured("admin"), "oauth-dev", "hello");
    assertThat(consume("UNSECURED", unsecured("admin"), "oauth-dev", 1)).containsExactly("hello");
    // The subject is the principal: carol, with no ACL, is refused the topic.
    assertThatThrownBy(() -> produce("UNSECURED", unsecured("carol"), "oauth-dev", "denied"))
        .hasRootCauseInstanceOf(TopicAuthorizationException.class);
    assertThat(endOffset("oauth-dev")).isEqualTo(1);
  }

  @Test
  void jwksValidatedTokensAreTheirUserClaimsPrincipalToTheAcls() throws Exception {
    produce("JWKS", fromTokenEndpoint("alice"), TOPIC, "granted");
    assertThat(consume("JWKS", fromTokenEndpoint("alice"), TOPIC, 1)).containsExactly("granted");
    long end = endOffset(TOPIC);
    assertThatThrownBy(() -> produce("JWKS", fromTokenEndpoint("mallory"), TOPIC, "denied"))
        .hasRootCauseInstanceOf(TopicAuthorizationException.class);
    assertThat(endOffset(TOPIC)).isEqualTo(end);
  }

  @Test
  void tokensWithAWrongAudienceOrSignatureFailAuthenticationAndStoreNothing() throws Exception {
    // Both carry alice's user claim, who may write: only their validation stands in the way.
    long end = endOffset(TOPIC);
    for (String client : List.of("wrong-audience", "wrong-signature")) {
      assertThatThrownBy(() -> produce("JWKS", fromTokenEndpoint(client), TOPIC, "forged"))
          .as(client)
          .hasRootCauseInstanceOf(SaslAuthenticationException.class);
    }
    assertThat(endOffset(TOPIC)).isEqualTo(end);
  }

  @Test
  void aRawExchangeGetsSaslAuthenticationFailedForEachBadToken() throws Exception {
    long now = System.currentTimeMillis() / 1000;
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("wrong audience", signedToken("alice", "another-cluster", now + 600, SIGNING));
    bad.put("wrong signature", signedToken("alice", AUDIENCE, now + 600, ROGUE));
    // Past its expiry by more than sasl.oauthbearer.clock.skew.seconds (30).
    bad.put("expired", signedToken("alice", AUDIENCE, now - 120, SIGNING));
    bad.put("unsigned", unsecuredToken("alice", System.currentTimeMillis() + 600_000));
    for (Map.Entry<String, String> token : bad.entrySet()) {
      try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", port("JWKS"))) {
        raw.setTimeout(Duration.ofSeconds(10));
        handshake(raw);
        SaslAuthenticateResponseData first = authenticate(raw, initialResponse(token.getValue()));
        // OAUTHBEARER answers an invalid token with an error challenge; the client acknowledges it
        // (a single 0x01) and only then is the authentication failed.
        assertThat(first.errorCode()).as(token.getKey()).isEqualTo(Errors.NONE.code());
        assertThat(new String(first.authBytes(), StandardCharsets.UTF_8))
            .as(token.getKey())
            .contains("invalid_token");
        SaslAuthenticateResponseData failed = authenticate(raw, new byte[] {1});
        assertThat(failed.errorCode())
            .as(token.getKey())
            .isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
        assertThat(raw.closedByPeer()).as(token.getKey()).isTrue();
      }
    }
  }

  @Test
  void theSessionLastsAsLongAsTheToken() throws Exception {
    // A JWKS token with ten minutes left: the session is shorter than connections.max.reauth.ms.
    long now = System.currentTimeMillis() / 1000;
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", port("JWKS"))) {
      raw.setTimeout(Duration.ofSeconds(10));
      handshake(raw);
      SaslAuthenticateResponseData ok =
          authenticate(raw, initialResponse(signedToken("alice", AUDIENCE, now + 600, SIGNING)));
      assertThat(ok.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(ok.sessionLifetimeMs()).isBetween(500_000L, 600_000L);
    }
    // An unsecured token with two seconds left: served until it expires, then closed at the next
    // request (kafka-clients would have re-authenticated with a fresh token before).
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", port("UNSECURED"))) {
      raw.setTimeout(Duration.ofSeconds(10));
      handshake(raw);
      SaslAuthenticateResponseData ok =
          authenticate(
              raw, initialResponse(unsecuredToken("admin", System.currentTimeMillis() + 2_000)));
      assertThat(ok.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(ok.sessionLifetimeMs()).isBetween(1L, 2_000L);
      raw.send(new MetadataRequestData(), (short) 12);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean closed = false;
      while (!closed && System.nanoTime() < deadline) {
        try {
          raw.send(new MetadataRequestData(), (short) 12);
          Thread.sleep(200);
        } catch (IOException e) {
          closed = true;
        }
      }
      assertThat(closed).as("the connection is closed once the token has expired").isTrue();
    }
  }

  private static int port(String listener) {
    return BROOK.brook().server().boundPort(listener);
  }

  private static void handshake(RawKafkaClient raw) throws IOException {
    SaslHandshakeResponseData handshake =
        new SaslHandshakeResponseData(
            new ByteBufferAccessor(
                raw.send(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"), (short) 1)),
            (short) 1);
    assertThat(handshake.errorCode()).isEqualTo(Errors.NONE.code());
  }

  private static SaslAuthenticateResponseData authenticate(RawKafkaClient raw, byte[] bytes)
      throws IOException {
    return new SaslAuthenticateResponseData(
        new ByteBufferAccessor(
            raw.send(new SaslAuthenticateRequestData().setAuthBytes(bytes), (short) 2)),
        (short) 2);
  }

  /** The OAUTHBEARER client's first message (RFC 7628): GS2 header, then the bearer token. */
  private static byte[] initialResponse(String token) {
    return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
  }
}
