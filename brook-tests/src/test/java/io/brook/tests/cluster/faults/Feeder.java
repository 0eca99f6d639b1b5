package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The input of a campaign workload: an idempotent acks=all producer on a background thread writing
 * {@code <prefix><seq>} round-robin over a topic's partitions every 10 ms until {@link #stop},
 * noting what was acknowledged. Whether input is lost is the producer workload's check; a workload
 * using a feeder checks what it does with the input.
 */
final class Feeder implements AutoCloseable {
  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final int partitions;
  private final String prefix;
  private final AtomicLong acked = new AtomicLong();
  private final Set<String> ackedValues = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private volatile boolean stopping;

  Feeder(String bootstrap, String topic, int partitions, String prefix) {
    this.producer = new KafkaProducer<>(ProducerWorkload.config(bootstrap));
    this.topic = topic;
    this.partitions = partitions;
    this.prefix = prefix;
    this.thread = new Thread(this::run, "feeder-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    long seq = 0;
    while (!stopping) {
      try {
        String value = prefix + seq;
        var unused =
            producer.send(
                new ProducerRecord<>(topic, (int) (seq++ % partitions), null, value),
                (metadata, error) -> {
                  if (error == null) {
                    acked.incrementAndGet();
                    ackedValues.add(value);
                  }
                });
        TimeUnit.MILLISECONDS.sleep(10);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // A send refused at once during a fault: the next one tries again.
      }
    }
  }

  /** Stops feeding and waits until every send so far settled. */
  void stop() throws InterruptedException {
    stopping = true;
    thread.join();
    producer.flush();
  }

  long acked() {
    return acked.get();
  }

  /** The values of the records acknowledged so far. */
  Set<String> ackedValues() {
    return ackedValues;
  }

  @Override
  public void close() {
    stopping = true;
    producer.close(Duration.ofSeconds(5));
  }
}
