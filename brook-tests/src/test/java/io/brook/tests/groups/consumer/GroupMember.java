package io.brook.tests.groups.consumer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A kafka-clients consumer of the KIP-848 protocol ({@code group.protocol=consumer}) processing at
 * least once: it polls, hands every record to a sink, then commits synchronously. Runs on its own
 * thread (or as the main of a child JVM) until stopped.
 */
final class GroupMember implements Runnable {
  /** What a member reports: records it processed and partitions it gained or lost. */
  interface Events {
    void consumed(String member, ConsumerRecord<byte[], byte[]> record);

    void assigned(String member, Collection<TopicPartition> partitions);

    void revoked(String member, Collection<TopicPartition> partitions);
  }

  private final String name;
  private final Properties props;
  private final String topic;
  private final Events events;
  private volatile boolean running = true;
  private volatile Duration closeTimeout = Duration.ofSeconds(30);

  GroupMember(String name, String bootstrap, String group, String topic, Events events) {
    this.name = name;
    this.topic = topic;
    this.events = events;
    this.props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
  }

  String name() {
    return name;
  }

  /** Makes this a static member ({@code group.instance.id}); call before running it. */
  GroupMember withInstanceId(String instanceId) {
    props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
    return this;
  }

  /** Asks the member to leave the group and close; it does so from its own thread. */
  void stop() {
    running = false;
  }

  /** As {@link #stop()}, giving up on leaving after {@code timeout} (the broker may be gone). */
  void stop(Duration timeout) {
    closeTimeout = timeout;
    running = false;
  }

  @Override
  public void run() {
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
    try {
      consumer.subscribe(List.of(topic), listener());
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        records.forEach(r -> events.consumed(name, r));
        if (!records.isEmpty()) {
          commit(consumer);
        }
      }
    } finally {
      consumer.close(CloseOptions.timeout(closeTimeout));
    }
  }

  private static void commit(KafkaConsumer<byte[], byte[]> consumer) {
    try {
      consumer.commitSync();
    } catch (KafkaException e) {
      // At least once: a refused commit (the partition moved meanwhile) only means the next owner
      // processes these records again.
    }
  }

  private ConsumerRebalanceListener listener() {
    Consumer<Collection<TopicPartition>> revoked = ps -> events.revoked(name, ps);
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        revoked.accept(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        events.assigned(name, partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        revoked.accept(partitions);
      }
    };
  }

  /**
   * A member in a child JVM, printing what it does on stdout ({@code consumed <partition>
   * <offset>}, {@code assigned <partitions>}) so the test can SIGKILL it mid-flight.
   *
   * @param args bootstrap servers, group, topic, member name
   */
  public static void main(String[] args) {
    Events printer =
        new Events() {
          @Override
          public synchronized void consumed(String member, ConsumerRecord<byte[], byte[]> r) {
            System.out.println("consumed " + r.partition() + " " + r.offset());
            System.out.flush();
          }

          @Override
          public synchronized void assigned(String member, Collection<TopicPartition> ps) {
            System.out.println("assigned " + ps.size());
            System.out.flush();
          }

          @Override
          public void revoked(String member, Collection<TopicPartition> ps) {}
        };
    new GroupMember(args[3], args[0], args[1], args[2], printer).run();
  }
}
