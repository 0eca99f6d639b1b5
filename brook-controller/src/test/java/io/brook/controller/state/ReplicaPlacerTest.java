package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.image.BrokerRegistration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ReplicaPlacerTest {

  private static BrokerRegistration broker(int id, Optional<String> rack) {
    return new BrokerRegistration(id, Uuid.ONE_UUID, 0, List.of(), rack, false);
  }

  @Test
  void randomClustersGetDistinctReplicasBalancedLeadersAndRackSpread() throws Exception {
    for (long seed = 0; seed < 300; seed++) {
      // Given
      Random random = new Random(seed);
      int brokerCount = 1 + random.nextInt(9);
      int rackCount = random.nextInt(4); // 0 means no racks at all
      List<BrokerRegistration> brokers = new ArrayList<>();
      for (int i = 0; i < brokerCount; i++) {
        Optional<String> rack =
            rackCount == 0 ? Optional.empty() : Optional.of("rack-" + random.nextInt(rackCount));
        brokers.add(broker(100 - 7 * i, rack));
      }
      int rf = 1 + random.nextInt(brokerCount);
      int partitions = 1 + random.nextInt(40);
      Set<String> racks = new HashSet<>();
      brokers.forEach(b -> racks.add(b.rack().orElse("none-" + b.id())));

      // When
      List<List<Integer>> placement = ReplicaPlacer.place(brokers, partitions, rf, random);

      // Then
      String seedText = "seed " + seed;
      assertThat(placement).as(seedText).hasSize(partitions);
      Map<Integer, Integer> leaders = new HashMap<>();
      for (List<Integer> replicas : placement) {
        assertThat(replicas).as(seedText).hasSize(rf).doesNotHaveDuplicates();
        leaders.merge(replicas.get(0), 1, Integer::sum);
        Set<String> used = new HashSet<>();
        for (int id : replicas) {
          BrokerRegistration b =
              brokers.stream().filter(x -> x.id() == id).findFirst().orElseThrow();
          used.add(b.rack().orElse("none-" + id));
        }
        assertThat(used)
            .as("%s: racks of %s", seedText, replicas)
            .hasSize(Math.min(rf, racks.size()));
      }
      int min = partitions / brokerCount;
      assertThat(leaders.values())
          .as(seedText)
          .allSatisfy(n -> assertThat(n).isBetween(min, min + 1));
    }
  }

  @Test
  void tooFewBrokers() {
    assertThatThrownBy(
            () -> ReplicaPlacer.place(List.of(broker(1, Optional.empty())), 1, 2, new Random(0)))
        .isInstanceOf(ReplicaPlacer.PlacementException.class)
        .hasMessage(
            "The target replication factor of 2 cannot be reached because only 1 broker(s) are"
                + " registered.");
  }
}
