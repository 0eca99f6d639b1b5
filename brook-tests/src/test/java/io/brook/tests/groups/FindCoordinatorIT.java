package io.brook.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.tests.RawKafkaClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** FindCoordinator on the wire: batched keys, both key types, the single-key versions, errors. */
class FindCoordinatorIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static FindCoordinatorResponseData find(FindCoordinatorRequestData request, short version)
      throws Exception {
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      ByteBuffer body = raw.send(request, version);
      return new FindCoordinatorResponseData(new ByteBufferAccessor(body), version);
    }
  }

  private static List<Coordinator> findBatch(CoordinatorType type, String... keys)
      throws Exception {
    return find(
            new FindCoordinatorRequestData()
                .setKeyType(type.id())
                .setCoordinatorKeys(List.of(keys)),
            (short) 6)
        .coordinators();
  }

  @Test
  void groupAndTransactionKeysFindThisBrokerOnceTheInternalTopicsExist() {
    for (CoordinatorType type : List.of(CoordinatorType.GROUP, CoordinatorType.TRANSACTION)) {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(findBatch(type, "orders-app", "billing-app"))
                      .allSatisfy(
                          c -> {
                            assertThat(Errors.forCode(c.errorCode())).isEqualTo(Errors.NONE);
                            assertThat(c.nodeId()).isEqualTo(1);
                            assertThat(c.port()).isEqualTo(BROOK.brook().port());
                          })
                      .extracting(Coordinator::key)
                      .containsExactly("orders-app", "billing-app"));
    }
  }

  @Test
  void theSingleKeyVersionsAnswerAtTheTopLevel() {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              FindCoordinatorResponseData response =
                  find(new FindCoordinatorRequestData().setKey("legacy-app"), (short) 1);
              assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
              assertThat(response.port()).isEqualTo(BROOK.brook().port());
            });
  }

  @Test
  void badKeysAreRefusedOneByOne() throws Exception {
    List<Coordinator> answers = findBatch(CoordinatorType.GROUP, "", "fine");
    assertThat(Errors.forCode(answers.get(0).errorCode())).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(Errors.forCode(answers.get(1).errorCode()))
        .isIn(Errors.NONE, Errors.COORDINATOR_NOT_AVAILABLE);
    assertThat(Errors.forCode(findBatch(CoordinatorType.SHARE, "s").get(0).errorCode()))
        .isEqualTo(Errors.INVALID_REQUEST);
  }
}
