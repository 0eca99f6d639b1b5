package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** Which node Metadata and DescribeCluster name as the controller Admin clients send to. */
class ControllerToNameTest {
  private static final int SELF = 3;

  @Test
  void theActiveControllerIsNamedWhenItIsAnUnfencedBroker() {
    MetadataImage image = brokers(Set.of());

    assertThat(BrokerClusterServices.controllerToName(image, 2, SELF, id -> false)).isEqualTo(2);
  }

  @Test
  void aDeadActiveControllerIsNotNamedWhileTheElectionRuns() {
    // Given the active controller's node (2) died: its broker is still unfenced and the Raft
    // follower still names it, but this node's liveness probe saw its connection drop
    MetadataImage image = brokers(Set.of());

    // Then the lowest live broker is named, which forwards to whoever is elected
    assertThat(BrokerClusterServices.controllerToName(image, 2, SELF, id -> id == 2)).isEqualTo(1);
    assertThat(BrokerClusterServices.controllerToName(image, 2, SELF, id -> id != SELF))
        .isEqualTo(SELF);
  }

  @Test
  void withoutAKnownControllerTheLowestUnfencedLiveBrokerIsNamed() {
    MetadataImage image = brokers(Set.of(1));

    assertThat(BrokerClusterServices.controllerToName(image, -1, SELF, id -> false)).isEqualTo(2);
    assertThat(BrokerClusterServices.controllerToName(image, 1, SELF, id -> false)).isEqualTo(2);
  }

  @Test
  void aNodeNeverCountsItselfAsLostAndNamesItselfWhenNoBrokerIsKnown() {
    assertThat(BrokerClusterServices.controllerToName(brokers(Set.of()), SELF, SELF, id -> true))
        .isEqualTo(SELF);
    assertThat(BrokerClusterServices.controllerToName(MetadataImage.EMPTY, -1, SELF, id -> false))
        .isEqualTo(SELF);
  }

  /** Brokers 1, 2 and 3, those in {@code fenced} fenced. */
  private static MetadataImage brokers(Set<Integer> fenced) {
    List<MetadataRecord> records = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      records.add(
          new RegisterBrokerRecord(
              id,
              Uuid.randomUuid(),
              1,
              List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9090 + id, "PLAINTEXT")),
              Optional.empty(),
              fenced.contains(id)));
    }
    return MetadataImage.EMPTY.apply(records, records.size());
  }
}
