package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class RegistrationGateTest {
  private static final List<BrokerEndpoint> ENDPOINTS =
      List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));
  private static final Uuid TOPIC = Uuid.fromString("MvDxzVmcRsaTz33bUuRU6A");
  private final Uuid lastProcess = Uuid.randomUuid();
  private final Uuid thisProcess = Uuid.randomUuid();

  /** What a restarted broker 2 holds: its last process's registration, leading t-0 in epoch 5. */
  private MetadataImage beforeRestart() {
    return MetadataImage.EMPTY.apply(
        List.of(
            new RegisterBrokerRecord(1, Uuid.randomUuid(), 0, ENDPOINTS, Optional.empty(), false),
            new RegisterBrokerRecord(2, lastProcess, 1, ENDPOINTS, Optional.empty(), false),
            new TopicRecord("t", TOPIC),
            new PartitionRecord(TOPIC, 0, List.of(2, 1), List.of(2, 1), 2, 5, 0)),
        3);
  }

  /** The controller registers a process and, in the same records, moves t-0's leadership. */
  private static MetadataImage registered(MetadataImage image, Uuid incarnation) {
    return image.apply(
        List.of(
            new RegisterBrokerRecord(2, incarnation, 7, ENDPOINTS, Optional.empty(), true),
            new PartitionChangeRecord(
                TOPIC,
                0,
                Optional.of(List.of(1)),
                Optional.of(1),
                Optional.empty(),
                Optional.empty(),
                Optional.empty())),
        image.offset() + 2);
  }

  @Test
  void aRestartedBrokerActsOnNoMetadataBeforeItHoldsItsNewRegistration() {
    // Given a broker restarted on metadata naming it leader in its last process's epochs
    RegistrationGate gate = new RegistrationGate(2, thisProcess, true);
    List<MetadataImage> applied = new ArrayList<>();
    var guarded = gate.guard(applied::add);
    MetadataImage stale = beforeRestart();

    // When that metadata, then another process's registration, then its own arrive
    guarded.accept(stale);
    guarded.accept(registered(stale, lastProcess));
    MetadataImage own = registered(stale, thisProcess);
    guarded.accept(own);

    // Then only metadata from its own registration on is passed on, and everything after it
    MetadataImage later = own.apply(List.of(), own.offset() + 1);
    guarded.accept(later);
    assertThat(gate.admits(stale)).as("open for good once opened").isTrue();
    assertThat(applied).containsExactly(own, later);
  }

  @Test
  void aControllerOnlyNodeRegistersNothingAndHoldsNothingBack() {
    RegistrationGate gate = new RegistrationGate(2, thisProcess, false);

    assertThat(gate.admits(beforeRestart())).isTrue();
  }
}
