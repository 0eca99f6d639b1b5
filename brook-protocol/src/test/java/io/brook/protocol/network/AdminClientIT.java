package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * A real kafka-clients {@link Admin} against the network layer with two small handlers: proves
 * ApiVersions negotiation, request and response header versions, flexible versions and tagged
 * fields work with the real client.
 */
class AdminClientIT {
  private static final String CLUSTER_ID = "brook-test-cluster";
  private static final int BROKER_ID = 1;

  @Test
  void describeClusterThroughARealAdminClient() throws Exception {
    // Given: Metadata and DescribeCluster answer with this server as the only broker
    AtomicInteger port = new AtomicInteger();
    AtomicInteger describeClusterVersion = new AtomicInteger(-1);
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.answering(
                ApiKeys.METADATA,
                (context, request) ->
                    new MetadataResponseData()
                        .setClusterId(CLUSTER_ID)
                        .setControllerId(BROKER_ID)
                        .setBrokers(
                            new MetadataResponseBrokerCollection(
                                List.of(
                                        new MetadataResponseBroker()
                                            .setNodeId(BROKER_ID)
                                            .setHost("127.0.0.1")
                                            .setPort(port.get()))
                                    .iterator()))),
            TestHandlers.answering(
                ApiKeys.DESCRIBE_CLUSTER,
                (context, request) -> {
                  describeClusterVersion.set(context.apiVersion());
                  return new DescribeClusterResponseData()
                      .setClusterId(CLUSTER_ID)
                      .setControllerId(BROKER_ID)
                      .setEndpointType(((DescribeClusterRequestData) request).endpointType())
                      .setBrokers(
                          new DescribeClusterBrokerCollection(
                              List.of(
                                      new DescribeClusterBroker()
                                          .setBrokerId(BROKER_ID)
                                          .setHost("127.0.0.1")
                                          .setPort(port.get()))
                                  .iterator()));
                }));

    try (TestServer server = TestServer.start(registry)) {
      port.set(server.port());
      try (Admin admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                  "127.0.0.1:" + server.port(),
                  AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                  5_000,
                  AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                  10_000))) {

        // When
        DescribeClusterResult result = admin.describeCluster();
        String clusterId = result.clusterId().get(10, TimeUnit.SECONDS);
        Node controller = result.controller().get(10, TimeUnit.SECONDS);
        List<Node> nodes = List.copyOf(result.nodes().get(10, TimeUnit.SECONDS));

        // Then
        assertThat(clusterId).isEqualTo(CLUSTER_ID);
        assertThat(controller.id()).isEqualTo(BROKER_ID);
        assertThat(nodes)
            .extracting(Node::id, Node::port)
            .containsExactly(tuple(BROKER_ID, server.port()));
        assertThat(describeClusterVersion.get())
            .as("the client negotiated the newest DescribeCluster version")
            .isEqualTo(ApiKeys.DESCRIBE_CLUSTER.latestVersion());
        admin.close(Duration.ofSeconds(2));
      }
    }
  }
}
