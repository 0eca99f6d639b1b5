package io.brook.tests.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.RequestContext;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.protocol.network.Transport;
import io.brook.protocol.tls.SslEngines;
import io.brook.protocol.tls.TlsListenerSecurity;
import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.StoreType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The principal a TLS connection authenticated as reaches the request handlers: {@code
 * User:<distinguished name>} of the client certificate, {@code User:ANONYMOUS} without one, as
 * Kafka's DefaultKafkaPrincipalBuilder makes it. The client is Brook's own inter-node client over
 * TLS, so its mutual TLS is exercised too.
 */
class TlsPrincipalIT {
  @TempDir Path dir;

  /** Answers DescribeCluster and remembers who asked. */
  private static final class RecordingHandler implements ApiHandler {
    final ConcurrentLinkedQueue<KafkaPrincipal> principals = new ConcurrentLinkedQueue<>();

    @Override
    public ApiKeys apiKey() {
      return ApiKeys.DESCRIBE_CLUSTER;
    }

    @Override
    public short minVersion() {
      return ApiKeys.DESCRIBE_CLUSTER.oldestVersion();
    }

    @Override
    public short maxVersion() {
      return ApiKeys.DESCRIBE_CLUSTER.latestVersion();
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
      principals.add(context.principal());
      return CompletableFuture.completedFuture(
          new DescribeClusterResponseData().setClusterId("tls-principal"));
    }
  }

  @Test
  void theClientCertificatesNameIsThePrincipalAndNoCertificateIsAnonymous() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Map<String, String> server =
        new LinkedHashMap<>(certs.issue("server", StoreType.PKCS12).keystoreConfig());
    server.putAll(certs.truststoreConfig(StoreType.PKCS12));
    server.put("ssl.client.auth", "requested");
    Map<String, String> withCertificate =
        new LinkedHashMap<>(
            certs.issue("app", StoreType.JKS, "CN=app,OU=payments,O=Brook").keystoreConfig());
    withCertificate.putAll(certs.truststoreConfig(StoreType.PEM));
    Map<String, String> withoutCertificate =
        new LinkedHashMap<>(certs.truststoreConfig(StoreType.PEM));

    RecordingHandler handler = new RecordingHandler();
    try (SslEngines serverEngines = SslEngines.createServer("SSL", server);
        KafkaNetworkServer network =
            KafkaNetworkServer.start(
                NetworkConfig.defaults(List.of(new NetworkConfig.Listener("SSL", "127.0.0.1", 0))),
                new ApiRegistry(List.of(handler)),
                Transport.detect(),
                listener -> new TlsListenerSecurity(listener, serverEngines));
        InterNodeEventLoops loops = InterNodeEventLoops.start(1)) {
      Node node = new Node(1, "127.0.0.1", network.boundPort("SSL"));
      for (Map<String, String> client : List.of(withCertificate, withoutCertificate)) {
        try (SslEngines engines = SslEngines.create("client", client);
            InterNodeClient interNode =
                new InterNodeClient(
                    loops,
                    InterNodeClientConfig.builder("principal-test")
                        .securityProtocol(SecurityProtocol.SSL)
                        .tls(engines)
                        .build())) {
          interNode
              .send(node, ApiKeys.DESCRIBE_CLUSTER, version -> new DescribeClusterRequestData())
              .get(60, TimeUnit.SECONDS);
        }
      }
    }
    assertThat(handler.principals)
        .containsExactly(
            new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "CN=app,OU=payments,O=Brook"),
            KafkaPrincipal.ANONYMOUS);
  }
}
