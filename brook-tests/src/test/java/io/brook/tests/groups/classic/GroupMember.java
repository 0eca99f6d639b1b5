package io.brook.tests.groups.classic;

import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A kafka-clients consumer in a classic group, polling on its own thread: it records what it
 * consumed ("partition:offset"), commits after every batch, and keeps a history of its assignments
 * with the generation each came with.
 */
final class GroupMember implements AutoCloseable {
  /** One assignment the member saw: its whole assignment after a rebalance callback. */
  record Assignment(String name, int generation, Set<TopicPartition> partitions) {}

  final String name;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private volatile boolean running = true;
  final Set<String> consumed = ConcurrentHashMap.newKeySet();
  final List<Assignment> assignments = new CopyOnWriteArrayList<>();
  final List<TopicPartition> revoked = new CopyOnWriteArrayList<>();
  private volatile Set<TopicPartition> current = Set.of();
  private volatile int generation = -1;
  private volatile String memberId = "";
  private volatile Throwable failure;

  GroupMember(String name, String bootstrap, String topic, String... overrides) {
    this.name = name;
    List<String> config = new ArrayList<>(List.of(overrides));
    config.addAll(
        List.of(
            "group.protocol",
            "classic",
            "auto.offset.reset",
            "earliest",
            "client.id",
            name,
            "heartbeat.interval.ms",
            "1000"));
    this.consumer = TestClients.consumer(bootstrap, config.toArray(String[]::new));
    this.thread = new Thread(() -> run(topic), "member-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(String topic) {
    try {
      consumer.subscribe(List.of(topic), new Listener());
      while (running) {
        var records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          consumed.add(r.partition() + ":" + r.offset());
        }
        if (!records.isEmpty()) {
          consumer.commitSync();
        }
        generation = consumer.groupMetadata().generationId();
        memberId = consumer.groupMetadata().memberId();
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  private final class Listener implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      revoked.addAll(partitions);
      current = Set.copyOf(consumer.assignment());
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      Set<TopicPartition> all = Set.copyOf(consumer.assignment());
      current = all;
      int gen = consumer.groupMetadata().generationId();
      generation = gen;
      memberId = consumer.groupMetadata().memberId();
      assignments.add(new Assignment(name, gen, all));
    }
  }

  Set<TopicPartition> current() {
    return current;
  }

  int generation() {
    return generation;
  }

  String memberId() {
    return memberId;
  }

  Throwable failure() {
    return failure;
  }

  /** Stops polling and closes the consumer (a dynamic member leaves the group). */
  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
