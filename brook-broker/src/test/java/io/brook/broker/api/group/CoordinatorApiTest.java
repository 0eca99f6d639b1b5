package io.brook.broker.api.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.service.RequestInfo;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** What the broker hands a coordinator service for a request, and what it advertises. */
class CoordinatorApiTest {
  @Test
  void passesTheRequestWithItsVersionAndOriginAndReturnsTheResponse() throws Exception {
    List<RequestInfo> seen = new ArrayList<>();
    EndTxnResponseData answer = new EndTxnResponseData().setErrorCode(Errors.NONE.code());
    CoordinatorApi<EndTxnRequestData, EndTxnResponseData> api =
        new CoordinatorApi<>(
            ApiKeys.END_TXN,
            (short) 4,
            EndTxnRequestData.class,
            (info, request) -> {
              seen.add(info);
              assertThat(request.transactionalId()).isEqualTo("t1");
              return CompletableFuture.completedFuture(answer);
            });
    RequestContext context =
        new RequestContext(
            new RequestHeader(ApiKeys.END_TXN, (short) 3, "billing", 7),
            "PLAINTEXT",
            InetAddress.getLoopbackAddress(),
            "conn-9",
            System.nanoTime());

    ApiMessage response =
        api.handle(context, new EndTxnRequestData().setTransactionalId("t1"))
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);

    assertThat(response).isSameAs(answer);
    assertThat(seen)
        .containsExactly(
            new RequestInfo(
                (short) 3, "billing", String.valueOf(InetAddress.getLoopbackAddress()), "conn-9"));
    assertThat(api.apiKey()).isEqualTo(ApiKeys.END_TXN);
    assertThat(api.minVersion()).isEqualTo(ApiKeys.END_TXN.oldestVersion());
    assertThat(api.maxVersion()).isEqualTo((short) 4);
  }

  @Test
  void aMissingClientIdReachesTheCoordinatorEmpty() {
    assertThat(new RequestInfo((short) 0, null, "/127.0.0.1", "c").clientId()).isEmpty();
  }
}
