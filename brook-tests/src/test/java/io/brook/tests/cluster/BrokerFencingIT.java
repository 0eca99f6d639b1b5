package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.awaitSameEverywhere;
import static io.brook.tests.cluster.ControllerFailoverIT.brokers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.RawKafkaClient;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three combined nodes as separate JVMs with Kafka's default session timeout (9 s): a broker that
 * goes silent is fenced and its leaderships move in one batch; when it is back it is unfenced. Each
 * test leaves all three nodes running and unfenced. Brook's liveness probe is off, so a killed
 * broker too is fenced by its session timeout alone ({@link FastFencingIT} covers the probe).
 */
class BrokerFencingIT {
  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterHarness.start(dir, 3, Map.of("brook.broker.liveness.probe.enable", "false"));
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic("orders", 12, (short) 3))).all().get();
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void killedBrokerLosesItsLeadershipsAndRejoinsAfterRestart() throws Exception {
    // Given a broker (not the active controller) that leads some partitions
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()), Duration.ofSeconds(10), allThreeListedAndOrdersLed());
    Node victim = leaderOtherThanController(before);
    List<Node> survivors = others(victim);

    // When it is killed
    victim.kill();
    long killed = System.nanoTime();

    // Then every survivor serves metadata without it (after the 9 s session timeout)
    ServedMetadata after = awaitWithout(victim, survivors, Duration.ofSeconds(30));
    long fencedMs = (System.nanoTime() - killed) / 1_000_000;
    System.out.println(
        "Broker " + victim.id() + " fenced, leaders moved " + fencedMs + " ms after SIGKILL");
    // How soon (the session timeout plus one batch) is a measurement here; brook-simulation's
    // FailureWindowsTest checks the bound in simulated time.
    assertThat(after.leaders().values()).allMatch(leader -> leader >= 0);

    // When it starts again, it is unfenced and every broker lists it
    victim.restart();
    awaitSameEverywhere(brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListed());
  }

  @Test
  void pausedBrokerIsFencedAndUnfencedOnceItResumes() throws Exception {
    // Given a broker (not the active controller) that leads some partitions
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListedAndOrdersLed());
    Node victim = leaderOtherThanController(before);

    // When it is paused past the session timeout
    victim.pause();
    try {
      // Then it is fenced: no broker lists it or names it leader
      awaitWithout(victim, others(victim), Duration.ofSeconds(15));
    } finally {
      victim.resume();
    }

    // When it resumes, it heartbeats again and is unfenced without a restart
    awaitSameEverywhere(brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListed());
  }

  @Test
  void aCoordinatorResumingFromAPausePastItsSessionNeverAnswersWithItsOldOffsets()
      throws Exception {
    // Given a group with offset 10 committed on a coordinator that is not the active controller
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListedAndOrdersLed());
    TopicPartition tp = new TopicPartition("orders", 0);
    String group = null;
    Node coordinator = null;
    try (Admin admin = admin(cluster.bootstrapServers())) {
      for (int i = 0; coordinator == null; i++) {
        String candidate = "resumed-coordinator-" + i;
        admin
            .alterConsumerGroupOffsets(candidate, Map.of(tp, new OffsetAndMetadata(10)))
            .all()
            .get(30, TimeUnit.SECONDS);
        int id = coordinatorOf(admin, candidate);
        if (id != before.controllerId()) {
          group = candidate;
          coordinator = cluster.node(id);
        }
      }
    }
    String[] hostPort = coordinator.bootstrap().split(":");
    try (RawKafkaClient toOld = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
      toOld.setTimeout(Duration.ofSeconds(60));

      // When it is paused past its session timeout, another node takes the group over and
      // offset 20 is committed there
      coordinator.pause();
      int fetch;
      try {
        awaitWithout(coordinator, others(coordinator), Duration.ofSeconds(30));
        try (Admin admin = admin(bootstrapOf(others(coordinator)))) {
          admin
              .alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(20)))
              .all()
              .get(30, TimeUnit.SECONDS);
          assertThat(coordinatorOf(admin, group)).isNotEqualTo(coordinator.id());
          assertThat(
                  admin
                      .listConsumerGroupOffsets(group)
                      .partitionsToOffsetAndMetadata()
                      .get(30, TimeUnit.SECONDS)
                      .get(tp)
                      .offset())
              .isEqualTo(20);
        }
        // And a fetch of the offsets waits in the frozen node's socket for it to resume
        fetch =
            toOld.sendOnly(
                new OffsetFetchRequestData()
                    .setRequireStable(true)
                    .setGroups(
                        List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId(group)
                                .setTopics(
                                    List.of(
                                        new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                            .setName(tp.topic())
                                            .setPartitionIndexes(List.of(tp.partition())))))),
                OFFSET_FETCH_VERSION);
      } finally {
        coordinator.resume();
      }

      // Then the resumed node, which has not yet learned that it lost the group, sends its
      // client elsewhere instead of answering with offset 10
      OffsetFetchResponseData answer =
          new OffsetFetchResponseData(
              new ByteBufferAccessor(
                  toOld.receive(ApiKeys.OFFSET_FETCH, OFFSET_FETCH_VERSION, fetch)),
              OFFSET_FETCH_VERSION);
      OffsetFetchResponseData.OffsetFetchResponseGroup fetched = answer.groups().get(0);
      String outcome =
          fetched.errorCode() != Errors.NONE.code()
              ? Errors.forCode(fetched.errorCode()).name()
              : Long.toString(fetched.topics().get(0).partitions().get(0).committedOffset());
      System.out.println("OffsetFetch answered by the resumed coordinator: " + outcome);
      assertThat(outcome).isIn(Errors.NOT_COORDINATOR.name(), "20");
    }
    awaitSameEverywhere(brokers(cluster.nodes()), Duration.ofSeconds(30), allThreeListed());
  }

  private static final short OFFSET_FETCH_VERSION = 8;

  private static int coordinatorOf(Admin admin, String group) throws Exception {
    return admin
        .describeConsumerGroups(List.of(group))
        .all()
        .get(10, TimeUnit.SECONDS)
        .get(group)
        .coordinator()
        .id();
  }

  private static String bootstrapOf(List<Node> nodes) {
    return String.join(",", nodes.stream().map(Node::bootstrap).toList());
  }

  private static ServedMetadata awaitWithout(Node victim, List<Node> survivors, Duration within) {
    await("broker " + victim.id() + " fenced in every survivor's metadata")
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                survivors.stream()
                    .map(n -> ServedMetadata.from(n.bootstrap()))
                    .allMatch(
                        m ->
                            !m.brokers().containsKey(victim.id())
                                && !m.leaders().containsValue(victim.id())));
    return awaitSameEverywhere(
        brokers(survivors),
        Duration.ofSeconds(5),
        m -> assertThat(m.brokers()).doesNotContainKey(victim.id()));
  }

  /** Every broker listed and every partition of the topic led (it is created in the setup). */
  private static Consumer<ServedMetadata> allThreeListedAndOrdersLed() {
    return m -> {
      assertThat(m.brokers()).containsOnlyKeys(1, 2, 3);
      // Only the topic's: a test that uses a group adds __consumer_offsets.
      Map<String, Integer> orders = new java.util.TreeMap<>(m.leaders());
      orders.keySet().removeIf(tp -> !tp.startsWith("orders-"));
      assertThat(orders).hasSize(12).allSatisfy((tp, leader) -> assertThat(leader).isPositive());
    };
  }

  private static Consumer<ServedMetadata> allThreeListed() {
    return m -> assertThat(m.brokers()).containsOnlyKeys(1, 2, 3);
  }

  private static Node leaderOtherThanController(ServedMetadata metadata) {
    return cluster.nodes().stream()
        .filter(n -> n.id() != metadata.controllerId())
        .filter(n -> metadata.leaders().containsValue(n.id()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no broker but the controller leads: " + metadata));
  }

  private static List<Node> others(Node victim) {
    return cluster.nodes().stream().filter(n -> n != victim).toList();
  }
}
