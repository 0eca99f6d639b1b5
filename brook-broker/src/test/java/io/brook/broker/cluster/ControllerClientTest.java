package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.quorum.ControllerChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

/**
 * Forwarded admin requests over a quorum channel that never answers on its own: the broker's
 * monotonic deadline ends them even when the quorum client's wall-clock timers stall.
 */
class ControllerClientTest {
  private static final long CALL_TIMEOUT_MS = 2_000;

  /** Records every call and answers only when told. */
  private static final class SilentChannel implements ControllerChannel {
    final List<CompletableFuture<byte[]>> longCalls = new ArrayList<>();

    @Override
    public CompletableFuture<byte[]> call(byte[] request) {
      return new CompletableFuture<>();
    }

    @Override
    public CompletableFuture<byte[]> callLong(byte[] request) {
      CompletableFuture<byte[]> answer = new CompletableFuture<>();
      longCalls.add(answer);
      return answer;
    }

    @Override
    public void serve(Function<byte[], CompletableFuture<byte[]>> handler) {}
  }

  private final MockTime time = new MockTime();
  private final SilentChannel channel = new SilentChannel();
  private final ControllerClient client =
      new ControllerClient(channel, new ManualScheduler(time), CALL_TIMEOUT_MS);

  @Test
  void aForwardedAdminRequestNobodyAnswersTimesOutAfterTheLongCallTimeoutAndTheCallTimeout() {
    // Given a forwarded CreateTopics the controller never answers
    CompletableFuture<ApiMessage> answer =
        client.sendAdmin(
            ApiKeys.CREATE_TOPICS,
            ApiKeys.CREATE_TOPICS.latestVersion(),
            new CreateTopicsRequestData());
    assertThat(channel.longCalls).hasSize(1);

    // When the quorum client's own timeout passes, it still waits (its timer decides first)
    time.sleep(ControllerChannel.LONG_CALL_TIMEOUT_MS + CALL_TIMEOUT_MS - 1);
    assertThat(answer).isNotDone();

    // Then the broker's deadline ends it with a retriable timeout
    time.sleep(1);
    assertThat(answer)
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void anAnswerInTimeIsPassedOnAndTheLateDeadlineChangesNothing() throws Exception {
    // Given a forwarded CreateTopics
    CompletableFuture<ApiMessage> answer =
        client.sendAdmin(
            ApiKeys.CREATE_TOPICS,
            ApiKeys.CREATE_TOPICS.latestVersion(),
            new CreateTopicsRequestData());

    // When the controller answers
    channel
        .longCalls
        .get(0)
        .complete(
            ControllerEnvelope.encodeResponse(
                new CreateTopicsResponseData().setThrottleTimeMs(7),
                ApiKeys.CREATE_TOPICS.latestVersion()));

    // Then that answer is the client's, and the deadline passing later changes nothing
    assertThat(((CreateTopicsResponseData) answer.get()).throttleTimeMs()).isEqualTo(7);
    time.sleep(ControllerChannel.LONG_CALL_TIMEOUT_MS + CALL_TIMEOUT_MS);
    assertThat(((CreateTopicsResponseData) answer.get()).throttleTimeMs()).isEqualTo(7);
  }
}
