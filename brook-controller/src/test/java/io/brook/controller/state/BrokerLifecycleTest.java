package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Fenced registration, heartbeats, sessions and preferred-leader election. */
class BrokerLifecycleTest {
  private static final List<BrokerEndpoint> ENDPOINTS =
      List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));

  @Test
  void aBrokerRegistersFencedAndIsUnfencedOnceItsMetadataReachesItsRegistration() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    long epoch =
        ctx.replay(
            ctx.controller.registerBrokerFenced(3, Uuid.randomUuid(), ENDPOINTS, Optional.empty()));
    assertThat(ctx.image.brokers().get(3).fenced()).isTrue();

    // When it heartbeats with an image older than its registration, then one that has it
    HeartbeatResult behind =
        ctx.replay(ctx.controller.brokerHeartbeat(3, epoch, epoch - 1, false, false));
    HeartbeatResult caughtUp =
        ctx.replay(ctx.controller.brokerHeartbeat(3, epoch, epoch, false, false));

    // Then it stays fenced, then is unfenced
    assertThat(behind.fenced()).isTrue();
    assertThat(caughtUp.fenced()).isFalse();
    assertThat(ctx.image.brokers().get(3).fenced()).isFalse();
  }

  @Test
  void aFencedBrokerIsUnfencedOnlyOnceItsMetadataHasItsFenceNotJustItsRegistration() {
    // Given broker 2 leading partitions, fenced (its session expired while it was paused) and
    // a controller that has applied every image since
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    ctx.createTopic("t", 6, 3);
    BrokerFences fences = new BrokerFences();
    fences.onImage(ctx.image);
    long epoch = ctx.image.brokers().get(2).epoch();
    long beforeFence = ctx.image.offset();
    ctx.replay(ctx.controller.fenceBroker(2, epoch));
    fences.onImage(ctx.image);
    long fence = ctx.image.offset();
    ctx.replay(
        ctx.controller.createTopic(
            "later", 1, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE));
    fences.onImage(ctx.image);

    // When it resumes and heartbeats with the metadata it had before the fence (which has its
    // registration), then with metadata that has the fence
    HeartbeatResult stale =
        BrokerLifecycleControl.heartbeat(
                ctx.image, ControllerConfig.DEFAULT, 2, epoch, beforeFence, false, false, fences)
            .response();
    ControllerResult<HeartbeatResult> caughtUp =
        BrokerLifecycleControl.heartbeat(
            ctx.image, ControllerConfig.DEFAULT, 2, epoch, fence, false, false, fences);

    // Then it stays fenced while it may still think it leads, and is unfenced once it knows
    assertThat(stale.fenced()).isTrue();
    assertThat(caughtUp.response().fenced()).isFalse();
    assertThat(ctx.replay(caughtUp).fenced()).isFalse();
    assertThat(ctx.image.brokers().get(2).fenced()).isFalse();
  }

  @Test
  void aControllerThatHasNotSeenTheFenceWantsTheBrokerCaughtUpToItsImage() {
    // Given a fenced broker and a controller whose tracker never saw the fence (it just started)
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    long epoch = ctx.image.brokers().get(2).epoch();
    ctx.replay(ctx.controller.fenceBroker(2, epoch));
    BrokerFences fences = new BrokerFences();

    // Then the fence is taken to be as late as the image the heartbeat reads
    assertThat(fences.unfenceAfter(2, ctx.image)).isEqualTo(ctx.image.offset());
    fences.onImage(ctx.image);
    assertThat(fences.unfenceAfter(2, ctx.image)).isEqualTo(ctx.image.offset());
  }

  @Test
  void heartbeatsWithAStaleEpochOrFromUnknownBrokersAreRefused() {
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    long epoch = ctx.image.brokers().get(1).epoch();

    assertThat(ctx.controller.brokerHeartbeat(1, epoch - 1, 100, false, false).response().error())
        .isEqualTo(ApiError.of(Errors.STALE_BROKER_EPOCH));
    assertThat(ctx.controller.brokerHeartbeat(9, 0, 100, false, false).response().error())
        .isEqualTo(ApiError.of(Errors.BROKER_ID_NOT_REGISTERED));
  }

  @Test
  void controlledShutdownMovesLeadershipsInOneBatch() {
    // Given three brokers and a topic whose partitions they all lead
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    ctx.createTopic("t", 6, 3);
    long epoch = ctx.image.brokers().get(2).epoch();

    // When broker 2 asks to shut down
    ControllerResult<HeartbeatResult> result =
        ctx.controller.brokerHeartbeat(2, epoch, ctx.image.offset(), false, true);
    HeartbeatResult answer = ctx.replay(result);

    // Then it may stop, is fenced, and leads nothing
    assertThat(answer.shouldShutDown()).isTrue();
    assertThat(ctx.image.brokers().get(2).fenced()).isTrue();
    for (int p = 0; p < 6; p++) {
      assertThat(ctx.partition("t", p).leader()).isNotEqualTo(2);
      assertThat(ctx.partition("t", p).isr()).doesNotContain(2);
    }
  }

  @Test
  void replicasOfAFailedLogDirLoseTheirLeadershipsAndIsrInOneBatch() {
    // Given three brokers and a topic whose partitions they all lead
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    Uuid topicId = ctx.createTopic("t", 6, 3).topicId();
    long epoch = ctx.image.brokers().get(2).epoch();
    List<Integer> ledBy2 = new java.util.ArrayList<>();
    for (int p = 0; p < 6; p++) {
      if (ctx.partition("t", p).leader() == 2) {
        ledBy2.add(p);
      }
    }
    assertThat(ledBy2).isNotEmpty();

    // When broker 2 reports that the directory holding its replicas of those partitions failed
    ControllerResult<ApiError> result =
        ctx.controller.replicasOffline(2, epoch, Map.of(topicId, java.util.Set.copyOf(ledBy2)));
    int batch = result.records().size();
    assertThat(ctx.replay(result)).isEqualTo(ApiError.NONE);

    // Then one batch, one change per partition, moved them; the others keep broker 2
    assertThat(batch).isEqualTo(ledBy2.size());
    for (int p = 0; p < 6; p++) {
      if (ledBy2.contains(p)) {
        assertThat(ctx.partition("t", p).leader()).isNotEqualTo(2);
        assertThat(ctx.partition("t", p).isr()).doesNotContain(2);
      } else {
        assertThat(ctx.partition("t", p).isr()).contains(2);
      }
    }
    assertThat(ctx.image.brokers().get(2).fenced()).isFalse();

    // And a report under an old registration changes nothing
    ControllerResult<ApiError> stale =
        ctx.controller.replicasOffline(2, epoch - 1, Map.of(topicId, java.util.Set.of(0, 1)));
    assertThat(stale.response()).isEqualTo(ApiError.of(Errors.STALE_BROKER_EPOCH));
    assertThat(stale.records()).isEmpty();
  }

  @Test
  void anEpochGuardedFenceSparesABrokerThatReRegisteredMeanwhile() {
    // Given broker 2 seen at one epoch, which then re-registers (a restarted process)
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    long seen = ctx.image.brokers().get(2).epoch();
    ctx.replay(ctx.controller.registerBroker(2, Uuid.randomUuid(), ENDPOINTS, Optional.empty()));

    // When it is fenced for the epoch seen before
    ControllerResult<ApiError> stale = ctx.controller.fenceBroker(2, seen);

    // Then nothing changes; with the current epoch it is fenced
    assertThat(stale.response()).isEqualTo(ApiError.of(Errors.STALE_BROKER_EPOCH));
    assertThat(stale.records()).isEmpty();
    long current = ctx.image.brokers().get(2).epoch();
    assertThat(ctx.replay(ctx.controller.fenceBroker(2, current))).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.brokers().get(2).fenced()).isTrue();
  }

  @Test
  void sessionsExpireOnlyForSilentUnfencedBrokersAndRestartOnReset() {
    // Given two unfenced brokers on a virtual clock, their sessions checked every second
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    AtomicLong now = new AtomicLong(1_000);
    BrokerSessions sessions = new BrokerSessions(9_000, now::get);
    MetadataImage image = ctx.image;
    assertThat(sessions.expired(image)).isEmpty();

    // When broker 1 keeps heartbeating and broker 2 falls silent for the whole timeout
    for (int second = 1; second <= 9; second++) {
      now.addAndGet(1_000);
      sessions.touch(1);
      assertThat(sessions.expired(image)).isEmpty();
    }
    now.addAndGet(1_000);

    // Then only broker 2 expires once it is past the timeout; after a reset (a new active
    // controller) nobody does
    assertThat(sessions.expired(image)).containsExactly(2);
    sessions.reset();
    assertThat(sessions.expired(image)).isEmpty();
  }

  @Test
  void aControllerThatStoppedCheckingRestartsEverySessionInsteadOfFencing() {
    // Given two brokers whose sessions the controller checks every second
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    AtomicLong now = new AtomicLong(1_000);
    BrokerSessions sessions = new BrokerSessions(9_000, now::get);
    MetadataImage image = ctx.image;
    assertThat(sessions.expired(image)).isEmpty();

    // When the controller itself is held back for longer than a session (a paused process: the
    // brokers' heartbeats wait unread in its sockets) and then checks again
    now.addAndGet(12_000);
    List<Integer> afterThePause = sessions.expired(image);

    // Then nobody is fenced for the controller's own silence; a broker silent for a whole session
    // after that still is
    assertThat(afterThePause).isEmpty();
    for (int second = 1; second <= 9; second++) {
      now.addAndGet(1_000);
      sessions.touch(1);
      assertThat(sessions.expired(image)).isEmpty();
    }
    now.addAndGet(1_000);
    assertThat(sessions.expired(image)).containsExactly(2);
  }

  @Test
  void topicsOfOneRequestAreCreatedInOneOperationAsIfOneByOne() {
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();

    List<TopicResult> results =
        ctx.replay(
            ctx.controller.createTopics(
                List.of(
                    new NewTopic("a", 3, (short) 2, Map.of(), Map.of()),
                    new NewTopic("b", 2, (short) 3, Map.of(), Map.of()),
                    new NewTopic("a", 1, (short) 1, Map.of(), Map.of())),
                false,
                ConfigValidator.NONE));

    assertThat(results)
        .extracting(r -> r.error().error())
        .containsExactly(Errors.NONE, Errors.NONE, Errors.TOPIC_ALREADY_EXISTS);
    assertThat(ctx.topic("a").partitions()).hasSize(3);
    assertThat(ctx.topic("b").partitions()).hasSize(2);
  }

  @Test
  void preferredElectionReturnsLeadershipToTheFirstReplicaWhenInSync() {
    // Given a partition led by its second replica while the first is in sync
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    ctx.createTopic("t", 1, 2);
    List<Integer> replicas = ctx.partition("t", 0).replicas();
    ctx.replay(
        ControllerResult.of(
            List.of(
                new PartitionChangeRecord(
                    ctx.topic("t").id(), 0, Optional.empty(), Optional.of(replicas.get(1)))),
            null));
    assertThat(ctx.controller.leadersImbalanced()).isTrue();

    // When
    Map<String, Map<Integer, ApiError>> results =
        ctx.replay(
            ctx.controller.electPreferredLeaders(
                Optional.of(Map.of("t", List.of(0), "x", List.of(0)))));

    // Then the first replica leads again; an unknown partition is reported
    assertThat(results.get("t").get(0)).isEqualTo(ApiError.NONE);
    assertThat(results.get("x").get(0).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(replicas.get(0));
    assertThat(ctx.controller.leadersImbalanced()).isFalse();
  }

  @Test
  void preferredElectionIsRefusedWhenTheFirstReplicaIsOutOfSync() {
    // Given the preferred leader was fenced (leaving the ISR) and came back
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    ctx.createTopic("t", 1, 2);
    int preferred = ctx.partition("t", 0).replicas().get(0);
    ctx.replay(ctx.controller.fenceBroker(preferred));
    ctx.replay(ctx.controller.unfenceBroker(preferred));

    // When
    Map<String, Map<Integer, ApiError>> results =
        ctx.replay(ctx.controller.electPreferredLeaders(Optional.of(Map.of("t", List.of(0)))));

    // Then it cannot lead until it is back in sync
    assertThat(results.get("t").get(0).error()).isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
    assertThat(ctx.partition("t", 0).leader()).isNotEqualTo(preferred);
  }
}
