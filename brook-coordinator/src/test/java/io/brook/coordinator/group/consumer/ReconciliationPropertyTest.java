package io.brook.coordinator.group.consumer;

import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.join;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.junit.jupiter.api.Test;

/**
 * Random joins, leaves, heartbeats and partition growth against one group, with clients that do
 * exactly what the responses say. After every step no partition is owned by two clients (nor by two
 * members on the coordinator); once everyone keeps heartbeating the group converges to a balanced,
 * stable assignment; and replaying the log rebuilds the same group. Each run prints its seed.
 */
class ReconciliationPropertyTest {
  private static final int RUNS = 40;
  private static final int STEPS = 150;

  /**
   * A well-behaved but possibly slow client: its epoch, the partitions it consumes, and an
   * assignment it was given but has not finished moving to (revoking takes it a while).
   */
  private static final class Client {
    final String instanceId;
    int epoch;
    Set<TopicIdPartition> owned = new TreeSet<>();
    Set<TopicIdPartition> pending;

    Client(String instanceId) {
      this.instanceId = instanceId;
    }

    /** Finishes moving to the last assignment it was given, if any. */
    void reconcile() {
      if (pending != null) {
        owned = pending;
        pending = null;
      }
    }
  }

  @Test
  void randomMembershipChangesNeverGiveAPartitionTwoOwnersAndConverge() {
    long seed = System.nanoTime();
    System.out.println("ReconciliationPropertyTest seed=" + seed);
    Random random = new Random(seed);
    for (int run = 0; run < RUNS; run++) {
      runOnce(random, seed, run);
    }
  }

  /**
   * A seed that found a static member coming back while it still waited for partitions: it was
   * marked stable at the target epoch and never got them.
   */
  @Test
  void pinnedSeedStaticMemberBackWhileWaitingForPartitions() {
    long seed = 12885782660353L;
    Random random = new Random(seed);
    for (int run = 0; run < 8; run++) {
      runOnce(random, seed, run);
    }
  }

  private static void runOnce(Random random, long seed, int run) {
    int partitions = 1 + random.nextInt(12);
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", partitions);
    Map<String, Client> clients = new TreeMap<>();
    List<String> away = new ArrayList<>();
    int[] nextId = {0};
    for (int step = 0; step < STEPS; step++) {
      int action = random.nextInt(12);
      if (action == 0 && clients.size() + away.size() < 6) {
        String instance = random.nextBoolean() ? "pod-" + nextId[0] : null;
        joinClient(ctx, clients, "m" + nextId[0]++, instance, seed, run);
      } else if (action == 1 && !clients.isEmpty()) {
        String id = pick(random, clients);
        Client c = clients.remove(id);
        ctx.heartbeat(
            ctx.beat(id, c.epoch, Set.of()).setMemberEpoch(-1).setInstanceId(c.instanceId));
      } else if (action == 3 && !clients.isEmpty()) {
        // A static member shuts down for a restart: it stops consuming and leaves with -2.
        String id = pick(random, clients);
        Client c = clients.get(id);
        if (c.instanceId != null) {
          clients.remove(id);
          assertThat(
                  ctx.heartbeat(
                          ctx.beat(id, c.epoch, Set.of())
                              .setMemberEpoch(-2)
                              .setInstanceId(c.instanceId))
                      .errorCode())
              .isZero();
          away.add(c.instanceId);
        }
      } else if (action == 4 && !away.isEmpty()) {
        String instance = away.remove(random.nextInt(away.size()));
        joinClient(ctx, clients, "m" + nextId[0]++, instance, seed, run);
      } else if (action == 2 && random.nextInt(5) == 0) {
        ctx.topic("orders", ++partitions);
      } else if (!clients.isEmpty()) {
        String id = pick(random, clients);
        Client c = clients.get(id);
        if (random.nextBoolean()) {
          c.reconcile();
        }
        apply(ctx.heartbeat(ctx.beat(id, c.epoch, c.owned)), c, seed, run);
      }
      ctx.context.advance(random.nextInt(200));
      assertNoSharedPartitions(ctx, clients, seed, run, step);
    }
    for (String instance : away) {
      joinClient(ctx, clients, "m" + nextId[0]++, instance, seed, run);
    }
    if (clients.isEmpty()) {
      return;
    }
    // Everyone heartbeats until nothing changes.
    for (int round = 0; round < 12; round++) {
      for (Map.Entry<String, Client> e : clients.entrySet()) {
        Client c = e.getValue();
        c.reconcile();
        apply(ctx.heartbeat(ctx.beat(e.getKey(), c.epoch, c.owned)), c, seed, run);
        assertNoSharedPartitions(ctx, clients, seed, run, STEPS + round);
      }
    }
    assertThat(ctx.group().stateName()).as("seed %d run %d", seed, run).isEqualTo("Stable");
    int total = partitions;
    List<Integer> sizes = new ArrayList<>();
    Set<TopicIdPartition> all = new TreeSet<>();
    clients
        .values()
        .forEach(
            c -> {
              sizes.add(c.owned.size());
              all.addAll(c.owned);
            });
    assertNoSharedPartitions(ctx, clients, seed, run, STEPS + 12);
    assertThat(all).as("seed %d run %d: every partition consumed", seed, run).hasSize(total);
    assertThat(
            sizes.stream().mapToInt(i -> i).max().orElse(0)
                - sizes.stream().mapToInt(i -> i).min().orElse(0))
        .as("seed %d run %d: balanced", seed, run)
        .isLessThanOrEqualTo(1);
    ctx.assertReplayRebuildsSameState();
  }

  private static void joinClient(
      ConsumerGroupTestContext ctx,
      Map<String, Client> clients,
      String memberId,
      String instanceId,
      long seed,
      int run) {
    Client c = new Client(instanceId);
    apply(ctx.heartbeat(join(memberId, "orders").setInstanceId(instanceId)), c, seed, run);
    c.reconcile();
    clients.put(memberId, c);
  }

  private static String pick(Random random, Map<String, Client> clients) {
    List<String> ids = new ArrayList<>(clients.keySet());
    return ids.get(random.nextInt(ids.size()));
  }

  /** The client takes its new epoch at once; it moves to the partitions it was given later. */
  private static void apply(
      ConsumerGroupHeartbeatResponseData response, Client c, long seed, int run) {
    assertThat(response.errorCode())
        .as("seed %d run %d: %s", seed, run, response.errorMessage())
        .isZero();
    c.epoch = response.memberEpoch();
    if (response.assignment() != null) {
      c.pending = ConsumerGroupTestContext.partitions(response);
    }
  }

  private static void assertNoSharedPartitions(
      ConsumerGroupTestContext ctx, Map<String, Client> clients, long seed, int run, int step) {
    Map<TopicIdPartition, String> owners = new HashMap<>();
    clients.forEach(
        (id, c) -> {
          for (TopicIdPartition tp : c.owned) {
            String other = owners.put(tp, id);
            assertThat(other)
                .as(
                    "seed %d run %d step %d: %s consumed by %s and %s",
                    seed, run, step, tp, other, id)
                .isNull();
          }
        });
    if (ctx.consumer().group(ConsumerGroupTestContext.GROUP).isPresent()) {
      ctx.assertSingleOwners();
    }
  }
}
