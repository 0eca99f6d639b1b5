package io.brook.tests.groups.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classic group protocol with real kafka-clients consumers ({@code group.protocol=classic}):
 * sharing partitions, a member killed with SIGKILL, cooperative-sticky scaling, static membership
 * and a broker restart.
 */
class ClassicGroupIT {
  private static final String TOPIC = "orders";
  private static final int PARTITIONS = 12;
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dataDir;
  private EmbeddedBrook brook;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "3")
            .config("group.initial.rebalance.delay.ms", "0")
            .start();
    TestClients.createTopic(brook.bootstrapServers(), TOPIC, PARTITIONS);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    brook.close();
  }

  private GroupMember member(String name, String group, String... overrides) {
    List<String> config = new ArrayList<>(List.of("group.id", group));
    config.addAll(List.of("session.timeout.ms", Long.toString(SESSION_TIMEOUT.toMillis())));
    config.addAll(List.of(overrides));
    GroupMember member =
        new GroupMember(name, brook.bootstrapServers(), TOPIC, config.toArray(String[]::new));
    closeables.add(member);
    return member;
  }

  /** Produces until stopped, remembering every acknowledged record as "partition:offset". */
  private static final class Traffic implements AutoCloseable {
    final Set<String> produced = ConcurrentHashMap.newKeySet();
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Exception failure;

    Traffic(String bootstrap) {
      producer = TestClients.producer(bootstrap);
      thread =
          new Thread(
              () -> {
                // One record at a time (acks=all): the pace of the broker, not a busy loop.
                for (long seq = 0; running; seq++) {
                  byte[] key = Long.toString(seq).getBytes();
                  try {
                    var md =
                        producer
                            .send(new ProducerRecord<>(TOPIC, (int) (seq % PARTITIONS), key, key))
                            .get();
                    produced.add(md.partition() + ":" + md.offset());
                  } catch (Exception e) {
                    failure = e;
                    return;
                  }
                }
              },
              "traffic");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join(30_000);
      producer.close();
    }
  }

  private static Set<TopicPartition> allPartitions() {
    Set<TopicPartition> all = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      all.add(new TopicPartition(TOPIC, p));
    }
    return all;
  }

  private static void assertOneOwnerPerGeneration(List<GroupMember.Assignment> assignments) {
    Map<Integer, Map<TopicPartition, String>> owners = new HashMap<>();
    for (GroupMember.Assignment a : assignments) {
      Map<TopicPartition, String> byPartition =
          owners.computeIfAbsent(a.generation(), g -> new HashMap<>());
      for (TopicPartition tp : a.partitions()) {
        String previous = byPartition.putIfAbsent(tp, a.name());
        assertThat(previous == null || previous.equals(a.name()))
            .as("%s owned by %s and %s in generation %d", tp, previous, a.name(), a.generation())
            .isTrue();
      }
    }
  }

  @Test
  void threeMembersShareTwelvePartitionsAndTakeOverFromAKilledOne() throws Exception {
    // Given two members here and one in a child JVM, with a producer running
    Path childOut = dataDir.resolve("child.out");
    Process child =
        new ProcessBuilder(
                javaCommand(
                    ChildMemberMain.class.getName(),
                    brook.bootstrapServers(),
                    TOPIC,
                    "billing",
                    childOut.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dataDir.resolve("child.log").toFile())
            .start();
    closeables.add(() -> child.toHandle().destroyForcibly());
    Traffic traffic = new Traffic(brook.bootstrapServers());
    closeables.add(traffic);
    GroupMember a = member("a", "billing");
    GroupMember b = member("b", "billing");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                a.current().size() + b.current().size() == 8
                    && childAssignment(childOut).size() == 4
                    && a.generation() == b.generation());
    // When the child is killed without leaving
    await().atMost(Duration.ofSeconds(30)).until(() -> childRecords(childOut).size() > 50);
    child.toHandle().destroyForcibly(); // SIGKILL
    child.waitFor();
    long killedAt = System.nanoTime();
    // Then the two others own all twelve partitions within the session timeout
    await()
        .atMost(SESSION_TIMEOUT)
        .until(
            () -> {
              Set<TopicPartition> owned = new HashSet<>(a.current());
              owned.addAll(b.current());
              return owned.equals(allPartitions()) && a.generation() == b.generation();
            });
    long takeoverMs = (System.nanoTime() - killedAt) / 1_000_000;
    assertThat(takeoverMs).as("take-over time").isLessThan(SESSION_TIMEOUT.toMillis());
    // And nothing produced is skipped
    int producedAtTakeover = traffic.produced.size();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> traffic.produced.size() > producedAtTakeover + 500);
    traffic.close();
    Set<String> consumed = new HashSet<>(childRecords(childOut));
    assertThat(traffic.failure).isNull();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Set<String> missing = new HashSet<>(traffic.produced);
              missing.removeAll(consumed);
              missing.removeAll(a.consumed);
              missing.removeAll(b.consumed);
              return missing.isEmpty();
            });
    List<GroupMember.Assignment> history = new ArrayList<>(a.assignments);
    history.addAll(b.assignments);
    history.addAll(childAssignments(childOut));
    assertOneOwnerPerGeneration(history);
    assertThat(a.failure()).isNull();
    assertThat(b.failure()).isNull();
  }

  private static List<String> javaCommand(String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-Dlog4j2.configurationFile=log4j2-child.properties");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  private static List<String> childRecords(Path file) throws IOException {
    return lines(file).stream().filter(l -> l.startsWith("R ")).map(l -> l.substring(2)).toList();
  }

  private static List<GroupMember.Assignment> childAssignments(Path file) throws IOException {
    List<GroupMember.Assignment> out = new ArrayList<>();
    for (String line : lines(file)) {
      if (line.startsWith("A ")) {
        String[] parts = line.split(" ");
        Set<TopicPartition> owned = new HashSet<>();
        if (parts.length > 2) {
          for (String p : parts[2].split(",")) {
            owned.add(new TopicPartition(TOPIC, Integer.parseInt(p)));
          }
        }
        out.add(new GroupMember.Assignment("child", Integer.parseInt(parts[1]), owned));
      }
    }
    return out;
  }

  private static Set<TopicPartition> childAssignment(Path file) throws IOException {
    List<GroupMember.Assignment> all = childAssignments(file);
    return all.isEmpty() ? Set.of() : all.get(all.size() - 1).partitions();
  }

  @Test
  void cooperativeStickyScaleOutAndBackKeepsPartitionsThatDoNotMove() {
    String[] sticky = {
      "partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
    };
    // Given one member with all twelve partitions
    GroupMember first = member("first", "search", sticky);
    await().atMost(Duration.ofSeconds(30)).until(() -> first.current().size() == PARTITIONS);
    // When three more join
    List<GroupMember> others = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      others.add(member("m" + i, "search", sticky));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                first.current().size() == 3
                    && others.stream().allMatch(m -> m.current().size() == 3));
    // Then the first member gave up only the nine partitions that moved
    assertThat(first.revoked).hasSize(9).doesNotContainAnyElementsOf(first.current());
    Set<TopicPartition> kept = first.current();
    // When the three leave again
    for (GroupMember m : others) {
      m.close();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> first.current().size() == PARTITIONS);
    // Then nothing it kept was ever revoked
    assertThat(first.revoked).hasSize(9).doesNotContainAnyElementsOf(kept);
    List<GroupMember.Assignment> history = new ArrayList<>(first.assignments);
    others.forEach(m -> history.addAll(m.assignments));
    assertOneOwnerPerGeneration(history);
  }

  @Test
  void staticMemberRestartWithinTheSessionTimeoutGetsItsAssignmentBack() {
    // Given two static members in a stable group
    GroupMember one = member("one", "ledger", "group.instance.id", "pod-1");
    GroupMember two = member("two", "ledger", "group.instance.id", "pod-2");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                one.current().size() == 6
                    && two.current().size() == 6
                    && one.generation() == two.generation());
    int generation = one.generation();
    // One assignment when both joined within the initial rebalance delay, two when pod-2 came
    // later (a loaded machine): either way, none may follow the restart.
    int assignmentsBeforeRestart = one.assignments.size();
    Set<TopicPartition> twoOwned = two.current();
    String oldMemberId = two.memberId();
    // When pod-2 restarts (a static member does not leave on close)
    two.close();
    GroupMember restarted = member("two-again", "ledger", "group.instance.id", "pod-2");
    // Then it gets the same partitions in the same generation, and nobody rebalanced
    await().atMost(SESSION_TIMEOUT).until(() -> !restarted.current().isEmpty());
    assertThat(restarted.current()).isEqualTo(twoOwned);
    assertThat(restarted.generation()).isEqualTo(generation);
    assertThat(restarted.memberId()).isNotEqualTo(oldMemberId);
    assertThat(one.generation()).isEqualTo(generation);
    assertThat(one.assignments).hasSize(assignmentsBeforeRestart);
  }

  @Test
  void brokerRestartKeepsCommittedOffsetsAndMembership() throws Exception {
    // Given a stable group of two that committed offsets
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 120; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, new byte[] {1}));
      }
    }
    GroupMember x = member("x", "audit", "session.timeout.ms", "45000");
    GroupMember y = member("y", "audit", "session.timeout.ms", "45000");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Set<String> all = new HashSet<>(x.consumed);
              all.addAll(y.consumed);
              return all.size() == 120
                  && x.generation() == y.generation()
                  && x.current().size() + y.current().size() == PARTITIONS;
            });
    ConsumerGroupDescription before;
    Map<TopicPartition, OffsetAndMetadata> offsetsBefore;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                          .listConsumerGroupOffsets("audit")
                          .partitionsToOffsetAndMetadata()
                          .get()
                          .size()
                      == PARTITIONS);
      before = admin.describeConsumerGroups(List.of("audit")).all().get().get("audit");
      offsetsBefore = admin.listConsumerGroupOffsets("audit").partitionsToOffsetAndMetadata().get();
    }
    // When the broker restarts
    brook.restart();
    // Then the group comes back with its members, assignment and offsets
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      ConsumerGroupDescription after =
          admin.describeConsumerGroups(List.of("audit")).all().get().get("audit");
      assertThat(after.groupState()).isEqualTo(GroupState.STABLE);
      assertThat(memberAssignments(after)).isEqualTo(memberAssignments(before));
      assertThat(admin.listConsumerGroupOffsets("audit").partitionsToOffsetAndMetadata().get())
          .isEqualTo(offsetsBefore);
    }
  }

  private static Map<String, Set<TopicPartition>> memberAssignments(ConsumerGroupDescription d) {
    Map<String, Set<TopicPartition>> out = new HashMap<>();
    for (MemberDescription m : d.members()) {
      out.put(m.consumerId(), m.assignment().topicPartitions());
    }
    return out;
  }
}
