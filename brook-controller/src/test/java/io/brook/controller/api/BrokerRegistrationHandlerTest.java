package io.brook.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ControllerConfig;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** BrokerRegistration checks the broker's cluster id against the controller's. */
class BrokerRegistrationHandlerTest {
  private static final String CLUSTER_ID = "kSzGDMHkTAm6bLEi3p1V1A";

  @Test
  void aBrokerOfAnotherClusterIsRefusedAndRecordsNothing() throws Exception {
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      BrokerRegistrationHandler handler = handler(quorum);

      BrokerRegistrationResponseData refused = register(handler, "another-cluster-id-000");
      BrokerRegistrationResponseData accepted = register(handler, CLUSTER_ID);

      assertThat(Errors.forCode(refused.errorCode())).isEqualTo(Errors.INCONSISTENT_CLUSTER_ID);
      assertThat(Errors.forCode(accepted.errorCode())).isEqualTo(Errors.NONE);
      assertThat(quorum.image().brokers()).containsOnlyKeys(7);
      assertThat(quorum.image().broker(7).orElseThrow().epoch()).isEqualTo(accepted.brokerEpoch());
    }
  }

  private static BrokerRegistrationHandler handler(InMemoryMetadataQuorum quorum) {
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(1));
    return new BrokerRegistrationHandler(
        quorum, controller, new BrokerSessions(9_000, System::currentTimeMillis), CLUSTER_ID);
  }

  private static BrokerRegistrationResponseData register(
      BrokerRegistrationHandler handler, String clusterId) throws Exception {
    BrokerRegistrationRequestData request =
        new BrokerRegistrationRequestData()
            .setBrokerId(7)
            .setClusterId(clusterId)
            .setIncarnationId(Uuid.randomUuid());
    RequestContext context =
        new RequestContext(
            new RequestHeader(ApiKeys.BROKER_REGISTRATION, (short) 4, "broker-7", 1),
            "CONTROLLER",
            InetAddress.getLoopbackAddress(),
            "test-connection",
            System.nanoTime());
    return (BrokerRegistrationResponseData)
        handler.handle(context, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
