package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.group.FindCoordinatorHandler;
import io.brook.coordinator.InternalTopic;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FindCoordinator while the coordinators' internal topic does not exist yet. */
class FindCoordinatorTest {
  private static final InternalTopic OFFSETS =
      new InternalTopic("__consumer_offsets", 3, (short) 1, Map.of());

  @TempDir Path dir;

  @Test
  void aCreationThatFailsAtOnceIsAnsweredAsRetriable() throws Exception {
    try (BrokerFixture broker = new BrokerFixture(dir)) {
      FindCoordinatorHandler handler =
          new FindCoordinatorHandler(
              broker.replicaManager,
              topic -> {
                throw new IllegalStateException("controller channel closed");
              },
              Map.of(CoordinatorType.GROUP, OFFSETS));

      FindCoordinatorResponseData response =
          (FindCoordinatorResponseData)
              BrokerFixture.call(
                  handler,
                  new FindCoordinatorRequestData()
                      .setKeyType(CoordinatorType.GROUP.id())
                      .setCoordinatorKeys(List.of("g")));

      assertThat(response.coordinators()).hasSize(1);
      assertThat(response.coordinators().get(0).errorCode())
          .as("the client asks again instead of failing for good")
          .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }
  }
}
