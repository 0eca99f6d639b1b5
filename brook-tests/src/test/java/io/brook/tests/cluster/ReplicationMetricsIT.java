package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.tools.attach.VirtualMachine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication MBeans of real nodes (separate JVMs), read over JMX through the attach API (the
 * nodes open no JMX port): a stopped follower shows as an under-replicated, at-min-ISR partition
 * and an ISR shrink on its leader; its return as an ISR expand and no under-replicated partition.
 */
class ReplicationMetricsIT {
  private static final String TOPIC = "watched";

  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    // The leader drops a silent follower after 2 s; the controller fences a paused broker (its
    // connections stay open) only after 60 s, so the shrink counted is the leader's (one the
    // controller makes on fencing is not counted).
    cluster =
        ClusterHarness.start(
            dir,
            3,
            Map.of("replica.lag.time.max.ms", "2000", "broker.session.timeout.ms", "60000"));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void leaderCountsAFollowersLossAndReturn() throws Exception {
    // Given a partition on all three nodes, fully in sync
    int leader;
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, TimeUnit.SECONDS);
      await("the ISR holds all three replicas")
          .atMost(Duration.ofSeconds(30))
          .until(() -> isr(admin).size() == 3);
      leader =
          admin
              .describeTopics(List.of(TOPIC))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(TOPIC)
              .partitions()
              .get(0)
              .leader()
              .id();
    }
    int follower = leader % 3 + 1;
    try (JMXConnector jmx = connect(cluster.node(leader).pid())) {
      MBeanServerConnection beans = jmx.getMBeanServerConnection();
      long shrinksBefore = count(beans, "IsrShrinksPerSec");
      long expandsBefore = count(beans, "IsrExpandsPerSec");
      assertThat(gauge(beans, "UnderReplicatedPartitions")).isZero();
      assertThat(gauge(beans, "LeaderCount")).isGreaterThanOrEqualTo(1);
      assertThat(gauge(beans, "PartitionCount")).isGreaterThanOrEqualTo(1);

      // When a follower stops (SIGSTOP) and records keep coming (an idle follower at the leader's
      // log end counts as in sync)
      cluster.node(follower).pause();
      try (KafkaProducer<String, String> producer =
          ClusterClients.producer(cluster.node(leader).bootstrap())) {
        for (int i = 0; i < 10; i++) {
          producer.send(new ProducerRecord<>(TOPIC, "record-" + i)).get(30, TimeUnit.SECONDS);
        }
      }

      // Then its leader drops it from the ISR and says so
      await("the leader reports an under-replicated partition at min ISR")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  gauge(beans, "UnderReplicatedPartitions") == 1
                      && gauge(beans, "AtMinIsrPartitionCount") == 1
                      && count(beans, "IsrShrinksPerSec") == shrinksBefore + 1);
      assertThat(gauge(beans, "UnderMinIsrPartitionCount")).isZero();

      // When it resumes
      cluster.node(follower).resume();

      // Then it rejoins the ISR
      await("the leader reports the follower back in sync")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  gauge(beans, "UnderReplicatedPartitions") == 0
                      && count(beans, "IsrExpandsPerSec") >= expandsBefore + 1);
    }
    try (JMXConnector jmx = connect(cluster.node(follower).pid())) {
      Object maxLag =
          jmx.getMBeanServerConnection()
              .getAttribute(
                  new ObjectName(
                      "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica"),
                  "Value");
      assertThat(((Number) maxLag).longValue()).isGreaterThanOrEqualTo(0);
    }
  }

  private static List<Integer> isr(Admin admin) throws Exception {
    return admin
        .describeTopics(List.of(TOPIC))
        .allTopicNames()
        .get(30, TimeUnit.SECONDS)
        .get(TOPIC)
        .partitions()
        .get(0)
        .isr()
        .stream()
        .map(org.apache.kafka.common.Node::id)
        .toList();
  }

  /**
   * A JMX connection to a local JVM, through its management agent started by attaching. Error
   * Prone's BanJNDI warns of JMX connections to untrusted addresses; this one is the local agent of
   * a node this test launched.
   */
  @SuppressWarnings("BanJNDI")
  private static JMXConnector connect(long pid) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    try {
      String address = vm.startLocalManagementAgent();
      return JMXConnectorFactory.connect(new JMXServiceURL(address));
    } finally {
      vm.detach();
    }
  }

  private static long gauge(MBeanServerConnection beans, String name) throws Exception {
    Object value =
        beans.getAttribute(
            new ObjectName("kafka.server:type=ReplicaManager,name=" + name), "Value");
    return ((Number) value).longValue();
  }

  private static long count(MBeanServerConnection beans, String name) throws Exception {
    return (Long)
        beans.getAttribute(
            new ObjectName("kafka.server:type=ReplicaManager,name=" + name), "Count");
  }
}
