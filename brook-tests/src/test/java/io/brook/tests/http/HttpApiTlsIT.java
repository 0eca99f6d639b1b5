package io.brook.tests.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.EmbeddedBrook;
import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.StoreType;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API over mutual TLS ({@code https://}, keystore, truststore and {@code
 * ssl.client.auth=required} from {@code listener.name.http.ssl.*}) with HTTP Basic authentication
 * and an authorizer, spoken by the JDK's HttpClient trusting the test authority: records produced
 * and fetched with Basic credentials; without them, the client certificate's principal (mapped by
 * {@code ssl.principal.mapping.rules}) is the one ACLs allow or refuse; a client without a
 * certificate, one that does not trust the server's and a plain-HTTP client get nothing. And the
 * fail-closed rules: Basic authentication over plain HTTP on an address other than loopback, or an
 * https listener without a keystore, stop the node at start-up naming the key.
 */
@Timeout(120)
class HttpApiTlsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SASL =
      "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0";

  @TempDir static Path certDir;
  private static TestCertificates certs;
  private static EmbeddedBrook brook;
  private static HttpClient trusting;

  /** A node with a PLAIN user {@code alice} on its SASL listener, checked by the HTTP API. */
  private static EmbeddedBrook.Builder withBasicAuth() {
    return EmbeddedBrook.builder()
        .config("listeners", SASL)
        .config("advertised.listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
        .config(
            "listener.security.protocol.map",
            "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
        .config("inter.broker.listener.name", "PLAINTEXT")
        .config("sasl.enabled.mechanisms", "PLAIN")
        .config(
            "listener.name.sasl_plaintext.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " user_alice=\"alice-secret\";")
        .config("brook.http.authentication.listener", "SASL_PLAINTEXT");
  }

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(certDir);
    EmbeddedBrook.Builder builder =
        withBasicAuth().config("brook.http.listener", "https://127.0.0.1:0");
    certs
        .issue("http-server", StoreType.PKCS12)
        .keystoreConfig()
        .forEach((key, value) -> builder.config("listener.name.http." + key, value));
    certs
        .truststoreConfig(StoreType.PKCS12)
        .forEach((key, value) -> builder.config("listener.name.http." + key, value));
    // Mutual TLS: every client shows a certificate, mapped as on the Kafka listeners
    // (CN=reader,O=Brook is User:reader); ACLs apply to what it maps to.
    builder
        .config("listener.name.http.ssl.client.auth", "required")
        .config("ssl.principal.mapping.rules", "RULE:^CN=([a-z]+),O=Brook$/$1/,DEFAULT")
        .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .config("super.users", "User:ANONYMOUS;User:alice");
    brook = builder.start();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      admin
          .createTopics(
              List.of(new NewTopic("tls", 1, (short) 1), new NewTopic("certs", 1, (short) 1)))
          .all()
          .get();
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      new ResourcePattern(ResourceType.TOPIC, "certs", PatternType.LITERAL),
                      new AccessControlEntry(
                          "User:reader", "*", AclOperation.READ, AclPermissionType.ALLOW))))
          .all()
          .get();
    }
    trusting = client(certs.issue("reader", StoreType.PKCS12));
  }

  /**
   * A client trusting the test authority, showing {@code identity}'s certificate, or none when
   * null.
   */
  private static HttpClient client(TestCertificates.Identity identity) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.truststore(StoreType.PKCS12))) {
      trust.load(in, TestCertificates.PASSWORD.toCharArray());
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    KeyManager[] keys = null;
    if (identity != null) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(identity.keystore())) {
        store.load(in, TestCertificates.PASSWORD.toCharArray());
      }
      KeyManagerFactory keyFactory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyFactory.init(store, TestCertificates.PASSWORD.toCharArray());
      keys = keyFactory.getKeyManagers();
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys, factory.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).build();
  }

  @AfterAll
  static void stop() {
    if (brook != null) {
      brook.close();
    }
  }

  private static URI uri(String scheme, String path) {
    return URI.create(scheme + "://localhost:" + brook.server().httpPort() + path);
  }

  private static HttpRequest.Builder as(HttpRequest.Builder request, String user, String password) {
    String pair = user + ":" + password;
    return request.header(
        "Authorization",
        "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
  }

  private static HttpResponse<String> produceAsAlice(String topic, String body) throws Exception {
    return trusting.send(
        as(
                HttpRequest.newBuilder(uri("https", "/v1/topics/" + topic + "/records"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)),
                "alice",
                "alice-secret")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> response) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  @Test
  void aTrustingClientProducesAndFetchesOverTlsWithBasicCredentials() throws Exception {
    HttpResponse<String> produced =
        produceAsAlice("tls", "{\"records\": [{\"value\": {\"secret\": true}}]}");
    assertThat(ok(produced).get("offsets").get(0).get("offset").asLong()).isZero();
    HttpResponse<String> fetched =
        trusting.send(
            as(
                    HttpRequest.newBuilder(
                        uri("https", "/v1/topics/tls/partitions/0/records?offset=0")),
                    "alice",
                    "alice-secret")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ok(fetched).get("records").get(0).get("value").get("secret").asBoolean()).isTrue();
    HttpResponse<String> wrongPassword =
        trusting.send(
            as(HttpRequest.newBuilder(uri("https", "/v1/topics")), "alice", "nope").build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(wrongPassword.statusCode()).isEqualTo(401);
  }

  @Test
  void aClientCertificateIsThePrincipalTheAclsApplyTo() throws Exception {
    // Given a record in a topic only User:reader (and the super users) may read
    HttpResponse<String> produced =
        produceAsAlice("certs", "{\"records\": [{\"value\": \"for-reader\"}]}");
    assertThat(ok(produced).get("offsets").get(0).get("offset").asLong()).isZero();
    URI records = uri("https", "/v1/topics/certs/partitions/0/records?offset=0");

    // When User:reader (its certificate, no Basic header) reads it, it gets it: its ACL applies
    HttpResponse<String> read =
        trusting.send(
            HttpRequest.newBuilder(records).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ok(read).get("records").get(0).get("value").asText()).isEqualTo("for-reader");

    // And a certificate mapped to a principal without an ACL is refused
    HttpResponse<String> stranger =
        client(certs.issue("stranger", StoreType.PKCS12))
            .send(HttpRequest.newBuilder(records).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stranger.statusCode()).as(stranger.body()).isEqualTo(403);
    assertThat(JSON.readTree(stranger.body()).get("error").asText())
        .isEqualTo("TOPIC_AUTHORIZATION_FAILED");

    // And with ssl.client.auth=required a client without a certificate gets no answer at all
    HttpClient anonymous = client(null);
    assertThatThrownBy(
            () ->
                anonymous.send(
                    HttpRequest.newBuilder(records).build(), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
  }

  @Test
  void clientsWithoutTrustOrWithoutTlsGetNothing() {
    HttpClient untrusting = HttpClient.newHttpClient();
    assertThatThrownBy(
            () ->
                untrusting.send(
                    HttpRequest.newBuilder(uri("https", "/v1/topics")).build(),
                    HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);
    // Plain HTTP to the TLS port: the server reads no request from it and answers none.
    assertThatThrownBy(
            () ->
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(uri("http", "/v1/topics")).build(),
                        HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
  }

  @Test
  void basicCredentialsOverPlainHttpBeyondLoopbackStopTheNode() {
    assertThatThrownBy(
            () -> withBasicAuth().config("brook.http.listener", "http://0.0.0.0:0").start())
        .hasStackTraceContaining("brook.http.allow.plaintext.auth");
  }

  @Test
  void anHttpsListenerWithoutAKeystoreStopsTheNodeNamingTheKey() {
    assertThatThrownBy(
            () ->
                EmbeddedBrook.builder()
                    .config("brook.http.listener", "https://127.0.0.1:0")
                    .start())
        .hasStackTraceContaining("listener.name.http.ssl.keystore.location");
  }
}
