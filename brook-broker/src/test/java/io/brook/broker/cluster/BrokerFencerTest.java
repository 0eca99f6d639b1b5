package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.BrokerSessions;
import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ControllerConfig;
import io.brook.metadata.quorum.LocalMetadataQuorum;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fencing of silent and lagging brokers on a real (local) quorum and a virtual clock. */
class BrokerFencerTest {
  @TempDir Path dir;
  private LocalMetadataQuorum quorum;

  @AfterEach
  void close() {
    if (quorum != null) {
      quorum.close();
    }
  }

  @Test
  void aBrokerThatHeartbeatsButWhoseMetadataStaysBehindIsFencedAfterTheSessionTimeout()
      throws Exception {
    // Given two unfenced brokers that both keep heartbeating
    quorum = LocalMetadataQuorum.open(dir);
    ClusterController controller =
        new ClusterController(ControllerConfig.DEFAULT, quorum::image, new Random(7));
    for (int id : List.of(1, 2)) {
      quorum.submit(
          image -> controller.registerBroker(id, Uuid.randomUuid(), List.of(), Optional.empty()));
    }
    AtomicLong now = new AtomicLong(1_000);
    BrokerSessions sessions = new BrokerSessions(9_000, now::get);
    BrokerFencer fencer = new BrokerFencer(quorum, controller, sessions);
    fencer.run();
    long stuckAt = quorum.image().offset() - 1;

    // When broker 1 keeps up while broker 2's image stays one record behind, for 9 s and then more
    for (int second = 0; second < 10; second++) {
      long controllerOffset = quorum.image().offset();
      sessions.touch(1);
      sessions.touch(2);
      sessions.metadataOffset(1, controllerOffset, controllerOffset);
      sessions.metadataOffset(2, stuckAt, controllerOffset);
      fencer.run();
      assertThat(quorum.image().brokers().get(2).fenced()).isFalse();
      now.addAndGet(1_000);
    }
    fencer.run();

    // Then only broker 2 is fenced
    assertThat(quorum.image().brokers().get(2).fenced()).isTrue();
    assertThat(quorum.image().brokers().get(1).fenced()).isFalse();
  }
}
