package io.brook.tests.cluster.faults;

import io.brook.tests.TestClients;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A share group under faults (KIP-932): a producer feeds a topic of 3 partitions; three {@link
 * KafkaShareConsumer}s of one share group poll it in explicit acknowledgement mode, accept every
 * record and commit the acknowledgements synchronously after every poll. Every 2-5 s one member
 * closes and a new one joins. The group's share-partitions start at the earliest offset ({@code
 * brook.share.auto.offset.reset=earliest} on the cluster), so the group owes every record.
 *
 * <p>The checks: a record whose acknowledgement a member was told succeeded is never acquired and
 * acknowledged again (its state is durable at the share coordinator before the answer; see {@link
 * #pollAndAcknowledge} for why a mere delivery after it is not a fault); once every send settled
 * and the cluster recovered, the group drains within {@link #DRAIN_BOUND} (every share-partition's
 * start offset reaches the partition's end: each record ended acknowledged); and every record the
 * cluster acknowledged was delivered to a member at least once.
 */
final class ShareWorkload implements CampaignWorkload {
  private static final int PARTITIONS = 3;
  private static final int MEMBERS = 3;

  /**
   * How long the group may take to drain after the faults. A record acquired by a member whose
   * acknowledgement failed during a fault comes back when its lock expires ({@code
   * group.share.record.lock.duration.ms}, 10 s here).
   */
  private static final Duration DRAIN_BOUND = Duration.ofSeconds(60);

  /** Violations printed in full; the rest are counted. */
  private static final int REPORTED = 40;

  /** The cluster settings the workload needs on top of the campaign's. */
  static Map<String, String> brokerSettings() {
    return Map.of(
        "brook.share.auto.offset.reset", "earliest",
        "share.coordinator.state.topic.num.partitions", "3",
        "group.share.heartbeat.interval.ms", "500",
        "group.share.record.lock.duration.ms", "10000");
  }

  /**
   * The order of deliveries and confirmed acknowledgements across the members, by {@code
   * partition-offset}: when a record's acknowledgement was confirmed.
   */
  private final AtomicLong clock = new AtomicLong();

  private final Map<String, Long> confirmedAt = new ConcurrentHashMap<>();

  /** For a violation's report: when, and with which delivery count, each record was confirmed. */
  private final Map<String, String> confirmation = new ConcurrentHashMap<>();

  private final Set<String> delivered = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong redeliveries = new AtomicLong();

  /**
   * Records handed out after their acknowledgement was confirmed whose new acknowledgement was
   * refused or went unanswered: stale copies (see {@link #pollAndAcknowledge}).
   */
  private final AtomicLong staleCopies = new AtomicLong();

  private String bootstrap;
  private String topic;
  private String group;
  private Feeder feeder;
  private Thread members;
  private volatile boolean stopping;
  private long changes;

  @Override
  public String name() {
    return "share";
  }

  @Override
  public void start(String bootstrap, String prefix) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = prefix + "-share";
    this.group = prefix + "-share-group";
    TopicReader.create(bootstrap, Map.of(topic, PARTITIONS), Map.of());
    feeder = new Feeder(bootstrap, topic, PARTITIONS, "s");
    members = new Thread(this::runMembers, "share-members");
    members.setDaemon(true);
    members.start();
  }

  private KafkaShareConsumer<String, String> member() {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", group);
    props.put("share.acknowledgement.mode", "explicit");
    props.put("max.poll.records", "100");
    props.put("request.timeout.ms", "10000");
    props.put("retry.backoff.ms", "50");
    props.put("reconnect.backoff.ms", "50");
    props.put("reconnect.backoff.max.ms", "100");
    KafkaShareConsumer<String, String> consumer =
        new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /**
   * Runs the members round-robin on one thread: each polls, accepts what it got and commits; now
   * and then one closes and a new one joins.
   */
  private void runMembers() {
    Random random = new Random(topic.hashCode());
    List<KafkaShareConsumer<String, String>> running = new ArrayList<>();
    long nextChange = System.nanoTime() + TimeUnit.SECONDS.toNanos(2 + random.nextInt(4));
    try {
      for (int m = 0; m < MEMBERS; m++) {
        running.add(member());
      }
      while (!stopping) {
        for (int i = 0; i < running.size() && !stopping; i++) {
          pollAndAcknowledge(running.get(i));
        }
        if (System.nanoTime() - nextChange > 0) {
          KafkaShareConsumer<String, String> leaving = running.remove(random.nextInt(MEMBERS));
          try {
            leaving.close(Duration.ofSeconds(5));
          } catch (RuntimeException e) {
            // Closing during a fault may time out; its records come back when their locks expire.
          }
          synchronized (this) {
            changes++;
          }
          running.add(member());
          nextChange = System.nanoTime() + TimeUnit.SECONDS.toNanos(2 + random.nextInt(4));
        }
      }
    } catch (RuntimeException e) {
      violations.add("the members' thread failed: " + e);
    } finally {
      for (KafkaShareConsumer<String, String> member : running) {
        try {
          member.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
          // Best effort at the end.
        }
      }
    }
  }

  /**
   * One poll of one member: every record accepted, then committed; what succeeded is noted.
   *
   * <p>A record delivered after its acknowledgement was confirmed is not by itself a fault: a
   * member hands out what it fetched in the background, possibly long before (its turn comes after
   * the other members' commits, each up to 10 s during a fault), and the acquisition lock of such a
   * copy may have expired meanwhile, the record then going to another member who acknowledged it.
   * The cluster refuses the acknowledgement of such a stale copy (INVALID_RECORD_STATE). What must
   * never happen is that the cluster acquires a record again once its acknowledgement was
   * confirmed: the member holding it would then be able to acknowledge it again, so a record
   * delivered after its confirmation whose acknowledgement succeeds once more is the violation.
   */
  private void pollAndAcknowledge(KafkaShareConsumer<String, String> member) {
    Map<Integer, List<String>> byPartition = new HashMap<>();
    Map<String, Short> counts = new HashMap<>();
    Map<String, String> againAfterConfirmed = new HashMap<>();
    for (ConsumerRecord<String, String> r : member.poll(Duration.ofMillis(100))) {
      String id = r.partition() + "-" + r.offset();
      long now = clock.incrementAndGet();
      Long confirmed = confirmedAt.get(id);
      if (confirmed != null && confirmed < now) {
        againAfterConfirmed.put(
            id,
            r.value()
                + ", delivery count "
                + r.deliveryCount().orElse((short) -1)
                + " at "
                + LocalTime.now()
                + "; confirmed "
                + confirmation.get(id));
      }
      if (!delivered.add(r.value())) {
        redeliveries.incrementAndGet();
      }
      byPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(id);
      counts.put(id, r.deliveryCount().orElse((short) -1));
      member.acknowledge(r, AcknowledgeType.ACCEPT);
    }
    if (byPartition.isEmpty()) {
      return;
    }
    Map<TopicIdPartition, Optional<KafkaException>> results;
    try {
      results = member.commitSync(Duration.ofSeconds(10));
    } catch (KafkaException e) {
      staleCopies.addAndGet(againAfterConfirmed.size());
      return; // nothing confirmed: these records may come back
    }
    long confirmed = clock.incrementAndGet();
    results.forEach(
        (tp, error) -> {
          for (String id : byPartition.getOrDefault(tp.partition(), List.of())) {
            String again = againAfterConfirmed.get(id);
            if (again != null && error.isEmpty()) {
              violations.add(
                  id
                      + " ("
                      + again
                      + ") acquired and acknowledged again after its acknowledgement was"
                      + " confirmed");
            } else if (again != null) {
              staleCopies.incrementAndGet();
            } else if (error.isEmpty() && confirmedAt.putIfAbsent(id, confirmed) == null) {
              confirmation.put(
                  id, "at " + LocalTime.now() + " with delivery count " + counts.get(id));
            }
          }
        });
  }

  @Override
  public Result finish() throws Exception {
    feeder.stop();
    List<String> found = new ArrayList<>();
    Map<TopicPartition, Long> ends;
    try (Admin admin = FaultScenario.admin(bootstrap)) {
      ends = TestClients.endOffsets(bootstrap, topic, PARTITIONS);
      Map<TopicPartition, Long> starts = awaitDrained(admin, ends);
      if (!starts.equals(ends)) {
        found.add(
            "the group did not drain within "
                + DRAIN_BOUND.toSeconds()
                + " s: share-partition start offsets "
                + starts
                + ", end offsets "
                + ends);
      }
    } finally {
      stopping = true;
      members.join(60_000);
    }
    for (String value : feeder.ackedValues()) {
      if (!delivered.contains(value)) {
        found.add(value + " acknowledged by the cluster, never delivered to the group");
      }
    }
    found.addAll(violations);
    List<String> reported = new ArrayList<>(found.subList(0, Math.min(REPORTED, found.size())));
    if (found.size() > REPORTED) {
      reported.add("... and " + (found.size() - REPORTED) + " more");
    }
    synchronized (this) {
      System.out.printf(
          "[%s] %d fed, %d delivered (%d again), %d confirmed acknowledged, %d handed out again"
              + " after a confirmation and not acknowledged again (stale copies), %d members left"
              + " and joined, end offsets %s%n",
          topic,
          feeder.acked(),
          delivered.size(),
          redeliveries.get(),
          confirmedAt.size(),
          staleCopies.get(),
          changes,
          ends);
    }
    return new Result(feeder.acked(), reported);
  }

  /**
   * Waits until every share-partition's start offset reaches its partition's end offset, or {@link
   * #DRAIN_BOUND} passed; the start offsets last read.
   */
  private Map<TopicPartition, Long> awaitDrained(Admin admin, Map<TopicPartition, Long> ends)
      throws InterruptedException {
    Map<TopicPartition, Long> starts = Map.of();
    long deadline = System.nanoTime() + DRAIN_BOUND.toNanos();
    while (System.nanoTime() - deadline < 0) {
      try {
        Map<TopicPartition, Long> now = new HashMap<>();
        Map<TopicPartition, SharePartitionOffsetInfo> infos =
            admin
                .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(group)
                .get(15, TimeUnit.SECONDS);
        infos.forEach(
            (tp, info) -> {
              if (info != null) {
                now.put(tp, info.startOffset());
              }
            });
        starts = now;
        if (starts.equals(ends)) {
          return starts;
        }
      } catch (Exception e) {
        // The group coordinator or a share coordinator moving: ask again.
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
    return starts;
  }

  @Override
  public void close() {
    stopping = true;
    if (feeder != null) {
      feeder.close();
    }
  }
}
