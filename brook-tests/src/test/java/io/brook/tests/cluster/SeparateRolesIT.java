package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.awaitSameEverywhere;
import static io.brook.tests.cluster.ControllerFailoverIT.brokers;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production layout: three controller-only nodes (the Raft voters) and two broker-only nodes
 * that follow the metadata log, as separate JVMs.
 */
class SeparateRolesIT {
  @TempDir Path dir;
  private ClusterHarness cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void brokersFollowTheLogSurviveControllerFailoverAndRestartFromTheirLocalCopy() throws Exception {
    // Given three controllers and two brokers, and a topic created through a broker
    cluster = ClusterHarness.start(dir, 3, 2, Map.of());
    try (Admin admin = admin(cluster.node(101).bootstrap())) {
      admin.createTopics(List.of(new NewTopic("events", 4, (short) 2))).all().get();
    }
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.brokers()),
            Duration.ofSeconds(10),
            m -> {
              assertThat(m.brokers()).containsOnlyKeys(101, 102);
              assertThat(m.topics()).contains("events");
            });
    assertThat(before.controllerId()).isIn(101, 102);

    // When the active controller is killed, a topic can still be created through a broker
    cluster.node(activeController()).kill();
    try (Admin admin = admin(cluster.node(102).bootstrap())) {
      admin
          .createTopics(List.of(new NewTopic("after-failover", 2, (short) 2)))
          .all()
          .get(10, TimeUnit.SECONDS);
    }
    awaitSameEverywhere(
        brokers(cluster.brokers()),
        Duration.ofSeconds(10),
        m -> assertThat(m.topics()).contains("events", "after-failover"));

    // When a broker is killed and started again, it rejoins with everything
    Node broker = cluster.node(102);
    broker.kill();
    broker.restart();
    awaitSameEverywhere(
        brokers(cluster.brokers()),
        Duration.ofSeconds(15),
        m -> {
          assertThat(m.brokers()).containsOnlyKeys(101, 102);
          assertThat(m.topics()).contains("events", "after-failover");
        });
  }

  /** The quorum's leader, as DescribeQuorum (forwarded by a broker) names it. */
  private int activeController() throws Exception {
    try (Admin admin = admin(cluster.node(101).bootstrap())) {
      return admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS).leaderId();
    }
  }
}
