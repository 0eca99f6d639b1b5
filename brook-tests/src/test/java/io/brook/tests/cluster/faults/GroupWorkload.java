package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group committing while its members die, under faults. A producer feeds a topic of 6
 * partitions; three members of group {@link FaultContext#COORDINATED_GROUP} (classic protocol,
 * subscribed) poll it and commit synchronously after every poll. Every 2-5 s one member dies (it
 * stops polling and closes without leaving, so the coordinator only notices at its 6 s session
 * timeout) or leaves cleanly, and a new member takes its place. Meanwhile a watcher reads the
 * group's committed offsets every 200 ms.
 *
 * <p>The checks: the committed offset of a partition never goes back (neither in what the watcher
 * read nor in what a member's commit returned), and no partition is owned by two members in one
 * generation (each member notes after every poll the generation and the partitions it holds).
 */
final class GroupWorkload implements CampaignWorkload {
  private static final int PARTITIONS = 6;
  private static final int MEMBERS = 3;

  /** {@code generation/partition -> member} of every ownership a member noted. */
  private final Map<String, String> owners = new ConcurrentHashMap<>();

  private final Map<Integer, Long> highestCommitted = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong consumed = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private String bootstrap;
  private String topic;
  private Feeder feeder;
  private volatile boolean stopping;
  private long deaths;

  @Override
  public String name() {
    return "groups";
  }

  @Override
  public void start(String bootstrap, String prefix) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = prefix + "-groups";
    TopicReader.create(bootstrap, Map.of(topic, PARTITIONS), Map.of());
    feeder = new Feeder(bootstrap, topic, PARTITIONS, "g");
    daemon("group-offsets-watcher", this::watchCommitted);
    daemon("group-members", this::runMembers);
  }

  private void daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  /** Notes a committed offset and whether it went back. */
  private void committed(int partition, long offset, String source) {
    Long before = highestCommitted.merge(partition, offset, Math::max);
    if (before != null && before > offset) {
      violations.add(
          "committed offset of "
              + topic
              + "-"
              + partition
              + " went back to "
              + offset
              + " after "
              + before
              + " ("
              + source
              + ")");
    }
  }

  private void watchCommitted() {
    try (Admin admin = FaultScenario.admin(bootstrap)) {
      while (!stopping) {
        try {
          Map<TopicPartition, OffsetAndMetadata> offsets =
              admin
                  .listConsumerGroupOffsets(FaultContext.COORDINATED_GROUP)
                  .partitionsToOffsetAndMetadata()
                  .get(10, TimeUnit.SECONDS);
          offsets.forEach(
              (tp, at) -> {
                if (tp.topic().equals(topic) && at != null) {
                  checkNotBelow(tp.partition(), at.offset());
                }
              });
          TimeUnit.MILLISECONDS.sleep(200);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // The coordinator is away during a fault: read again.
        }
      }
    }
  }

  /** What the watcher read must not be below what it or a member saw committed before. */
  private void checkNotBelow(int partition, long offset) {
    committed(partition, offset, "read by the watcher");
  }

  private KafkaConsumer<String, String> member() {
    Properties props = OffsetWatcher.config(bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, FaultContext.COORDINATED_GROUP);
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100");
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /**
   * Runs the members round-robin on one thread (kafka-clients consumers are single-threaded
   * anyway): each polls and commits in turn; now and then one dies or leaves and is replaced.
   */
  private void runMembers() {
    Random random = new Random(topic.hashCode());
    List<KafkaConsumer<String, String>> members = new ArrayList<>();
    List<String> names = new ArrayList<>();
    int started = 0;
    long nextDeath = System.nanoTime() + TimeUnit.SECONDS.toNanos(2 + random.nextInt(4));
    try {
      for (; started < MEMBERS; started++) {
        members.add(member());
        names.add("m" + started);
      }
      while (!stopping) {
        for (int i = 0; i < members.size() && !stopping; i++) {
          pollAndCommit(members.get(i), names.get(i));
        }
        if (System.nanoTime() - nextDeath > 0) {
          int victim = random.nextInt(members.size());
          KafkaConsumer<String, String> dying = members.remove(victim);
          names.remove(victim);
          try {
            dying.close(
                random.nextBoolean()
                    ? CloseOptions.groupMembershipOperation(
                        CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    : CloseOptions.groupMembershipOperation(
                        CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
          } catch (RuntimeException e) {
            // Closing during a fault may time out; the member is gone either way.
          }
          synchronized (this) {
            deaths++;
          }
          members.add(member());
          names.add("m" + started++);
          nextDeath = System.nanoTime() + TimeUnit.SECONDS.toNanos(2 + random.nextInt(4));
        }
      }
    } catch (RuntimeException e) {
      violations.add("the members' thread failed: " + e);
    } finally {
      for (KafkaConsumer<String, String> member : members) {
        try {
          member.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
          // Best effort at the end.
        }
      }
    }
  }

  private void pollAndCommit(KafkaConsumer<String, String> member, String name) {
    ConsumerRecords<String, String> records;
    try {
      records = member.poll(Duration.ofMillis(100));
    } catch (RuntimeException e) {
      return;
    }
    int generation = member.groupMetadata().generationId();
    String id = name + "(" + member.groupMetadata().memberId() + ")";
    if (generation > 0) {
      for (TopicPartition tp : member.assignment()) {
        String key = generation + "/" + tp.partition();
        String other = owners.putIfAbsent(key, id);
        if (other != null && !other.equals(id)) {
          violations.add(
              "partition "
                  + tp.partition()
                  + " owned by "
                  + other
                  + " and "
                  + id
                  + " in generation "
                  + generation);
        }
      }
    }
    consumed.addAndGet(records.count());
    if (records.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    for (TopicPartition tp : records.partitions()) {
      var of = records.records(tp);
      next.put(tp, new OffsetAndMetadata(of.get(of.size() - 1).offset() + 1));
    }
    try {
      member.commitSync(next, Duration.ofSeconds(10));
      next.forEach((tp, at) -> committed(tp.partition(), at.offset(), "committed by " + id));
    } catch (RuntimeException e) {
      // A rebalance or a fault: the next owner starts from the last committed offset.
    }
  }

  @Override
  public Result finish() throws Exception {
    stopping = true;
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    feeder.stop();
    List<String> found = new ArrayList<>(violations);
    synchronized (this) {
      System.out.printf(
          "[%s] %d fed, %d consumed, %d members died or left, %d generation/partition"
              + " ownerships, committed %s%n",
          topic, feeder.acked(), consumed.get(), deaths, owners.size(), highestCommitted);
    }
    return new Result(feeder.acked(), found);
  }

  @Override
  public void close() {
    stopping = true;
    if (feeder != null) {
      feeder.close();
    }
  }
}
