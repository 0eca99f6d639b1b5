package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A well-behaved kafka-clients producer and consumer on their own connections, running while a test
 * abuses the broker on others. The producer sends sequence numbers one at a time (acks=all); the
 * consumer reads them back and checks they arrive in order, each once.
 */
final class BackgroundTraffic implements AutoCloseable {
  private final String bootstrap;
  private final String topic;
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong consumed = new AtomicLong();
  private final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final Thread producerThread;
  private final Thread consumerThread;
  private volatile boolean producing = true;
  private volatile boolean consuming = true;

  private BackgroundTraffic(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.producerThread = new Thread(this::produce, "background-producer");
    this.consumerThread = new Thread(this::consume, "background-consumer");
  }

  /** Starts both clients on a new single-partition topic. */
  static BackgroundTraffic start(String bootstrap, String topic) throws Exception {
    TestClients.createTopic(bootstrap, topic, 1);
    BackgroundTraffic traffic = new BackgroundTraffic(bootstrap, topic);
    traffic.producerThread.start();
    traffic.consumerThread.start();
    return traffic;
  }

  private void produce() {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      for (long seq = 0; producing; seq++) {
        producer
            .send(new ProducerRecord<>(topic, 0, null, Long.toString(seq).getBytes(UTF_8)))
            .get();
        acknowledged.incrementAndGet();
      }
    } catch (Exception | AssertionError e) {
      errors.add(e);
    }
  }

  private void consume() {
    try (KafkaConsumer<byte[], byte[]> consumer = TestClients.consumer(bootstrap)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      while (consuming) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          long expected = consumed.get();
          long seq = Long.parseLong(new String(record.value(), UTF_8));
          if (seq != expected || record.offset() != expected) {
            throw new AssertionError(
                "expected seq and offset "
                    + expected
                    + ", got seq "
                    + seq
                    + " at offset "
                    + record.offset());
          }
          consumed.incrementAndGet();
        }
      }
    } catch (Exception | AssertionError e) {
      errors.add(e);
    }
  }

  /**
   * Waits until both clients have moved on by {@code records} since this call, and fails on any
   * error either has seen so far.
   */
  void assertStillFlowing(int records) {
    long acknowledgedBefore = acknowledged.get();
    long consumedBefore = consumed.get();
    await("background traffic moves on (errors: " + errors + ")")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                !errors.isEmpty()
                    || (acknowledged.get() >= acknowledgedBefore + records
                        && consumed.get() >= consumedBefore + records));
    assertThat(errors).as("errors of the background producer and consumer").isEmpty();
  }

  /**
   * Stops the producer, waits for the consumer to read everything acknowledged, stops it; fails if
   * either saw an error.
   */
  @Override
  public void close() {
    producing = false;
    join(producerThread);
    await("the consumer reads every acknowledged record (errors: " + errors + ")")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !errors.isEmpty() || consumed.get() >= acknowledged.get());
    consuming = false;
    join(consumerThread);
    assertThat(errors).as("errors of the background producer and consumer").isEmpty();
    assertThat(acknowledged.get()).isPositive();
    assertThat(consumed.get()).isEqualTo(acknowledged.get());
  }

  private static void join(Thread thread) {
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while stopping " + thread.getName(), e);
    }
    assertThat(thread.isAlive()).as("%s still running", thread.getName()).isFalse();
  }
}
