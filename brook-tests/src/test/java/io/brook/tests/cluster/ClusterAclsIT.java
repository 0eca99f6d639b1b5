package io.brook.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's {@code kafka-acls} tool (AclCommand, run as a child JVM) against three combined nodes:
 * ACLs it adds are written to the metadata log by the active controller, whichever node received
 * them, and enforced by every broker; listed from any node; and removed again.
 */
@Timeout(300)
class ClusterAclsIT {
  private static final String TOPIC = "guarded";
  private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("allow.everyone.if.no.acl.found", "true")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ChildProcess.Result acls(int nodeId, String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--bootstrap-server";
    all[1] = cluster.bootstrapServers(nodeId);
    System.arraycopy(args, 0, all, 2, args.length);
    ChildProcess.Result result =
        ChildProcess.run(
            ChildProcess.javaCommand("org.apache.kafka.tools.AclCommand", all), "", TOOL_TIMEOUT);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  @Test
  void kafkaAclsAddListRemoveTakesEffectOnEveryBroker() throws Exception {
    // Given a topic with a partition led by each broker
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                TopicDescription topic =
                    admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                Set<Integer> leaders = new HashSet<>();
                for (TopicPartitionInfo p : topic.partitions()) {
                  leaders.add(p.leader().id());
                }
                assertThat(leaders).containsExactlyInAnyOrder(1, 2, 3);
              });
    }

    // When kafka-acls adds, through different nodes, ACLs that keep the cluster usable and let
    // ANONYMOUS read the topic but not write it
    acls(1, "--add", "--allow-principal", "User:ANONYMOUS", "--operation", "All", "--cluster");
    acls(
        2, "--add", "--allow-principal", "User:ANONYMOUS", "--operation", "Read", "--topic", TOPIC);
    acls(
        3, "--add", "--deny-principal", "User:ANONYMOUS", "--operation", "Write", "--topic", TOPIC);

    // Then kafka-acls lists them through every node
    listedThroughEveryNode(
        listing ->
            assertThat(listing)
                .contains("principal=User:ANONYMOUS")
                .contains("operation=WRITE, permissionType=DENY")
                .contains("operation=READ, permissionType=ALLOW"));
    // and the leader of every partition, one per broker, refuses the write
    for (int partition = 0; partition < 3; partition++) {
      int p = partition;
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> send(p))
                      .hasCauseInstanceOf(TopicAuthorizationException.class));
    }

    // When the deny is removed
    acls(
        1,
        "--remove",
        "--force",
        "--deny-principal",
        "User:ANONYMOUS",
        "--operation",
        "Write",
        "--topic",
        TOPIC);

    // Then no node lists it, and writes are still refused: the topic's remaining ACL (READ)
    // matches it, so allow.everyone.if.no.acl.found no longer applies
    listedThroughEveryNode(
        listing ->
            assertThat(listing)
                .doesNotContain("DENY")
                .contains("operation=READ, permissionType=ALLOW"));
    assertThatThrownBy(() -> send(0)).hasCauseInstanceOf(TopicAuthorizationException.class);

    // When every ACL of the topic is removed
    acls(2, "--remove", "--force", "--topic", TOPIC);

    // Then every node lists only the cluster's ACL and every broker takes writes again
    for (int id : cluster.nodeIds()) {
      try (Admin admin = admin(cluster.bootstrapServers(id))) {
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
                        .extracting(AclBinding::entry)
                        .extracting(e -> e.operation() + "/" + e.permissionType())
                        .containsExactly(AclOperation.ALL + "/" + AclPermissionType.ALLOW));
      }
    }
    for (int partition = 0; partition < 3; partition++) {
      int p = partition;
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> send(p) >= 0);
    }
  }

  /** Checks what {@code kafka-acls --list} prints for the topic, bootstrapped from each node. */
  private static void listedThroughEveryNode(java.util.function.Consumer<String> check) {
    for (int id : cluster.nodeIds()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> check.accept(acls(id, "--list", "--topic", TOPIC).stdout()));
    }
  }

  /** Writes one record to a partition; its offset. */
  private static long send(int partition) throws ExecutionException, InterruptedException {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(cluster.bootstrapServers(), "retries", "0", "max.block.ms", "10000")) {
      return producer
          .send(new ProducerRecord<>(TOPIC, partition, null, new byte[1]))
          .get()
          .offset();
    }
  }

  private static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(props);
  }
}
