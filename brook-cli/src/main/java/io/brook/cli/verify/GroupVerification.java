package io.brook.cli.verify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code brook verify groups}: an idempotent producer feeds a topic; the members of a classic
 * consumer group poll it round-robin on one thread and commit after every poll, while the tool
 * restarts a member every so often (alternately leaving the group cleanly and vanishing without
 * leaving, so the coordinator notices at the session timeout). A watcher reads the group's
 * committed offsets meanwhile. {@link GroupChecker} checks that committed offsets never go back and
 * that no partition is owned by two members of one generation; the run ends once the group has
 * committed the end of every partition after the last restart.
 *
 * <p>A group without committed offsets for the topic is first given the topic's end offsets, so
 * that only the records fed by this run are consumed.
 */
public final class GroupVerification {

  /** What to run. A non-positive {@code replicationFactor} means the broker's default. */
  public record Settings(
      String topic,
      int partitions,
      short replicationFactor,
      String group,
      int members,
      int records,
      int restarts,
      Duration timeout) {}

  /** Records a member takes per poll: small, so that restarts fall between polls. */
  private static final int MAX_POLL_RECORDS = 50;

  private final Settings settings;
  private final Properties client;
  private final AtomicLong consumed = new AtomicLong();
  private GroupChecker checker;
  private VerifyTopic topic;
  private volatile boolean stopping;

  private GroupVerification(Properties client, Settings settings) {
    this.client = client;
    this.settings = settings;
  }

  /**
   * Runs the workload and the checks.
   *
   * @throws Exception when the cluster cannot be reached or refuses the topic or group (not a
   *     violation)
   */
  public static Verdict run(Admin admin, Properties client, Settings settings) throws Exception {
    return new GroupVerification(client, settings).run(admin);
  }

  private Verdict run(Admin admin) throws Exception {
    topic =
        VerifyTopic.open(
            admin, settings.topic(), settings.partitions(), settings.replicationFactor());
    checker = new GroupChecker(topic.name());
    Map<TopicPartition, OffsetAndMetadata> before = committedOffsets(admin);
    if (before.isEmpty()) {
      Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
      topic.endOffsets(admin).forEach((tp, end) -> start.put(tp, new OffsetAndMetadata(end)));
      admin.alterConsumerGroupOffsets(settings.group(), start).all().get();
      before = start;
    }
    before.forEach((tp, at) -> checker.committed(tp.partition(), at.offset(), "before the run"));
    long fed = feed();
    Map<TopicPartition, Long> ends = topic.endOffsets(admin);

    Thread watcher = new Thread(() -> watch(admin), "verify-group-watcher");
    watcher.setDaemon(true);
    watcher.start();
    int restarts;
    try {
      restarts = runMembers(ends);
    } finally {
      stopping = true;
      watcher.join(settings.timeout().toMillis());
    }
    long sent = System.nanoTime();
    committedOffsets(admin)
        .forEach((tp, at) -> checker.read(tp.partition(), at.offset(), sent, "read after the run"));

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("topic", topic.name());
    figures.put("group", settings.group());
    figures.put("members", settings.members());
    figures.put("fed", fed);
    figures.put("consumed", consumed.get());
    figures.put("restarts", restarts);
    figures.put("ownerships", checker.ownerships());
    figures.put("committed", new TreeMap<>(checker.highestCommitted()));
    return new Verdict("groups", figures, checker.violations());
  }

  private Map<TopicPartition, OffsetAndMetadata> committedOffsets(Admin admin) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> ours = new HashMap<>();
    admin
        .listConsumerGroupOffsets(settings.group())
        .partitionsToOffsetAndMetadata()
        .get()
        .forEach(
            (tp, at) -> {
              if (tp.topic().equals(topic.name()) && at != null) {
                ours.put(tp, at);
              }
            });
    return ours;
  }

  /**
   * Writes the run's records round-robin over the partitions; returns how many were acknowledged.
   */
  private long feed() {
    Properties props = VerifyTopic.producerConfig(client);
    AtomicLong acked = new AtomicLong();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int seq = 0; seq < settings.records(); seq++) {
        String key = "g-" + seq;
        var unused =
            producer.send(
                new ProducerRecord<>(topic.name(), seq % topic.partitions(), key, key),
                (metadata, error) -> {
                  if (error == null) {
                    acked.incrementAndGet();
                  } else {
                    checker.violation("feeding " + key + " failed: " + error);
                  }
                });
      }
      producer.flush();
    }
    return acked.get();
  }

  /** Reads the group's committed offsets until the run stops. */
  private void watch(Admin admin) {
    while (!stopping) {
      try {
        long sent = System.nanoTime();
        committedOffsets(admin)
            .forEach(
                (tp, at) -> checker.read(tp.partition(), at.offset(), sent, "read by the watcher"));
        TimeUnit.MILLISECONDS.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        // The coordinator is moving: read again.
      }
    }
  }

  private KafkaConsumer<String, String> member() {
    Properties props = VerifyTopic.consumerConfig(client);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.group());
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(MAX_POLL_RECORDS));
    props.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    props.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(topic.name()));
    return consumer;
  }

  /**
   * Runs the members until every restart is done and the group has committed {@code ends}, or the
   * time is up (a violation: the group stopped making progress). Returns the restarts done.
   */
  private int runMembers(Map<TopicPartition, Long> ends) {
    List<KafkaConsumer<String, String>> members = new ArrayList<>();
    List<String> names = new ArrayList<>();
    int started = 0;
    int restarts = 0;
    long restartEvery = Math.max(1, settings.records() / (settings.restarts() + 1L));
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    try {
      for (; started < settings.members(); started++) {
        members.add(member());
        names.add("m" + started);
      }
      while (restarts < settings.restarts() || !reached(ends)) {
        for (int i = 0; i < members.size(); i++) {
          consumed.addAndGet(checker.pollAndCommit(members.get(i), names.get(i)));
        }
        if (restarts < settings.restarts() && consumed.get() >= (restarts + 1) * restartEvery) {
          int victim = restarts % members.size();
          KafkaConsumer<String, String> leaving = members.get(victim);
          // Alternately a clean leave and a member that vanishes without leaving.
          CloseOptions.GroupMembershipOperation how =
              restarts % 2 == 0
                  ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
                  : CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP;
          leaving.close(CloseOptions.groupMembershipOperation(how));
          members.set(victim, member());
          names.set(victim, "m" + started++);
          restarts++;
        }
        if (System.nanoTime() - deadline > 0) {
          checker.violation(
              "the group did not commit the end offsets "
                  + ends
                  + " within "
                  + settings.timeout()
                  + " (committed "
                  + checker.highestCommitted()
                  + ", "
                  + restarts
                  + " restarts done)");
          break;
        }
      }
    } finally {
      for (KafkaConsumer<String, String> member : members) {
        member.close(CloseOptions.timeout(Duration.ofSeconds(5)));
      }
    }
    return restarts;
  }

  private boolean reached(Map<TopicPartition, Long> ends) {
    Map<Integer, Long> committed = checker.highestCommitted();
    return ends.entrySet().stream()
        .allMatch(e -> committed.getOrDefault(e.getKey().partition(), -1L) >= e.getValue());
  }
}
