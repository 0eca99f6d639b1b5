package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.replica.IsrChangeSender.Member;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.quorum.ControllerChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.apache.kafka.common.errors.OperationNotAttemptedException;
import org.apache.kafka.common.errors.StaleBrokerEpochException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** ISR changes batched into AlterPartition requests, one in flight, over a fake controller. */
class AlterPartitionManagerTest {
  private static final Uuid TOPIC = Uuid.randomUuid();

  /** Answers each call only when the test says so. */
  private static final class FakeChannel implements ControllerChannel {
    final List<AlterPartitionRequestData> requests = new ArrayList<>();
    final List<CompletableFuture<byte[]>> answers = new ArrayList<>();

    @Override
    public CompletableFuture<byte[]> call(byte[] request) {
      requests.add((AlterPartitionRequestData) ControllerEnvelope.decodeRequest(request).body());
      CompletableFuture<byte[]> answer = new CompletableFuture<>();
      answers.add(answer);
      return answer;
    }

    @Override
    public CompletableFuture<byte[]> callLong(byte[] request) {
      return call(request);
    }

    @Override
    public void serve(Function<byte[], CompletableFuture<byte[]>> handler) {}

    void answer(int index, AlterPartitionResponseData response) {
      answers
          .get(index)
          .complete(
              ControllerEnvelope.encodeResponse(response, ApiKeys.ALTER_PARTITION.latestVersion()));
    }
  }

  private static final long CALL_TIMEOUT_MS = 2_000;

  private final MockTime time = new MockTime();
  private final FakeChannel channel = new FakeChannel();
  private final AlterPartitionManager manager =
      new AlterPartitionManager(
          1, () -> 42L, new ControllerClient(channel, new ManualScheduler(time), CALL_TIMEOUT_MS));

  private static AlterPartitionResponseData.PartitionData committed(
      int partition, List<Integer> isr) {
    return new AlterPartitionResponseData.PartitionData()
        .setPartitionIndex(partition)
        .setLeaderId(1)
        .setLeaderEpoch(3)
        .setPartitionEpoch(8)
        .setIsr(isr);
  }

  private static AlterPartitionResponseData response(
      AlterPartitionResponseData.PartitionData... partitions) {
    AlterPartitionResponseData response = new AlterPartitionResponseData();
    AlterPartitionResponseData.TopicData topic =
        new AlterPartitionResponseData.TopicData().setTopicId(TOPIC);
    topic.partitions().addAll(List.of(partitions));
    response.topics().add(topic);
    return response;
  }

  @Test
  void changesQueuedWhileOneIsInFlightGoTogetherAndANewerOneReplacesAQueuedOne() throws Exception {
    CompletableFuture<PartitionState> first =
        manager.alterIsr(TOPIC, 0, 3, 7, List.of(new Member(1, -1), new Member(2, 20)));
    assertThat(channel.requests).hasSize(1);
    AlterPartitionRequestData sent = channel.requests.get(0);
    assertThat(sent.brokerId()).isEqualTo(1);
    assertThat(sent.brokerEpoch()).isEqualTo(42);
    assertThat(sent.topics().get(0).partitions().get(0).newIsrWithEpochs())
        .extracting(AlterPartitionRequestData.BrokerState::brokerEpoch)
        .containsExactly(-1L, 20L);

    CompletableFuture<PartitionState> replaced =
        manager.alterIsr(TOPIC, 1, 3, 7, List.of(new Member(1, -1)));
    CompletableFuture<PartitionState> second =
        manager.alterIsr(TOPIC, 1, 3, 7, List.of(new Member(1, -1), new Member(3, 30)));
    CompletableFuture<PartitionState> third =
        manager.alterIsr(TOPIC, 2, 3, 7, List.of(new Member(1, -1)));
    assertThat(channel.requests).as("one request in flight").hasSize(1);
    assertThat(replaced).isCompletedExceptionally();
    assertThatCause(replaced).isInstanceOf(OperationNotAttemptedException.class);

    channel.answer(0, response(committed(0, List.of(1, 2))));
    assertThat(first.get().isr()).containsExactly(1, 2);
    assertThat(first.get().partitionEpoch()).isEqualTo(8);
    assertThat(channel.requests).hasSize(2);
    assertThat(channel.requests.get(1).topics().get(0).partitions()).hasSize(2);

    channel.answer(
        1,
        response(
            committed(1, List.of(1, 3)),
            new AlterPartitionResponseData.PartitionData()
                .setPartitionIndex(2)
                .setErrorCode(Errors.INVALID_UPDATE_VERSION.code())));
    assertThat(second.get().isr()).containsExactly(1, 3);
    assertThatCause(third).isInstanceOf(InvalidUpdateVersionException.class);
  }

  @Test
  void aTopLevelErrorFailsEveryChangeInTheRequest() {
    CompletableFuture<PartitionState> change =
        manager.alterIsr(TOPIC, 0, 3, 7, List.of(new Member(1, -1)));
    channel.answer(
        0, new AlterPartitionResponseData().setErrorCode(Errors.STALE_BROKER_EPOCH.code()));
    assertThatCause(change).isInstanceOf(StaleBrokerEpochException.class);
  }

  @Test
  void aRequestUnansweredPastTheCallTimeoutFailsItsChangesAndTheQueuedOnesGoOut() {
    // Given a request the controller never answers, and a change queued behind it
    CompletableFuture<PartitionState> hung =
        manager.alterIsr(TOPIC, 0, 3, 7, List.of(new Member(1, -1)));
    CompletableFuture<PartitionState> queued =
        manager.alterIsr(TOPIC, 1, 3, 7, List.of(new Member(1, -1)));
    time.sleep(CALL_TIMEOUT_MS - 1);
    assertThat(hung).isNotDone();
    assertThat(channel.requests).hasSize(1);

    // When the call timeout passes
    time.sleep(1);

    // Then its change fails (the partition proposes it again later) and the queued one is sent
    assertThatCause(hung).isInstanceOf(TimeoutException.class);
    assertThat(channel.requests).hasSize(2);
    channel.answer(1, response(committed(1, List.of(1))));
    assertThat(queued).isCompleted();

    // And the late answer to the abandoned request changes nothing
    channel.answer(0, response(committed(0, List.of(1))));
    assertThatCause(hung).isInstanceOf(TimeoutException.class);
  }

  private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable>
      assertThatCause(CompletableFuture<?> future) {
    try {
      future.get();
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      return assertThat(e.getCause());
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
