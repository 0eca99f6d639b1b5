package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.quorum.ControllerChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Registration as the broker's other parts see it, against a scripted controller. */
class BrokerLifecycleManagerTest {
  private static final long CALL_TIMEOUT_MS = 2_000;

  private final MockTime time = new MockTime();
  private final ManualScheduler scheduler = new ManualScheduler(time);
  private final List<ApiKeys> calls = new ArrayList<>();

  /** The controller's answers, in order; each call takes the next, then heartbeats stay fenced. */
  private final Queue<ApiMessage> answers = new ArrayDeque<>();

  /** Whether the controller stopped answering (calls then never complete). */
  private boolean silent;

  /** How many of the next calls hang (never answered unless the test completes them). */
  private int hangNext;

  private final List<CompletableFuture<byte[]>> hung = new ArrayList<>();

  private final LeadershipLease lease = new LeadershipLease(9_000, time::nanoseconds);

  private final ControllerChannel channel =
      new ControllerChannel() {
        @Override
        public CompletableFuture<byte[]> call(byte[] request) {
          ControllerEnvelope.Request decoded = ControllerEnvelope.decodeRequest(request);
          calls.add(decoded.apiKey());
          if (silent) {
            return new CompletableFuture<>();
          }
          if (hangNext > 0) {
            hangNext--;
            CompletableFuture<byte[]> call = new CompletableFuture<>();
            hung.add(call);
            return call;
          }
          ApiMessage answer =
              answers.isEmpty()
                  ? new BrokerHeartbeatResponseData().setIsFenced(true)
                  : answers.remove();
          return CompletableFuture.completedFuture(
              ControllerEnvelope.encodeResponse(answer, decoded.version()));
        }

        @Override
        public CompletableFuture<byte[]> callLong(byte[] request) {
          return call(request);
        }

        @Override
        public void serve(Function<byte[], CompletableFuture<byte[]>> handler) {}
      };

  @Test
  void everyRegistrationEpochIsToldToTheListenersAsSoonAsItIsGranted() {
    // Given a broker whose controller grants epoch 42, then forgets it and grants 43
    answers.add(new BrokerRegistrationResponseData().setBrokerEpoch(42));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(true));
    answers.add(new BrokerHeartbeatResponseData().setErrorCode(Errors.STALE_BROKER_EPOCH.code()));
    answers.add(new BrokerRegistrationResponseData().setBrokerEpoch(43));
    List<Long> told = new ArrayList<>();
    BrokerLifecycleManager lifecycle = lifecycle();
    lifecycle.addRegistrationListener(told::add);

    // When it registers, heartbeats, is refused and registers again
    lifecycle.start();
    scheduler.runDue();
    assertThat(told).containsExactly(42L);
    time.sleep(100);
    time.sleep(100);

    // Then each epoch was told once
    assertThat(calls)
        .startsWith(
            ApiKeys.BROKER_REGISTRATION,
            ApiKeys.BROKER_HEARTBEAT,
            ApiKeys.BROKER_HEARTBEAT,
            ApiKeys.BROKER_REGISTRATION);
    assertThat(told).containsExactly(42L, 43L);
    assertThat(lifecycle.brokerEpoch()).isEqualTo(43);
  }

  @Test
  void theLeaseRunsASessionTimeoutFromTheLastHeartbeatAnsweredUnfenced() {
    // Given a broker the controller unfences at its first heartbeat
    answers.add(new BrokerRegistrationResponseData().setBrokerEpoch(42));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(false));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(false));
    BrokerLifecycleManager lifecycle = lifecycle();
    assertThat(lease.held()).isFalse();
    lifecycle.start();
    scheduler.runDue();
    assertThat(lease.held()).isTrue();

    // When the second heartbeat (sent 2 s later) is answered too and then the controller falls
    // silent, as it does to a broker that was paused or cut off
    time.sleep(2_000);
    silent = true;
    time.sleep(2_000);

    // Then the lease holds until a session timeout after the last answered send, not longer
    time.sleep(6_999);
    assertThat(lease.held()).isTrue();
    time.sleep(1);
    assertThat(lease.held()).isFalse();
  }

  @Test
  void aHeartbeatThatHangsIsAbandonedAndTheNextOneRenewsTheLease() throws Exception {
    // Given an unfenced broker whose next heartbeat hangs in the quorum client
    answers.add(new BrokerRegistrationResponseData().setBrokerEpoch(42));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(false));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(false));
    BrokerLifecycleManager lifecycle = lifecycle();
    lifecycle.start();
    scheduler.runDue();
    hangNext = 1;
    time.sleep(2_000);
    assertThat(hung).hasSize(1);

    // When it stays unanswered past the call timeout
    time.sleep(CALL_TIMEOUT_MS);
    time.sleep(200);

    // Then another heartbeat went out and its answer renewed the lease from its send
    assertThat(calls)
        .containsExactly(
            ApiKeys.BROKER_REGISTRATION,
            ApiKeys.BROKER_HEARTBEAT,
            ApiKeys.BROKER_HEARTBEAT,
            ApiKeys.BROKER_HEARTBEAT);
    silent = true; // so no later heartbeat renews it
    time.sleep(8_999);
    assertThat(lease.held()).isTrue();

    // And the abandoned call's late answer is ignored, even one saying "fenced"
    hung.get(0)
        .complete(
            ControllerEnvelope.encodeResponse(
                new BrokerHeartbeatResponseData().setIsFenced(true),
                ApiKeys.BROKER_HEARTBEAT.latestVersion()));
    assertThat(lease.held()).isTrue();
    time.sleep(1);
    assertThat(lease.held()).isFalse();
  }

  @Test
  void aHeartbeatAnsweredFencedEndsTheLeaseAtOnce() {
    // Given an unfenced broker
    answers.add(new BrokerRegistrationResponseData().setBrokerEpoch(42));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(false));
    answers.add(new BrokerHeartbeatResponseData().setIsFenced(true));
    BrokerLifecycleManager lifecycle = lifecycle();
    lifecycle.start();
    scheduler.runDue();
    assertThat(lease.held()).isTrue();

    // When the controller answers its next heartbeat "fenced" (it was fenced meanwhile)
    time.sleep(2_000);

    // Then the lease is gone, well before its time would have run out
    assertThat(calls).hasSize(3);
    assertThat(lease.held()).isFalse();
  }

  private BrokerLifecycleManager lifecycle() {
    return new BrokerLifecycleManager(
        1,
        "cluster",
        List.of(),
        Optional.empty(),
        new ControllerClient(channel, scheduler, CALL_TIMEOUT_MS),
        () -> 0L,
        scheduler,
        2_000,
        List.of(Uuid.randomUuid()),
        List::of,
        -1,
        lease,
        Uuid.randomUuid());
  }
}
