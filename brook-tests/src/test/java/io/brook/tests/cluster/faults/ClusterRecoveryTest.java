package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.tests.cluster.ServedMetadata;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which nodes the campaign's recovery restarts, judged by the metadata each broker serves. */
class ClusterRecoveryTest {
  private static ServedMetadata view(List<Integer> brokers, String isrOfC1) {
    Map<Integer, String> listed = new TreeMap<>();
    brokers.forEach(id -> listed.put(id, "10.213.4." + id + ":9092"));
    return new ServedMetadata(
        "cluster", 1, listed, Map.of("c1-0", "leader=1 epoch=3 isr=" + isrOfC1));
  }

  @Test
  void aWholeClusterNeedsNothing() {
    ServedMetadata all = view(List.of(1, 2, 3), "[1, 2, 3]");

    assertThat(ClusterRecovery.unhealthy(Map.of(1, all, 2, all, 3, all), Map.of())).isEmpty();
  }

  @Test
  void aRunningNodeTheOthersDoNotListAsABrokerIsRestarted() {
    ServedMetadata two = view(List.of(1, 2), "[1, 2]");

    assertThat(ClusterRecovery.unhealthy(Map.of(1, two, 2, two, 3, two), Map.of()))
        .containsOnlyKeys(3)
        .hasEntrySatisfying(
            3, why -> assertThat(why).contains("not a registered, unfenced broker", "[1, 2]"));
  }

  @Test
  void aNodeServingStaleMetadataIsRestartedAndTheMajorityIsNot() {
    ServedMetadata current = view(List.of(1, 2, 3), "[1, 2]");
    ServedMetadata stale = view(List.of(1, 2, 3), "[1, 2, 3]");

    assertThat(ClusterRecovery.unhealthy(Map.of(1, current, 2, current, 3, stale), Map.of()))
        .containsOnlyKeys(3)
        .hasEntrySatisfying(
            3,
            why ->
                assertThat(why)
                    .contains("other metadata than the majority", "c1-0", "isr=[1, 2, 3]"));
  }

  @Test
  void aNodeThatCannotBeAskedIsRestarted() {
    ServedMetadata all = view(List.of(1, 2, 3), "[1, 2, 3]");

    assertThat(
            ClusterRecovery.unhealthy(
                Map.of(1, all, 3, all),
                Map.of(2, "java.net.SocketTimeoutException: Read timed out")))
        .containsOnlyKeys(2)
        .hasEntrySatisfying(2, why -> assertThat(why).contains("serves no metadata", "timed out"));
  }

  @Test
  void withoutAMajorityEveryNodeIsSuspect() {
    assertThat(
            ClusterRecovery.unhealthy(
                Map.of(
                    1, view(List.of(1, 2, 3), "[1]"),
                    2, view(List.of(1, 2), "[2]"),
                    3, view(List.of(3), "[3]")),
                Map.of()))
        .containsOnlyKeys(1, 2, 3);
    // One node answering out of three is no majority either.
    assertThat(
            ClusterRecovery.unhealthy(
                Map.of(1, view(List.of(1), "[1]")), Map.of(2, "refused", 3, "refused")))
        .containsOnlyKeys(1, 2, 3);
  }
}
