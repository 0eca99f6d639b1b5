package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Transactional read-process-write under faults. An idempotent producer feeds an input topic; a
 * processor reads it ({@code read_committed}, partitions assigned, positions from the offsets of
 * group {@link FaultContext#COORDINATED_GROUP}) and, per poll, in one transaction writes one output
 * record per input record and commits its input offsets ({@code sendOffsetsToTransaction}). One
 * transaction in five is aborted on purpose; on any error the processor aborts (or starts a new
 * producer if it was fenced) and goes back to the committed offsets. Every output record names its
 * input record and its transaction attempt.
 *
 * <p>The checks, reading the output with {@code read_committed} once the processor stopped:
 *
 * <ul>
 *   <li>no record of an attempt the processor aborted itself is visible (aborted read);
 *   <li>every visible attempt is visible whole: as many records as it sent (no partial
 *       transaction);
 *   <li>no input record is in the output twice, and every input record below the group's final
 *       committed offset is there (exactly once).
 * </ul>
 */
final class TransactionWorkload implements CampaignWorkload {
  private static final int PARTITIONS = 3;

  private final Set<Long> abortedAttempts = ConcurrentHashMap.newKeySet();
  private final Map<Long, Integer> attemptSizes = new ConcurrentHashMap<>();
  private final List<String> errors = new ArrayList<>();
  private String bootstrap;
  private String input;
  private String output;
  private Feeder feeder;
  private Thread processorThread;
  private volatile boolean stopping;
  private volatile Throwable crash;
  private long committedTransactions;

  @Override
  public String name() {
    return "txn";
  }

  @Override
  public void start(String bootstrap, String prefix) throws Exception {
    this.bootstrap = bootstrap;
    this.input = prefix + "-txn-in";
    this.output = prefix + "-txn-out";
    TopicReader.create(bootstrap, Map.of(input, PARTITIONS, output, PARTITIONS), Map.of());
    feeder = new Feeder(bootstrap, input, PARTITIONS, "i");
    processorThread = new Thread(this::process, "txn-processor");
    processorThread.setDaemon(true);
    processorThread.start();
  }

  private Properties producerConfig() {
    Properties props = ProducerWorkload.config(bootstrap);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "campaign-txn");
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    return props;
  }

  private KafkaConsumer<String, String> consumer() {
    Properties props = OffsetWatcher.config(bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, FaultContext.COORDINATED_GROUP);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(props);
  }

  private List<TopicPartition> inputPartitions() {
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      all.add(new TopicPartition(input, p));
    }
    return all;
  }

  private void process() {
    Random random = new Random(input.hashCode());
    long attempt = 0;
    KafkaProducer<String, String> producer = null;
    try (KafkaConsumer<String, String> consumer = consumer()) {
      consumer.assign(inputPartitions());
      rewind(consumer);
      while (!stopping) {
        try {
          if (producer == null) {
            producer = new KafkaProducer<>(producerConfig());
            producer.initTransactions();
          }
          ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
          if (records.isEmpty()) {
            continue;
          }
          long a = attempt++;
          producer.beginTransaction();
          int size = 0;
          for (ConsumerRecord<String, String> r : records) {
            String value = r.value() + "|" + r.partition() + "/" + r.offset() + "|t" + a;
            var unused = producer.send(new ProducerRecord<>(output, r.partition(), null, value));
            size++;
          }
          attemptSizes.put(a, size);
          Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
          for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<String, String>> of = records.records(tp);
            next.put(tp, new OffsetAndMetadata(of.get(of.size() - 1).offset() + 1));
          }
          producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
          if (random.nextInt(5) == 0) {
            producer.abortTransaction();
            abortedAttempts.add(a);
            rewind(consumer);
          } else {
            producer.commitTransaction();
            synchronized (this) {
              committedTransactions++;
            }
          }
        } catch (RuntimeException e) {
          // Aborted or fenced or timed out during a fault: start again from the committed offsets
          // with a new producer (a new one fences whatever the old one left open).
          synchronized (this) {
            if (errors.size() < 20) {
              errors.add(String.valueOf(e));
            }
          }
          if (producer != null) {
            producer.close(Duration.ZERO);
            producer = null;
          }
          rewindQuietly(consumer);
        }
      }
    } catch (Throwable t) {
      crash = t;
    } finally {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /** Moves the consumer back to the group's committed offsets (the start where there are none). */
  private void rewind(KafkaConsumer<String, String> consumer) {
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(new HashSet<>(inputPartitions()), Duration.ofSeconds(30));
    for (TopicPartition tp : inputPartitions()) {
      OffsetAndMetadata at = committed.get(tp);
      consumer.seek(tp, at == null ? 0 : at.offset());
    }
  }

  private void rewindQuietly(KafkaConsumer<String, String> consumer) {
    while (!stopping) {
      try {
        rewind(consumer);
        return;
      } catch (RuntimeException e) {
        // The coordinator is down: try again until it is back or the workload stops.
      }
    }
  }

  @Override
  public Result finish() throws Exception {
    stopping = true;
    feeder.stop();
    processorThread.join(120_000);
    List<String> violations = new ArrayList<>();
    if (processorThread.isAlive()) {
      violations.add("the processor did not stop within 120 s");
    }
    if (crash != null) {
      violations.add("the processor failed: " + crash);
    }
    Map<TopicPartition, OffsetAndMetadata> committed;
    try (KafkaConsumer<String, String> consumer = consumer()) {
      committed = consumer.committed(new HashSet<>(inputPartitions()), Duration.ofSeconds(60));
    }
    Map<String, Integer> seenInput = new HashMap<>();
    Map<Long, Integer> seenAttempt = new HashMap<>();
    for (ConsumerRecord<String, String> r : readOutput()) {
      String[] parts = r.value().split("\\|");
      long attempt = Long.parseLong(parts[2].substring(1));
      seenInput.merge(parts[1], 1, Integer::sum);
      seenAttempt.merge(attempt, 1, Integer::sum);
      if (abortedAttempts.contains(attempt)) {
        violations.add("aborted read: " + r.value() + " at " + r.partition() + "/" + r.offset());
      }
    }
    seenInput.forEach(
        (in, n) -> {
          if (n > 1) {
            violations.add("input " + in + " processed " + n + " times in committed output");
          }
        });
    seenAttempt.forEach(
        (attempt, n) -> {
          Integer sent = attemptSizes.get(attempt);
          if (sent == null || sent.intValue() != n) {
            violations.add(
                "partial transaction: attempt t" + attempt + " sent " + sent + ", visible " + n);
          }
        });
    for (TopicPartition tp : inputPartitions()) {
      OffsetAndMetadata at = committed.get(tp);
      for (long o = 0; at != null && o < at.offset(); o++) {
        if (!seenInput.containsKey(tp.partition() + "/" + o)) {
          violations.add(
              "input "
                  + tp.partition()
                  + "/"
                  + o
                  + " is below the committed offset "
                  + at.offset()
                  + " but not in the output");
        }
      }
    }
    synchronized (this) {
      System.out.printf(
          "[%s] %d transactions committed, %d aborted on purpose, %d errors (first: %s)%n",
          input, committedTransactions, abortedAttempts.size(), errors.size(), errors);
      return new Result(feeder.acked() + seenInput.size(), violations);
    }
  }

  private List<ConsumerRecord<String, String>> readOutput() {
    Properties config = OffsetWatcher.config(bootstrap);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return TopicReader.readAll(config, output, PARTITIONS);
  }

  @Override
  public void close() {
    stopping = true;
    if (feeder != null) {
      feeder.close();
    }
  }
}
