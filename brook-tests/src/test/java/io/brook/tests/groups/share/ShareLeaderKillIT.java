package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A share group at work on a cluster of three {@code brook server} processes when the leader of one
 * of its partitions is killed with SIGKILL: four {@link KafkaShareConsumer}s in explicit mode
 * accept records and reject the poison ones (sent to the group's dead-letter topic) while a
 * producer keeps writing. Whatever a consumer was told is acknowledged is never acquired again,
 * every poison record is in the dead-letter topic exactly once and nothing else is, and the group
 * drains: each share-partition's start offset reaches the log end, so every record ended
 * acknowledged or archived.
 *
 * <p>"Never acquired again" is judged by acknowledgements, not deliveries: a consumer hands out
 * what it fetched in the background, and a copy whose acquisition lock expired while its consumer
 * was blocked (a commit can wait out the failover) may reach the application after another consumer
 * acknowledged the record. The cluster refuses to acknowledge such a stale copy; a record whose
 * acknowledgement succeeds a second time was handed out again by the cluster.
 */
@Timeout(300)
class ShareLeaderKillIT {
  private static final String TOPIC = "share-kill";
  private static final String DLQ = "share-kill-dlq";
  private static final String GROUP = "share-kill-group";
  private static final int PARTITIONS = 3;
  private static final int RECORDS = 3_000;
  private static final int CONSUMERS = 4;
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path tmp;

  /** Every 97th record is poison: its consumer rejects it. */
  private static boolean poison(int i) {
    return i % 97 == 0;
  }

  @Test
  void acknowledgedRecordsAreNeverAcquiredAgainAndNothingIsLost() throws Exception {
    try (ClusterHarness cluster =
            ClusterHarness.start(
                tmp,
                3,
                Map.of(
                    "offsets.topic.num.partitions", "3",
                    "share.coordinator.state.topic.num.partitions", "3",
                    "group.share.heartbeat.interval.ms", "500",
                    "group.share.record.lock.duration.ms", "10000",
                    "brook.share.auto.offset.reset", "earliest"));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(TOPIC, PARTITIONS, (short) 3)
                      .configs(Map.of("min.insync.replicas", "2")),
                  new NewTopic(DLQ, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get();
      ShareGroupClients.setGroupConfigs(admin, GROUP, Map.of("brook.share.dlq.topic", DLQ));
      int victim =
          admin
              .describeTopics(List.of(TOPIC))
              .allTopicNames()
              .get()
              .get(TOPIC)
              .partitions()
              .get(0)
              .leader()
              .id();

      // The history of every record, by "partition-offset": a global sequence orders deliveries
      // and confirmed acknowledgements across the consumers' threads.
      AtomicLong clock = new AtomicLong();
      Map<String, Long> confirmedAt = new ConcurrentHashMap<>();
      List<String> violations = new CopyOnWriteArrayList<>();
      Set<String> deliveredKeys = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      List<Throwable> failures = new CopyOnWriteArrayList<>();

      List<Thread> consumers = new ArrayList<>();
      for (int c = 0; c < CONSUMERS; c++) {
        Thread thread =
            new Thread(
                () -> {
                  try (KafkaShareConsumer<String, String> consumer =
                      ShareGroupClients.explicitConsumer(cluster.bootstrapServers(), GROUP)) {
                    consumer.subscribe(List.of(TOPIC));
                    while (!stop.get()) {
                      List<String> polled = new ArrayList<>();
                      Map<Integer, List<String>> byPartition = new HashMap<>();
                      Map<String, String> againAfterConfirmed = new HashMap<>();
                      for (ConsumerRecord<String, String> r :
                          consumer.poll(Duration.ofMillis(200))) {
                        String id = r.partition() + "-" + r.offset();
                        long now = clock.incrementAndGet();
                        Long confirmed = confirmedAt.get(id);
                        if (confirmed != null && confirmed < now) {
                          againAfterConfirmed.put(
                              id,
                              r.key() + ", delivery count " + r.deliveryCount().orElse((short) -1));
                        }
                        deliveredKeys.add(r.key());
                        polled.add(id);
                        byPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(id);
                        int i = Integer.parseInt(r.key().substring(2));
                        consumer.acknowledge(
                            r, poison(i) ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
                      }
                      if (polled.isEmpty()) {
                        continue;
                      }
                      Map<TopicIdPartition, Optional<KafkaException>> results;
                      try {
                        results = consumer.commitSync(Duration.ofSeconds(30));
                      } catch (KafkaException e) {
                        continue; // nothing confirmed: these records may come back
                      }
                      long confirmed = clock.incrementAndGet();
                      results.forEach(
                          (tp, error) -> {
                            if (error.isPresent()) {
                              return;
                            }
                            for (String id : byPartition.getOrDefault(tp.partition(), List.of())) {
                              String again = againAfterConfirmed.get(id);
                              if (again != null) {
                                violations.add(
                                    id
                                        + " ("
                                        + again
                                        + ") acquired and acknowledged again after its"
                                        + " acknowledgement was confirmed");
                              } else {
                                confirmedAt.putIfAbsent(id, confirmed);
                              }
                            }
                          });
                    }
                  } catch (Throwable t) {
                    failures.add(t);
                  }
                },
                "share-consumer-" + c);
        thread.start();
        consumers.add(thread);
      }

      // A producer writes the records while the group consumes; the leader of partition 0 is
      // killed once a third of them are confirmed acknowledged.
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers(), "linger.ms", "5")) {
        boolean killed = false;
        for (int i = 0; i < RECORDS; i++) {
          String key = "k-" + i;
          sent.add(
              producer.send(
                  new ProducerRecord<>(
                      TOPIC,
                      key.getBytes(StandardCharsets.UTF_8),
                      ("v-" + i).getBytes(StandardCharsets.UTF_8))));
          if (i % 100 == 99) {
            producer.flush();
          }
          if (!killed && i >= RECORDS / 2) {
            await().atMost(TIMEOUT).until(() -> confirmedAt.size() >= RECORDS / 3);
            cluster.node(victim).kill();
            killed = true;
          }
        }
        producer.flush();
      }
      for (Future<RecordMetadata> f : sent) {
        f.get(); // every record was acknowledged by the cluster
      }

      // Then the group drains: every share-partition's start offset reaches the log end
      Map<TopicPartition, Long> ends =
          TestClients.endOffsets(cluster.bootstrapServers(), TOPIC, PARTITIONS);
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                Map<TopicPartition, Long> starts = shareStartOffsets(admin);
                for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                  assertThat(starts.get(end.getKey()))
                      .as("%s", end.getKey())
                      .isEqualTo(end.getValue());
                }
              });
      stop.set(true);
      for (Thread thread : consumers) {
        thread.join(60_000);
      }

      assertThat(failures).isEmpty();
      assertThat(violations).isEmpty();
      // Every record was handed to a consumer at least once
      Set<String> expectedKeys = new HashSet<>();
      Set<String> poisonKeys = new HashSet<>();
      for (int i = 0; i < RECORDS; i++) {
        expectedKeys.add("k-" + i);
        if (poison(i)) {
          poisonKeys.add("k-" + i);
        }
      }
      assertThat(deliveredKeys).isEqualTo(expectedKeys);
      // And the dead-letter topic holds each poison record exactly once, and nothing else
      await()
          .atMost(TIMEOUT)
          .until(
              () ->
                  TestClients.readAll(cluster.bootstrapServers(), DLQ, 1).size()
                      >= poisonKeys.size());
      List<String> dead = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r :
          TestClients.readAll(cluster.bootstrapServers(), DLQ, 1)) {
        dead.add(new String(r.key(), StandardCharsets.UTF_8));
      }
      assertThat(dead).doesNotHaveDuplicates();
      assertThat(new HashSet<>(dead)).isEqualTo(poisonKeys);
    }
  }

  private static Map<TopicPartition, Long> shareStartOffsets(Admin admin) throws Exception {
    Map<TopicPartition, Long> starts = new HashMap<>();
    admin
        .listShareGroupOffsets(Map.of(GROUP, new ListShareGroupOffsetsSpec()))
        .partitionsToOffsetInfo(GROUP)
        .get()
        .forEach((tp, info) -> starts.put(tp, info.startOffset()));
    return starts;
  }
}
