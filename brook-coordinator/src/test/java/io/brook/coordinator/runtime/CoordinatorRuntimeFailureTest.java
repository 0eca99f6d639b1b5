package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.coordinator.testing.CoordinatorFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime contains whatever its shards throw, and bounds what waits for them. */
class CoordinatorRuntimeFailureTest {
  private static final String TOPIC = "__test_coordinator";

  @TempDir Path dir;
  private CoordinatorFixture fixture;
  private CoordinatorRuntime<CoordinatorRuntimeTest.KeyValueShard> runtime;
  private final AtomicInteger loadErrorsLeft = new AtomicInteger();

  @BeforeEach
  void setUp() throws Exception {
    fixture = new CoordinatorFixture(dir);
    fixture.createTopic(TOPIC, 1, Map.of());
  }

  @AfterEach
  void tearDown() throws Exception {
    runtime.close();
    fixture.close();
  }

  private void start(int maxQueuedRequests) {
    runtime =
        new CoordinatorRuntime<>(
            TOPIC,
            fixture.logs,
            fixture.replicaManager::image,
            context ->
                new CoordinatorRuntimeTest.KeyValueShard(context) {
                  @Override
                  public void onLoaded() {
                    if (loadErrorsLeft.getAndDecrement() > 0) {
                      throw new InternalError("the shard could not start");
                    }
                    super.onLoaded();
                  }
                },
            Time.SYSTEM,
            1,
            5_000,
            1024,
            maxQueuedRequests);
    fixture.quorum.addListener(runtime::onMetadata);
  }

  private <T> CompletableFuture<T> run(
      java.util.function.Function<CoordinatorRuntimeTest.KeyValueShard, T> op) {
    return runtime.run(0, shard -> CompletableFuture.completedFuture(op.apply(shard)));
  }

  @Test
  void aShardWhoseLoadThrowsAnErrorAnswersRetriablyAndIsLoadedAgain() throws Exception {
    loadErrorsLeft.set(1);
    start(100);

    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.partitionCount("failed") == 1);
    assertThatThrownBy(() -> run(s -> 1).get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(CoordinatorNotAvailableException.class);

    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.isActive(0));
    assertThat(run(s -> 1).get(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(runtime.metrics().loadFailures()).isEqualTo(1);
    assertThat(runtime.partitionCount("failed")).isZero();
  }

  @Test
  void anErrorInARequestFailsItRetriablyAndReloadsTheShardFromItsLog() throws Exception {
    start(100);
    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.isActive(0));
    runtime.run(0, shard -> shard.put("a", "1")).get(5, TimeUnit.SECONDS);

    CompletableFuture<Object> failing =
        runtime.run(
            0,
            shard -> {
              shard.values.put("a", "half-changed");
              throw new StackOverflowError("a request recursed without end");
            });

    assertThatThrownBy(() -> failing.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(CoordinatorNotAvailableException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.isActive(0));
    // The thread lives on and the shard holds what its log holds, not the half-made change
    assertThat(run(s -> Map.copyOf(s.values)).get(5, TimeUnit.SECONDS)).isEqualTo(Map.of("a", "1"));
  }

  @Test
  void aFullQueueAnswersCoordinatorNotAvailableAndDrains() throws Exception {
    start(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.isActive(0));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Integer> blocking =
        run(
            s -> {
              started.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return 0;
            });
    started.await(10, TimeUnit.SECONDS);

    List<CompletableFuture<Integer>> queued = new ArrayList<>();
    queued.add(run(s -> 1));
    queued.add(run(s -> 2));
    CompletableFuture<Integer> refused = run(s -> 3);

    assertThat(refused).isCompletedExceptionally();
    assertThatThrownBy(refused::join).hasCauseInstanceOf(CoordinatorNotAvailableException.class);
    assertThat(runtime.metrics().rejectedRequests()).isEqualTo(1);
    release.countDown();
    assertThat(blocking.get(5, TimeUnit.SECONDS)).isZero();
    assertThat(queued.get(0).get(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(queued.get(1).get(5, TimeUnit.SECONDS)).isEqualTo(2);
    // Room again once the queue drained
    assertThat(run(s -> 4).get(5, TimeUnit.SECONDS)).isEqualTo(4);
  }
}
