package io.brook.tests.cluster.faults;

import io.brook.cli.verify.AckedLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Idempotent acks=all kafka-clients producers, each on a background thread, writing records with
 * unique ids round-robin over a topic's partitions at a steady pace until {@link #stop}, and
 * writing down in an {@link AckedLog} what was sent and what acknowledged.
 *
 * <p>The clients ride out a failover the way an application would: a delivery timeout far longer
 * than any fault (nothing is given up), a 5 s request timeout (a request to a paused leader is
 * retried elsewhere after 5 s) and 50-100 ms back-offs, so the gaps between acknowledgements
 * measure the cluster rather than the client.
 */
final class ProducerWorkload implements AutoCloseable {
  /** Pause between two sends of one producer: about 200 records/s each on an idle machine. */
  private static final long SEND_INTERVAL_MILLIS = 5;

  private final String topic;
  private final int partitions;
  private final AckedLog log = new AckedLog();
  private final List<KafkaProducer<String, String>> producers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  ProducerWorkload(String bootstrap, String topic, int partitions, int producerCount) {
    this.topic = topic;
    this.partitions = partitions;
    for (int p = 0; p < producerCount; p++) {
      producers.add(new KafkaProducer<>(config(bootstrap)));
    }
  }

  static Properties config(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    // Ten minutes: no fault here lasts that long, so every record is eventually acknowledged.
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600000");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "600000");
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100");
    props.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    return props;
  }

  AckedLog log() {
    return log;
  }

  void start() {
    for (int p = 0; p < producers.size(); p++) {
      int producer = p + 1;
      KafkaProducer<String, String> client = producers.get(p);
      Thread thread = new Thread(() -> run(producer, client), "fault-producer-" + producer);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
  }

  private void run(int producer, KafkaProducer<String, String> client) {
    long seq = 0;
    while (!stopping) {
      long s = seq++;
      int partition = (int) (s % partitions);
      String id = AckedLog.id(producer, s);
      log.sent(id, partition);
      try {
        var unused =
            client.send(
                new ProducerRecord<>(topic, partition, null, id),
                (metadata, error) -> {
                  if (error == null) {
                    log.acked(producer, s, metadata.partition(), metadata.offset());
                  } else {
                    log.failed(id, partition, error);
                  }
                });
        TimeUnit.MILLISECONDS.sleep(SEND_INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.failed(id, partition, e);
      }
    }
  }

  /**
   * Stops sending and waits (up to the delivery timeout) until every record sent so far is
   * acknowledged or has failed.
   */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread thread : threads) {
      thread.join();
    }
    for (KafkaProducer<String, String> client : producers) {
      client.flush();
    }
    long settled = (long) log.acks().size() + log.failures().size();
    if (settled != log.sentCount()) {
      throw new AssertionError(
          "after flush(), " + settled + " of " + log.sentCount() + " sends settled");
    }
  }

  @Override
  public void close() {
    stopping = true;
    for (KafkaProducer<String, String> client : producers) {
      client.close(Duration.ofSeconds(5));
    }
  }
}
