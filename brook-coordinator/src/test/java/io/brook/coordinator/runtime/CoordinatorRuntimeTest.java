package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.coordinator.testing.CoordinatorFixture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shard runtime on real logs: writes, loading, leadership changes and timers. */
class CoordinatorRuntimeTest {
  private static final String TOPIC = "__test_coordinator";
  private static final short TYPE = 100;

  @TempDir Path dir;
  private CoordinatorFixture fixture;
  private final List<KeyValueShard> created = new CopyOnWriteArrayList<>();
  private CoordinatorRuntime<KeyValueShard> runtime;

  /** A shard that keeps the latest value per key, like a compacted topic's reader. */
  static class KeyValueShard implements CoordinatorShard {
    final ShardContext context;
    final Map<String, String> values = new LinkedHashMap<>();
    final List<String> events = new ArrayList<>();
    volatile boolean unloaded;

    KeyValueShard(ShardContext context) {
      this.context = context;
    }

    @Override
    public void replay(CoordinatorRecord record, long offset) {
      String key = StandardCharsets.UTF_8.decode(record.key().duplicate()).toString();
      if (record.isTombstone()) {
        values.remove(key);
      } else {
        values.put(key, StandardCharsets.UTF_8.decode(record.value().duplicate()).toString());
      }
    }

    @Override
    public void onLoaded() {
      events.add("loaded");
    }

    @Override
    public void onUnloaded() {
      unloaded = true;
    }

    CompletableFuture<Void> put(String key, String value) {
      return context.write(
          List.of(
              new CoordinatorRecord(
                  TYPE,
                  ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)),
                  value == null ? null : ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)))));
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    fixture = new CoordinatorFixture(dir);
    fixture.createTopic(TOPIC, 3, Map.of());
    runtime = newRuntime();
  }

  private CoordinatorRuntime<KeyValueShard> newRuntime() {
    CoordinatorRuntime<KeyValueShard> r =
        new CoordinatorRuntime<>(
            TOPIC,
            fixture.logs,
            fixture.replicaManager::image,
            context -> {
              KeyValueShard shard = new KeyValueShard(context);
              created.add(shard);
              return shard;
            },
            Time.SYSTEM,
            2,
            5_000,
            1024);
    fixture.quorum.addListener(r::onMetadata);
    return r;
  }

  @AfterEach
  void tearDown() throws Exception {
    runtime.close();
    fixture.close();
  }

  private <T> T onShard(int partition, java.util.function.Function<KeyValueShard, T> read)
      throws Exception {
    return runtime
        .run(partition, shard -> CompletableFuture.completedFuture(read.apply(shard)))
        .get(10, TimeUnit.SECONDS);
  }

  private Map<String, String> values(int partition) throws Exception {
    return onShard(partition, s -> Map.copyOf(s.values));
  }

  private List<String> events(int partition) throws Exception {
    return onShard(partition, s -> List.copyOf(s.events));
  }

  private void awaitActive(int partition) {
    await().atMost(Duration.ofSeconds(10)).until(() -> runtime.isActive(partition));
  }

  @Test
  void writesAreReadableAtOnceAndCommittedInTheLog() throws Exception {
    awaitActive(1);
    runtime.run(1, shard -> shard.put("a", "1")).get(10, TimeUnit.SECONDS);
    assertThat(values(1)).containsExactly(Map.entry("a", "1"));
    var log =
        fixture.replicaManager.partition(new org.apache.kafka.common.TopicPartition(TOPIC, 1));
    assertThat(log.orElseThrow().log().highWatermark()).isEqualTo(1);
  }

  @Test
  void aNewRuntimeRebuildsEveryShardFromItsPartition() throws Exception {
    awaitActive(0);
    awaitActive(2);
    for (int i = 0; i < 500; i++) {
      int partition = i % 2 == 0 ? 0 : 2;
      String key = "k" + (i % 50);
      String value = "v" + i;
      runtime.run(partition, shard -> shard.put(key, value)).get(10, TimeUnit.SECONDS);
    }
    runtime.run(0, shard -> shard.put("k0", null)).get(10, TimeUnit.SECONDS);
    Map<String, String> before0 = values(0);
    Map<String, String> before2 = values(2);
    runtime.close();

    runtime = newRuntime();
    awaitActive(0);
    awaitActive(2);
    assertThat(values(0)).isEqualTo(before0).doesNotContainKey("k0");
    assertThat(values(2)).isEqualTo(before2);
    assertThat(events(0)).containsExactly("loaded");
  }

  @Test
  void partitionsNotLedHereAnswerNotCoordinator() {
    awaitActive(0);
    assertThatThrownBy(
            () ->
                runtime.run(7, s -> CompletableFuture.completedFuture(1)).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(NotCoordinatorException.class);
  }

  @Test
  void aBrokerWhoseLeadershipsMayHaveMovedAnswersNotCoordinatorUntilItKnows() throws Exception {
    // Given a runtime whose broker stops hearing from the controller, then hears again
    java.util.concurrent.atomic.AtomicBoolean current =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    io.brook.coordinator.log.CoordinatorLogs logs =
        new io.brook.coordinator.log.CoordinatorLogs() {
          @Override
          public java.util.OptionalInt leaderEpoch(org.apache.kafka.common.TopicPartition p) {
            return fixture.logs.leaderEpoch(p);
          }

          @Override
          public io.brook.coordinator.log.CoordinatorLog open(
              org.apache.kafka.common.TopicPartition p, int leaderEpoch) {
            return fixture.logs.open(p, leaderEpoch);
          }

          @Override
          public boolean leadershipsCurrent() {
            return current.get();
          }
        };
    replaceRuntime(logs);
    runtime.run(0, shard -> shard.put("a", "1")).get(10, TimeUnit.SECONDS);

    // When its leaderships may have moved (its lease with the controller lapsed)
    current.set(false);

    // Then its shards, still loaded, answer nothing but NOT_COORDINATOR, and list nothing
    assertThatThrownBy(() -> values(0))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(NotCoordinatorException.class);
    assertThat(runtime.runOnAll(s -> CompletableFuture.completedFuture(1))).isEmpty();

    // And once the lease is back they answer from their state again
    current.set(true);
    assertThat(values(0)).containsEntry("a", "1");
  }

  /**
   * The fixture's logs with commits the test holds: while held, the high watermark stays where it
   * was and waits for a commit complete only once the test releases (or fails) them.
   */
  private static final class HeldCommits implements CoordinatorLogs {
    private final CoordinatorLogs logs;
    private volatile long heldAt = -1;
    private volatile CompletableFuture<Void> release = CompletableFuture.completedFuture(null);

    HeldCommits(CoordinatorLogs logs) {
      this.logs = logs;
    }

    void hold(long highWatermark) {
      release = new CompletableFuture<>();
      heldAt = highWatermark;
    }

    void release() {
      heldAt = -1;
      release.complete(null);
    }

    void lose(RuntimeException error) {
      release.completeExceptionally(error);
    }

    @Override
    public OptionalInt leaderEpoch(TopicPartition partition) {
      return logs.leaderEpoch(partition);
    }

    @Override
    public CoordinatorLog open(TopicPartition partition, int leaderEpoch) {
      CoordinatorLog log = logs.open(partition, leaderEpoch);
      return (CoordinatorLog)
          Proxy.newProxyInstance(
              CoordinatorLog.class.getClassLoader(),
              new Class<?>[] {CoordinatorLog.class},
              (proxy, method, args) -> {
                if (method.getName().equals("highWatermark") && heldAt >= 0) {
                  return heldAt;
                }
                Object answer = invoke(method, log, args);
                if (method.getName().equals("awaitCommitted")) {
                  CompletableFuture<Void> gate = release;
                  return ((CompletableFuture<?>) answer).thenCompose(v -> gate);
                }
                return answer;
              });
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  /** Replaces the runtime with one over {@code logs}, its partition 0 loaded. */
  private void replaceRuntime(CoordinatorLogs logs) {
    runtime.close();
    runtime =
        new CoordinatorRuntime<>(
            TOPIC,
            logs,
            fixture.replicaManager::image,
            KeyValueShard::new,
            Time.SYSTEM,
            2,
            5_000,
            1024);
    fixture.quorum.addListener(runtime::onMetadata);
    runtime.onMetadata(fixture.replicaManager.image());
    awaitActive(0);
  }

  private HeldCommits runtimeWithHeldCommits() throws Exception {
    HeldCommits logs = new HeldCommits(fixture.logs);
    replaceRuntime(logs);
    return logs;
  }

  private CompletableFuture<Map<String, String>> read(int partition) {
    return runtime.run(partition, s -> CompletableFuture.completedFuture(Map.copyOf(s.values)));
  }

  @Test
  void anAnswerThatSawAWriteStillReplicatingWaitsUntilItCommits() throws Exception {
    // Given a shard whose write of a=1 is appended but not yet committed
    HeldCommits logs = runtimeWithHeldCommits();
    runtime.run(0, shard -> shard.put("a", "0")).get(10, TimeUnit.SECONDS);
    logs.hold(1);
    CompletableFuture<Void> write = runtime.run(0, shard -> shard.put("a", "1"));

    // When a read sees it (the shard replays its writes as it appends them)
    CompletableFuture<Map<String, String>> read = read(0);

    // Then the read is not answered while the write replicates
    assertThatThrownBy(() -> read.get(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(java.util.concurrent.TimeoutException.class);
    assertThat(write).isNotDone();

    // And is answered once it commits, with what it saw
    logs.release();
    write.get(10, TimeUnit.SECONDS);
    assertThat(read.get(10, TimeUnit.SECONDS)).containsExactly(Map.entry("a", "1"));
  }

  @Test
  void anAnswerThatSawAWriteTheLeaderLostIsNeverGiven() throws Exception {
    // Given a read that saw a write still replicating
    HeldCommits logs = runtimeWithHeldCommits();
    logs.hold(0);
    CompletableFuture<Void> write = runtime.run(0, shard -> shard.put("a", "1"));
    CompletableFuture<Map<String, String>> read = read(0);

    // When the leader loses the write with its leadership
    logs.lose(new NotCoordinatorException("lost leadership before the write committed"));

    // Then neither the write nor the read is answered with it: the client asks the new coordinator
    assertThatThrownBy(() -> write.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(NotCoordinatorException.class);
    assertThatThrownBy(() -> read.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(NotCoordinatorException.class);
  }

  @Test
  void aReadWithNothingReplicatingIsAnsweredAtOnce() throws Exception {
    // Given a shard whose writes have all committed, and commits that would now be held
    HeldCommits logs = runtimeWithHeldCommits();
    runtime.run(0, shard -> shard.put("a", "1")).get(10, TimeUnit.SECONDS);
    logs.hold(1);

    // Then a read waits for nothing
    assertThat(read(0).get(10, TimeUnit.SECONDS)).containsExactly(Map.entry("a", "1"));
  }

  @Test
  void deletingTheTopicUnloadsItsShards() throws Exception {
    awaitActive(0);
    KeyValueShard shard = onShard(0, s -> s);
    fixture.deleteTopic(TOPIC);
    await().atMost(Duration.ofSeconds(10)).until(() -> shard.unloaded);
    assertThat(runtime.isActive(0)).isFalse();
    assertThatThrownBy(
            () ->
                runtime.run(0, s -> CompletableFuture.completedFuture(1)).get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(NotCoordinatorException.class);
  }

  @Test
  void timersFireOnTheShardThreadAndAreReplacedByKey() throws Exception {
    awaitActive(1);
    List<String> fired = new CopyOnWriteArrayList<>();
    runtime
        .run(
            1,
            shard -> {
              String thread = Thread.currentThread().getName();
              shard.context.timer().schedule("t", 60_000, () -> fired.add("old"));
              shard.context.timer().schedule("t", 10, () -> fired.add("new:" + thread));
              shard.context.timer().schedule("u", 10, () -> fired.add("cancelled"));
              shard.context.timer().cancel("u");
              return CompletableFuture.completedFuture(null);
            })
        .get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> !fired.isEmpty());
    String shardThread = onShard(1, s -> Thread.currentThread().getName());
    assertThat(fired).containsExactly("new:" + shardThread);
  }

  @Test
  void timersOfAnUnloadedShardNeverRun() throws Exception {
    awaitActive(1);
    List<String> fired = new CopyOnWriteArrayList<>();
    runtime
        .run(
            1,
            shard -> {
              shard.context.timer().schedule("t", 300, () -> fired.add("ran"));
              return CompletableFuture.completedFuture(null);
            })
        .get(5, TimeUnit.SECONDS);
    fixture.deleteTopic(TOPIC);
    await().atMost(Duration.ofSeconds(5)).until(() -> !runtime.isActive(1));
    Thread.sleep(600); // past the timer's deadline: nothing may fire
    assertThat(fired).isEmpty();
  }
}
