package io.brook.bench.groups;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Rebalance time of a large group against any Kafka-protocol broker: {@code members} consumers
 * subscribe to a topic with two partitions per member; measured are the time until the group first
 * covers every partition exactly once, and the time to cover them again after one member leaves and
 * after one joins.
 *
 * <pre>java -cp brook-bench/target/benchmarks.jar io.brook.bench.groups.RebalanceBench \
 *     BOOTSTRAP [members=60] [group.protocol=classic]</pre>
 */
public final class RebalanceBench {
  private static final Duration LIMIT = Duration.ofMinutes(3);

  private RebalanceBench() {}

  /** One consumer polling on its own thread, exposing what it owns now. */
  private static final class Member implements Runnable {
    final KafkaConsumer<byte[], byte[]> consumer;
    final String topic;
    final Set<TopicPartition> owned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final AtomicBoolean running = new AtomicBoolean(true);
    final Thread thread = new Thread(this);

    Member(String bootstrap, String group, String topic, String protocol) {
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
      props.put(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      props.put(
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      this.consumer = new KafkaConsumer<>(props);
      this.topic = topic;
    }

    @Override
    public void run() {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              owned.removeAll(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              owned.addAll(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              owned.removeAll(partitions);
            }
          });
      while (running.get()) {
        consumer.poll(Duration.ofMillis(50));
      }
      consumer.close();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join();
      owned.clear();
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int members = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    String protocol = args.length > 2 ? args[2] : "classic";
    String topic = "rebalance-bench-" + System.nanoTime();
    String group = topic + "-group";
    int partitions = members * 2;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
    List<Member> group60 = new ArrayList<>();
    long started = System.nanoTime();
    for (int i = 0; i < members; i++) {
      Member member = new Member(bootstrap, group, topic, protocol);
      group60.add(member);
      member.thread.start();
    }
    long form = awaitCovered(group60, partitions, started, m -> true);

    Member leaving = group60.remove(group60.size() - 1);
    long leaveStarted = System.nanoTime();
    leaving.stop();
    long leave = awaitCovered(group60, partitions, leaveStarted, m -> true);

    Member joining = new Member(bootstrap, group, topic, protocol);
    long joinStarted = System.nanoTime();
    joining.thread.start();
    group60.add(joining);
    long join = awaitCovered(group60, partitions, joinStarted, m -> m == joining);

    System.out.printf(
        "rebalance-bench members=%d protocol=%s form_ms=%d leave_ms=%d join_ms=%d%n",
        members, protocol, form, leave, join);
    for (Member member : group60) {
      member.stop();
    }
  }

  /**
   * Waits until every partition has exactly one owner and every member owns something, and the
   * members named by {@code mustOwn} own partitions; returns the elapsed milliseconds.
   */
  private static long awaitCovered(
      List<Member> members, int partitions, long startedNanos, Predicate<Member> mustOwn)
      throws InterruptedException {
    long deadline = startedNanos + LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      Set<TopicPartition> union = new HashSet<>();
      int total = 0;
      boolean everyoneOwns = true;
      for (Member member : members) {
        Set<TopicPartition> owned = Set.copyOf(member.owned);
        union.addAll(owned);
        total += owned.size();
        everyoneOwns &= !owned.isEmpty() || !mustOwn.test(member);
      }
      if (union.size() == partitions && total == partitions && everyoneOwns) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("the group did not settle within " + LIMIT);
  }
}
