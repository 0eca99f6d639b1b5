package io.brook.tests.cluster.faults;

import io.brook.cli.verify.GroupChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
 * <p>The checks ({@link GroupChecker}): the committed offset of a partition never goes back
 * (neither in what the watcher read nor in what a member's commit returned), and no partition is
 * owned by two members in one generation (each member notes after every poll the generation and the
 * partitions it holds).
 */
final class GroupWorkload implements CampaignWorkload {
  private static final int PARTITIONS = 6;
  private static final int MEMBERS = 3;

  private GroupChecker checker;
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
    this.checker = new GroupChecker(topic);
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

  private void watchCommitted() {
    try (Admin admin = FaultScenario.admin(bootstrap)) {
      while (!stopping) {
        try {
          long sent = System.nanoTime();
          Map<TopicPartition, OffsetAndMetadata> offsets =
              admin
                  .listConsumerGroupOffsets(FaultContext.COORDINATED_GROUP)
                  .partitionsToOffsetAndMetadata()
                  .get(10, TimeUnit.SECONDS);
          offsets.forEach(
              (tp, at) -> {
                if (tp.topic().equals(topic) && at != null) {
                  checker.read(tp.partition(), at.offset(), sent, "read by the watcher");
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
          consumed.addAndGet(checker.pollAndCommit(members.get(i), names.get(i)));
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
      checker.violation("the members' thread failed: " + e);
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

  @Override
  public Result finish() throws Exception {
    stopping = true;
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    feeder.stop();
    List<String> found = checker.violations();
    synchronized (this) {
      System.out.printf(
          "[%s] %d fed, %d consumed, %d members died or left, %d generation/partition"
              + " ownerships, committed %s%n",
          topic,
          feeder.acked(),
          consumed.get(),
          deaths,
          checker.ownerships(),
          checker.highestCommitted());
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
