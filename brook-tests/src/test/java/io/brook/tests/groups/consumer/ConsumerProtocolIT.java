package io.brook.tests.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real kafka-clients consumers with {@code group.protocol=consumer} (KIP-848) against Brook: they
 * share a topic's partitions with one owner each, take over from a member killed with SIGKILL
 * without skipping a record, and scale out and back in while a producer keeps writing.
 */
class ConsumerProtocolIT {
  private static final String TOPIC = "payments";
  private static final int PARTITIONS = 12;

  @TempDir Path dataDir;
  private EmbeddedBrook brook;
  private final GroupLedger ledger = new GroupLedger();
  private final List<GroupMember> members = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean producing = new AtomicBoolean(true);
  private final AtomicInteger produced = new AtomicInteger();
  private Thread producer;
  private Process child;

  @BeforeEach
  void start(TestInfo test) throws Exception {
    // The test that waits for silent members to be removed waits out their session: a shorter one
    // there, still long enough for it to describe the group loaded after the restart before the
    // members expire. The others keep 15 s, which their bounds (a takeover well within it) use.
    boolean waitsOutSessions =
        test.getTestMethod()
            .map(
                m ->
                    m.getName().equals("membershipComesBackFromConsumerOffsetsAfterABrokerRestart"))
            .orElse(false);
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "3")
            .config("group.consumer.min.session.timeout.ms", waitsOutSessions ? "5000" : "10000")
            .config("group.consumer.session.timeout.ms", waitsOutSessions ? "8000" : "15000")
            .config("group.consumer.min.heartbeat.interval.ms", "1000")
            .config("group.consumer.heartbeat.interval.ms", "1000")
            .start();
    TestClients.createTopic(brook.bootstrapServers(), TOPIC, PARTITIONS);
    producer = new Thread(this::produce, "payments-producer");
    producer.start();
  }

  @AfterEach
  void stop() throws Exception {
    if (child != null) {
      child.destroyForcibly().waitFor();
    }
    producing.set(false);
    members.forEach(GroupMember::stop);
    for (Thread t : threads) {
      t.join(30_000);
    }
    producer.join(30_000);
    brook.close();
  }

  /** Sends sequence numbers round-robin over the partitions, one acknowledged send at a time. */
  private void produce() {
    try (KafkaProducer<byte[], byte[]> p = TestClients.producer(brook.bootstrapServers())) {
      for (int seq = 0; producing.get(); seq++) {
        p.send(
                new ProducerRecord<>(
                    TOPIC,
                    seq % PARTITIONS,
                    null,
                    Integer.toString(seq).getBytes(StandardCharsets.UTF_8)))
            .get();
        produced.incrementAndGet();
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private GroupMember startMember(String group, String name) {
    return startMember(new GroupMember(name, brook.bootstrapServers(), group, TOPIC, ledger));
  }

  private GroupMember startMember(GroupMember member) {
    String name = member.name();
    Thread thread = new Thread(member, name);
    members.add(member);
    threads.add(thread);
    thread.start();
    return member;
  }

  private void stopMember(GroupMember member) throws InterruptedException {
    member.stop();
    threads.get(members.indexOf(member)).join(30_000);
  }

  /**
   * Awaits a condition on the group; describing it fails with GROUP_ID_NOT_FOUND until the first
   * member's join created it.
   */
  private static ConditionFactory awaitGroup() {
    return await().ignoreExceptionsInstanceOf(ExecutionException.class);
  }

  private ConsumerGroupDescription describe(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      return admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    }
  }

  /** The coordinator's view: every member's assignment, no partition twice. */
  private static List<Set<TopicPartition>> assignments(ConsumerGroupDescription description) {
    List<Set<TopicPartition>> out = new ArrayList<>();
    for (MemberDescription member : description.members()) {
      out.add(member.assignment().topicPartitions());
    }
    long total = out.stream().mapToLong(Set::size).sum();
    long distinct = out.stream().flatMap(Set::stream).distinct().count();
    assertThat(distinct).as("a partition assigned to two members: %s", out).isEqualTo(total);
    return out;
  }

  /** Stops the producer and waits until the group processed every record it wrote. */
  private void assertNothingSkipped() throws Exception {
    producing.set(false);
    producer.join(30_000);
    Map<TopicPartition, Long> ends =
        TestClients.endOffsets(brook.bootstrapServers(), TOPIC, PARTITIONS);
    assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(produced.get());
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                assertThat(ledger.firstMissing(end.getKey().partition(), end.getValue()))
                    .as("first offset never processed in %s", end.getKey())
                    .isEqualTo(-1L);
              }
            });
    assertThat(ledger.violations()).isEmpty();
  }

  @Test
  void threeMembersShareTwelvePartitionsAndTakeOverFromAKilledOne() throws Exception {
    // Given: two members here and one in a child JVM
    String group = "settlement";
    startMember(group, "member-a");
    startMember(group, "member-b");
    child = startChildMember(group, "member-killed");
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ConsumerGroupDescription d = describe(group);
              assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
              assertThat(assignments(d)).hasSize(3).allSatisfy(a -> assertThat(a).hasSize(4));
              assertThat(ledger.ownedBy("member-a") + ledger.ownedBy("member-b")).isEqualTo(8);
            });

    Set<TopicPartition> survivors = new java.util.HashSet<>(ledger.partitionsOf("member-a"));
    survivors.addAll(ledger.partitionsOf("member-b"));
    Set<TopicPartition> victims =
        new java.util.HashSet<>(TestClients.partitions(TOPIC, PARTITIONS));
    victims.removeAll(survivors);
    awaitGroup()
        .atMost(Duration.ofSeconds(30))
        .until(() -> committed(group).keySet().containsAll(victims));

    // When: the child is killed with SIGKILL, so it neither commits nor leaves
    child.destroyForcibly().waitFor();
    long killedAt = System.nanoTime();
    Map<TopicPartition, Long> committedAtKill = committed(group);

    // Then: the survivors own all twelve well within the session timeout
    awaitGroup()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              assertThat(ledger.ownedBy("member-a")).isEqualTo(6);
              assertThat(ledger.ownedBy("member-b")).isEqualTo(6);
            });
    Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
    assertThat(describe(group).members()).hasSize(2);
    assertThat(takeover).isLessThan(Duration.ofSeconds(15));

    // And: they resume the killed member's partitions exactly at its last committed offsets
    awaitGroup()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (TopicPartition tp : victims) {
                assertThat(ledger.firstOffsetAfterAssignment(tp))
                    .as("first offset processed in %s after the takeover", tp)
                    .isEqualTo(committedAtKill.get(tp));
              }
            });
    assertNothingSkipped();
  }

  private Map<TopicPartition, Long> committed(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      Map<TopicPartition, Long> out = new java.util.HashMap<>();
      admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get()
          .forEach((tp, o) -> out.put(tp, o.offset()));
      return out;
    }
  }

  @Test
  void scalesFromOneToFourMembersAndBackKeepingPartitionsThatDoNotMove() throws Exception {
    // Given
    String group = "search-indexer";
    GroupMember first = startMember(group, "member-1");
    await().atMost(Duration.ofSeconds(30)).until(() -> ledger.ownedBy("member-1") == PARTITIONS);

    // When: three more join
    List<GroupMember> added = new ArrayList<>();
    for (int i = 2; i <= 4; i++) {
      added.add(startMember(group, "member-" + i));
    }

    // Then: three partitions each, the first keeping three of its own
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (int i = 1; i <= 4; i++) {
                assertThat(ledger.ownedBy("member-" + i)).as("member-%d", i).isEqualTo(3);
              }
              assertThat(assignments(describe(group))).hasSize(4);
            });
    Set<TopicPartition> kept = ledger.partitionsOf("member-1");
    assertToolsSeeTheGroup(group, 4);

    // When: they leave again
    for (GroupMember member : added) {
      stopMember(member);
    }

    // Then: the first owns everything again, never having lost what it kept
    await().atMost(Duration.ofSeconds(30)).until(() -> ledger.ownedBy("member-1") == PARTITIONS);
    assertThat(ledger.partitionsOf("member-1")).containsAll(kept);
    assertThat(assignments(describe(group))).hasSize(1);
    assertThat(first.name()).isEqualTo("member-1");
    assertToolsSeeTheGroup(group, 1);
    assertNothingSkipped();
  }

  @Test
  void aStaticMemberRestartingWithinTheSessionTimeoutGetsItsPartitionsBackWithoutARebalance()
      throws Exception {
    // Given: two static members
    String group = "ledger-writer";
    GroupMember restarting =
        startMember(
            new GroupMember("pod-1", brook.bootstrapServers(), group, TOPIC, ledger)
                .withInstanceId("pod-1"));
    startMember(
        new GroupMember("pod-2", brook.bootstrapServers(), group, TOPIC, ledger)
            .withInstanceId("pod-2"));
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(ledger.ownedBy("pod-1")).isEqualTo(6);
              assertThat(ledger.ownedBy("pod-2")).isEqualTo(6);
              assertThat(describe(group).groupState()).isEqualTo(GroupState.STABLE);
            });
    Set<TopicPartition> before = ledger.partitionsOf("pod-1");
    int epochBefore = describe(group).groupEpoch().orElseThrow();

    // When: pod-1 closes (a static member leaves with epoch -2) and a new process takes its place
    stopMember(restarting);
    startMember(
        new GroupMember("pod-1-restarted", brook.bootstrapServers(), group, TOPIC, ledger)
            .withInstanceId("pod-1"));

    // Then: same partitions, same group epoch; pod-2 never lost anything
    awaitGroup()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(ledger.partitionsOf("pod-1-restarted")).isEqualTo(before));
    assertThat(describe(group).groupEpoch().orElseThrow()).isEqualTo(epochBefore);
    assertThat(ledger.ownedBy("pod-2")).isEqualTo(6);
    assertNothingSkipped();
  }

  @Test
  void membershipComesBackFromConsumerOffsetsAfterABrokerRestart() throws Exception {
    // Given: a stable group of two
    String group = "audit";
    GroupMember one = startMember(group, "member-1");
    GroupMember two = startMember(group, "member-2");
    // (stable with both members: the group is also stable, at an earlier epoch, with the first
    // member alone, before the second one's join reaches it)
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ConsumerGroupDescription d = describe(group);
              assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
              assertThat(d.members()).hasSize(2);
            });
    ConsumerGroupDescription before = describe(group);
    producing.set(false);
    producer.join(30_000);

    // When: the broker restarts (on a new port, so the members cannot follow it)
    brook.restart();

    // Then: the loaded group has the same members, epochs and assignments
    ConsumerGroupDescription after = describe(group);
    assertThat(after.groupEpoch()).isEqualTo(before.groupEpoch());
    assertThat(after.targetAssignmentEpoch()).isEqualTo(before.targetAssignmentEpoch());
    assertThat(memberships(after)).isEqualTo(memberships(before));

    // And: their session timers restarted with the load, so silent members are removed in time
    awaitGroup()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(describe(group).groupState()).isEqualTo(GroupState.EMPTY));
    one.stop(Duration.ofMillis(200));
    two.stop(Duration.ofMillis(200));
  }

  @Test
  void anEmptyClassicGroupSwitchesToTheConsumerProtocolAndKeepsItsOffsets() throws Exception {
    // Given: a classic-protocol consumer that processed and committed some records, then left
    String group = "switching";
    try (KafkaConsumer<byte[], byte[]> classic =
        TestClients.consumer(
            brook.bootstrapServers(), "group.id", group, "auto.offset.reset", "earliest")) {
      classic.subscribe(List.of(TOPIC));
      int processed = 0;
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (processed < 100 && Instant.now().isBefore(deadline)) {
        for (ConsumerRecord<byte[], byte[]> r : classic.poll(Duration.ofMillis(200))) {
          ledger.consumed(r.partition(), r.offset());
          processed++;
        }
        classic.commitSync();
      }
      assertThat(processed).isGreaterThanOrEqualTo(100);
    }
    Map<TopicPartition, Long> committedByClassic = committed(group);

    // When: a consumer-protocol member joins the same group
    startMember(group, "upgraded");

    // Then: the group is now a consumer group, and the member resumes at the classic commits
    awaitGroup()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(ledger.ownedBy("upgraded")).isEqualTo(PARTITIONS);
              for (Map.Entry<TopicPartition, Long> c : committedByClassic.entrySet()) {
                assertThat(ledger.firstOffsetAfterAssignment(c.getKey())).isEqualTo(c.getValue());
              }
            });
    assertThat(describe(group).type()).isEqualTo(GroupType.CONSUMER);
    assertNothingSkipped();
  }

  private static Map<String, Set<TopicPartition>> memberships(ConsumerGroupDescription d) {
    Map<String, Set<TopicPartition>> out = new java.util.HashMap<>();
    d.members().forEach(m -> out.put(m.consumerId(), m.assignment().topicPartitions()));
    return out;
  }

  /** ListGroups and kafka-consumer-groups show the group with its members and partitions. */
  private void assertToolsSeeTheGroup(String group, int memberCount) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      assertThat(admin.listGroups().all().get())
          .anySatisfy(
              listing -> {
                assertThat(listing.groupId()).isEqualTo(group);
                assertThat(listing.type()).contains(GroupType.CONSUMER);
                assertThat(listing.protocol()).isEqualTo("consumer");
              });
    }
    String tool = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    String bootstrap = brook.bootstrapServers();
    assertThat(ToolRun.run(tool, "--bootstrap-server", bootstrap, "--list")).contains(group);
    String members =
        ToolRun.run(
            tool, "--bootstrap-server", bootstrap, "--describe", "--group", group, "--members");
    assertThat(members.lines().filter(l -> l.startsWith(group))).hasSize(memberCount);
    String offsets =
        ToolRun.run(tool, "--bootstrap-server", bootstrap, "--describe", "--group", group);
    assertThat(offsets).contains("LAG");
    assertThat(offsets.lines().filter(l -> l.startsWith(group) && l.contains(TOPIC)))
        .hasSize(PARTITIONS);
  }

  private Process startChildMember(String group, String name) throws Exception {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "-Xmx256m",
            "-Dlog4j2.configurationFile=log4j2-child.properties",
            "-cp",
            System.getProperty("java.class.path"),
            GroupMember.class.getName(),
            brook.bootstrapServers(),
            group,
            TOPIC,
            name);
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  String[] parts = line.split(" ", -1);
                  if (parts[0].equals("consumed")) {
                    ledger.consumed(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
                  }
                }
              } catch (java.io.IOException e) {
                // The child was killed: its output ends here.
              }
            },
            name + "-stdout");
    reader.setDaemon(true);
    reader.start();
    return process;
  }
}
