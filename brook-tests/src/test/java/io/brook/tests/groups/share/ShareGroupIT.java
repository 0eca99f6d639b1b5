package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Share groups (KIP-932) with kafka-clients' own {@link KafkaShareConsumer}: many consumers share
 * partitions and every record is acknowledged once; records a consumer gives back, or holds until
 * it leaves, go to others with their delivery count; rejected records never come back; a record
 * released every time is archived at the delivery-count limit while the records behind it flow. One
 * broker for the class, a short acquisition lock, no sleeps.
 */
class ShareGroupIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("offsets.topic.num.partitions", "2")
              .config("group.share.record.lock.duration.ms", "2000")
              .config("group.share.heartbeat.interval.ms", "500")
              .config("brook.share.auto.offset.reset", "earliest"));

  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private static Admin admin;

  @BeforeAll
  static void admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    admin = Admin.create(props);
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  private static KafkaShareConsumer<String, String> consumer(String group) {
    Properties props = new Properties();
    props.put("bootstrap.servers", BROOK.bootstrapServers());
    props.put("group.id", group);
    props.put("share.acknowledgement.mode", "explicit");
    props.put("max.poll.records", "100");
    return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
  }

  private static void produce(String topic, List<String> keys) {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "linger.ms", "5")) {
      for (String key : keys) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, bytes, bytes));
      }
      producer.flush();
    }
  }

  /** The keys whose acknowledgements the broker confirmed. */
  private static List<String> commit(
      KafkaShareConsumer<String, String> consumer, List<ConsumerRecord<String, String>> acked) {
    Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
    List<String> confirmed = new ArrayList<>();
    for (ConsumerRecord<String, String> r : acked) {
      boolean ok =
          result.entrySet().stream()
              .anyMatch(
                  e ->
                      e.getKey().topic().equals(r.topic())
                          && e.getKey().partition() == r.partition()
                          && e.getValue().isEmpty());
      if (ok) {
        confirmed.add(r.key());
      }
    }
    return confirmed;
  }

  @Test
  void eightConsumersShareThreePartitionsAndAcknowledgeEachRecordOnce() throws Exception {
    String topic = "share-orders";
    String group = "share-orders-group";
    int records = 100_000;
    int consumers = 8;
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 3);
    Map<String, AtomicInteger> acknowledged = new ConcurrentHashMap<>();
    Map<Integer, AtomicInteger> perConsumer = new ConcurrentHashMap<>();
    AtomicInteger total = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(consumers);
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      int id = i;
      perConsumer.put(id, new AtomicInteger());
      running.add(
          pool.submit(
              () -> {
                try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
                  consumer.subscribe(List.of(topic));
                  while (!stop.get()) {
                    List<ConsumerRecord<String, String>> batch = new ArrayList<>();
                    consumer.poll(POLL).forEach(batch::add);
                    if (batch.isEmpty()) {
                      continue;
                    }
                    batch.forEach(r -> consumer.acknowledge(r, AcknowledgeType.ACCEPT));
                    for (String key : commit(consumer, batch)) {
                      acknowledged.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                      perConsumer.get(id).incrementAndGet();
                      total.incrementAndGet();
                    }
                  }
                }
                return null;
              }));
    }
    try {
      // Admin sees the share group with all its members before the records arrive.
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                ShareGroupDescription d =
                    admin.describeShareGroups(List.of(group)).all().get().get(group);
                return d.members().size() == consumers && d.groupState() == GroupState.STABLE;
              });
      assertThat(
              admin
                  .listGroups(new ListGroupsOptions().withTypes(Set.of(GroupType.SHARE)))
                  .all()
                  .get()
                  .stream()
                  .map(GroupListing::groupId))
          .contains(group);
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < records; i++) {
        keys.add("k-" + i);
      }
      produce(topic, keys);
      await().atMost(TIMEOUT).until(() -> total.get() >= records);
      stop.set(true);
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(acknowledged).hasSize(records);
    assertThat(acknowledged.values()).allMatch(c -> c.get() == 1);
    assertThat(total.get()).isEqualTo(records);
    assertThat(perConsumer.values()).allMatch(c -> c.get() > 0);

    // All members left: the group is empty, and DeleteGroups removes it.
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                admin.describeShareGroups(List.of(group)).all().get().get(group).groupState()
                    == GroupState.EMPTY);
    admin.deleteShareGroups(List.of(group)).all().get();
    assertThat(
            admin
                .listGroups(new ListGroupsOptions().withTypes(Set.of(GroupType.SHARE)))
                .all()
                .get()
                .stream()
                .map(GroupListing::groupId))
        .doesNotContain(group);
  }

  /** Polls until {@code done} holds for what was received, acknowledging with {@code ack}. */
  private static List<ConsumerRecord<String, String>> pollUntil(
      KafkaShareConsumer<String, String> consumer,
      java.util.function.Function<ConsumerRecord<String, String>, AcknowledgeType> ack,
      Predicate<List<ConsumerRecord<String, String>>> done) {
    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ZERO)
        .until(
            () -> {
              List<ConsumerRecord<String, String>> batch = new ArrayList<>();
              consumer.poll(POLL).forEach(batch::add);
              if (ack != null && !batch.isEmpty()) {
                batch.forEach(r -> consumer.acknowledge(r, ack.apply(r)));
                consumer.commitSync();
              }
              received.addAll(batch);
              return done.test(received);
            });
    return received;
  }

  @Test
  void recordsHeldByAConsumerThatLeavesGoToAnotherWithDeliveryCountTwo() throws Exception {
    String topic = "share-redeliver";
    String group = "share-redeliver-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      keys.add("r-" + i);
    }
    produce(topic, keys);
    Set<String> heldByFirst = new HashSet<>();
    try (KafkaShareConsumer<String, String> first = consumer(group)) {
      first.subscribe(List.of(topic));
      pollUntil(first, null, got -> !got.isEmpty())
          .forEach(
              r -> {
                assertThat(r.deliveryCount()).contains((short) 1);
                heldByFirst.add(r.key());
              });
      // Closes without acknowledging anything.
    }
    Map<String, Short> counts = new ConcurrentHashMap<>();
    try (KafkaShareConsumer<String, String> second = consumer(group)) {
      second.subscribe(List.of(topic));
      pollUntil(
          second,
          r -> {
            counts.put(r.key(), r.deliveryCount().orElseThrow());
            return AcknowledgeType.ACCEPT;
          },
          got -> counts.size() == keys.size());
    }
    assertThat(heldByFirst).isNotEmpty();
    for (String key : keys) {
      assertThat(counts.get(key))
          .as("delivery count of %s", key)
          .isEqualTo(heldByFirst.contains(key) ? (short) 2 : (short) 1);
    }
  }

  @Test
  void recordsHeldByAConsumerProcessKilledWithoutAcknowledgingGoToAnotherWithDeliveryCountTwo()
      throws Exception {
    String topic = "share-killed";
    String group = "share-killed-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      keys.add("k-" + i);
    }
    produce(topic, keys);
    Path dir = Files.createTempDirectory("share-child");
    Path out = dir.resolve("held.txt");
    // Given a member in another JVM that was given records and holds them
    Process child =
        new ProcessBuilder(
                ChildProcess.javaCommand(
                    ShareChildMain.class.getName(),
                    BROOK.bootstrapServers(),
                    topic,
                    group,
                    out.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    Set<String> held = new HashSet<>();
    try {
      await().atMost(TIMEOUT).until(() -> Files.exists(out));
      for (String line : Files.readAllLines(out)) {
        if (line.startsWith("R ")) {
          String[] parts = line.split(" ");
          assertThat(parts[2]).as("first delivery of %s", parts[1]).isEqualTo("1");
          held.add(parts[1]);
        }
      }
      // When it is SIGKILLed without acknowledging anything
      child.toHandle().destroyForcibly();
      child.waitFor();
    } finally {
      child.toHandle().destroyForcibly();
    }
    // Then another member gets every record, those the killed one held for the second time
    Map<String, Short> counts = new ConcurrentHashMap<>();
    try (KafkaShareConsumer<String, String> other = consumer(group)) {
      other.subscribe(List.of(topic));
      pollUntil(
          other,
          r -> {
            assertThat(counts.put(r.key(), r.deliveryCount().orElseThrow()))
                .as("%s delivered again after it was accepted", r.key())
                .isNull();
            return AcknowledgeType.ACCEPT;
          },
          got -> counts.size() == keys.size());
    }
    assertThat(held).isNotEmpty();
    for (String key : keys) {
      assertThat(counts.get(key))
          .as("delivery count of %s", key)
          .isEqualTo(held.contains(key) ? (short) 2 : (short) 1);
    }
  }

  @Test
  void rejectedRecordsAreNeverDeliveredAgain() throws Exception {
    String topic = "share-reject";
    String group = "share-reject-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add("x-" + i);
    }
    produce(topic, keys);
    Set<String> rejected = new HashSet<>();
    try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      Set<String> seen = new HashSet<>();
      pollUntil(
          consumer,
          r -> {
            seen.add(r.key());
            if (Integer.parseInt(r.key().substring(2)) % 2 == 0) {
              rejected.add(r.key());
              return AcknowledgeType.REJECT;
            }
            return AcknowledgeType.ACCEPT;
          },
          got -> seen.size() == keys.size());
    }
    // Another consumer of the group, past the lock duration, sees only what comes after.
    produce(topic, List.of("end"));
    try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> got =
          pollUntil(
              consumer,
              r -> AcknowledgeType.ACCEPT,
              all -> all.stream().anyMatch(r -> r.key().equals("end")));
      assertThat(got).extracting(ConsumerRecord::key).containsExactly("end");
    }
    assertThat(rejected).hasSize(20);
  }

  @Test
  void aRecordReleasedEveryTimeIsArchivedAtTheDeliveryLimitAndOthersKeepFlowing() throws Exception {
    String topic = "share-poison";
    String group = "share-poison-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    List<String> keys = new ArrayList<>();
    keys.add("poison");
    for (int i = 0; i < 10; i++) {
      keys.add("ok-" + i);
    }
    produce(topic, keys);
    List<Short> poisonDeliveries = new ArrayList<>();
    Set<String> accepted = new HashSet<>();
    try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      pollUntil(
          consumer,
          r -> {
            if (r.key().equals("poison")) {
              poisonDeliveries.add(r.deliveryCount().orElseThrow());
              return AcknowledgeType.RELEASE;
            }
            accepted.add(r.key());
            return AcknowledgeType.ACCEPT;
          },
          got -> accepted.size() == 10 && poisonDeliveries.size() >= 5);
      // Archived after its fifth delivery: what comes next is delivered, the poison never again.
      produce(topic, List.of("after"));
      List<ConsumerRecord<String, String>> later =
          pollUntil(
              consumer,
              r -> AcknowledgeType.ACCEPT,
              all -> all.stream().anyMatch(r -> r.key().equals("after")));
      assertThat(later).extracting(ConsumerRecord::key).containsExactly("after");
    }
    assertThat(poisonDeliveries)
        .containsExactly((short) 1, (short) 2, (short) 3, (short) 4, (short) 5);
  }
}
