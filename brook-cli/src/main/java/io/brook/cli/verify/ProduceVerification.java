package io.brook.cli.verify;

import io.brook.cli.verify.ReplicationChecker.Stored;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code brook verify produce}: idempotent acks=all producers write numbered records round-robin
 * over a topic's partitions (each producer's records in its send order on every partition), then a
 * {@code read_committed} consumer reads back everything written after the start, and {@link
 * ReplicationChecker} (with the values' checksums) checks it against the acknowledgements. In
 * transactional mode each producer writes transactions of a few records and aborts every second
 * one; only committed records count as acknowledged, and {@link TransactionChecker} looks for
 * aborted or partial transactions among what was read.
 */
public final class ProduceVerification {

  /** What to run. A non-positive {@code replicationFactor} means the broker's default. */
  public record Settings(
      String topic,
      int partitions,
      short replicationFactor,
      int records,
      int producers,
      boolean transactional,
      int transactionRecords,
      Duration timeout) {}

  private final Settings settings;
  private final Properties client;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AckedLog log = new AckedLog();

  /** {@code record id -> transaction} of every transactional record sent. */
  private final Map<String, String> transactionOf = new ConcurrentHashMap<>();

  private final Set<String> aborted = ConcurrentHashMap.newKeySet();
  private final Set<String> committed = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> sentPerTransaction = new ConcurrentHashMap<>();
  private final AtomicReference<Throwable> producerCrash = new AtomicReference<>();
  private VerifyTopic topic;

  private ProduceVerification(Properties client, Settings settings) {
    this.client = client;
    this.settings = settings;
  }

  /**
   * Runs the workload and the checks.
   *
   * @throws Exception when the cluster cannot be reached or refuses the topic (not a violation)
   */
  public static Verdict run(Admin admin, Properties client, Settings settings) throws Exception {
    return new ProduceVerification(client, settings).run(admin);
  }

  private Verdict run(Admin admin) throws Exception {
    topic =
        VerifyTopic.open(
            admin, settings.topic(), settings.partitions(), settings.replicationFactor());
    Map<TopicPartition, Long> start = topic.endOffsets(admin);
    List<Thread> threads = new ArrayList<>();
    for (int p = 1; p <= settings.producers(); p++) {
      int producer = p;
      int count =
          settings.records() / settings.producers()
              + (p <= settings.records() % settings.producers() ? 1 : 0);
      Thread thread = new Thread(() -> produce(producer, count), "verify-producer-" + p);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (producerCrash.get() != null) {
      throw new IllegalStateException("a producer failed", producerCrash.get());
    }
    List<ConsumerRecord<String, String>> read =
        topic.readCommitted(client, start, settings.timeout());
    return verdict(read);
  }

  private Properties producerConfig(int producer) {
    Properties props = VerifyTopic.producerConfig(client);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "brook-verify-" + run + "-p" + producer);
    if (settings.transactional()) {
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "brook-verify-" + run + "-p" + producer);
    }
    return props;
  }

  private void produce(int producer, int count) {
    try (KafkaProducer<String, String> client = new KafkaProducer<>(producerConfig(producer))) {
      if (settings.transactional()) {
        produceTransactions(client, producer, count);
      } else {
        for (long seq = 0; seq < count; seq++) {
          if (send(client, producer, seq, null, null) != null) {
            return;
          }
        }
        client.flush();
      }
    } catch (RuntimeException e) {
      producerCrash.compareAndSet(null, e);
    }
  }

  /**
   * Sends record {@code seq} of {@code producer}; its acknowledgement goes to the log at once, or
   * into {@code pending} until its transaction commits. Returns why the send failed at once, or
   * null.
   */
  private KafkaException send(
      KafkaProducer<String, String> client,
      int producer,
      long seq,
      String transaction,
      List<AckedLog.Ack> pending) {
    String id = AckedLog.id(producer, seq);
    int partition = (int) (seq % topic.partitions());
    log.sent(id, partition);
    if (transaction != null) {
      transactionOf.put(id, transaction);
    }
    try {
      var unused =
          client.send(
              new ProducerRecord<>(topic.name(), partition, id, VerifyRecord.value(id, run)),
              (metadata, error) -> {
                if (error != null) {
                  // A transactional send's fate is its transaction's: the sends of one aborted on
                  // purpose may fail with TransactionAbortedException, and a failed send makes
                  // the commit fail, which fails every record of the transaction.
                  if (pending == null) {
                    log.failed(id, partition, error);
                  }
                } else if (pending == null) {
                  log.acked(producer, seq, metadata.partition(), metadata.offset());
                } else {
                  synchronized (pending) {
                    pending.add(
                        new AckedLog.Ack(
                            id, producer, seq, metadata.partition(), metadata.offset(), 0));
                  }
                }
              });
      return null;
    } catch (KafkaException e) {
      if (pending == null) {
        log.failed(id, partition, e);
      }
      return e;
    }
  }

  /** Transactions of {@code transactionRecords} records, every second one aborted. */
  private void produceTransactions(KafkaProducer<String, String> client, int producer, int count) {
    client.initTransactions();
    long seq = 0;
    for (int t = 0; seq < count; t++) {
      String transaction = "p" + producer + "-t" + t;
      boolean abort = t % 2 == 1;
      List<AckedLog.Ack> pending = new ArrayList<>();
      long first = seq;
      client.beginTransaction();
      int sent = 0;
      KafkaException failed = null;
      for (; sent < settings.transactionRecords() && seq < count && failed == null; sent++, seq++) {
        failed = send(client, producer, seq, transaction, pending);
      }
      sentPerTransaction.put(transaction, sent);
      try {
        if (failed != null) {
          throw failed;
        }
        if (abort) {
          client.abortTransaction();
          aborted.add(transaction);
        } else {
          client.commitTransaction();
          committed.add(transaction);
          synchronized (pending) {
            for (AckedLog.Ack ack : pending) {
              log.acked(producer, ack.seq(), ack.partition(), ack.offset());
            }
          }
        }
      } catch (KafkaException e) {
        // Its outcome is unknown: every record of it failed, and this producer stops.
        for (long s = first; s < seq; s++) {
          log.failed(AckedLog.id(producer, s), (int) (s % topic.partitions()), e);
        }
        return;
      }
    }
  }

  private Verdict verdict(List<ConsumerRecord<String, String>> records) {
    List<String> violations = new ArrayList<>();
    Map<Integer, List<Stored>> read = new TreeMap<>();
    for (int p = 0; p < topic.partitions(); p++) {
      read.put(p, new ArrayList<>());
    }
    List<TransactionChecker.Visible> visible = new ArrayList<>();
    for (ConsumerRecord<String, String> r : records) {
      String id = String.valueOf(r.key());
      read.get(r.partition()).add(new Stored(r.partition(), r.offset(), id));
      if (log.wasSent(id)) {
        String mismatch = VerifyRecord.mismatch(id, run, r.value());
        if (mismatch != null) {
          violations.add(
              "different data: "
                  + id
                  + " at "
                  + r.partition()
                  + "/"
                  + r.offset()
                  + ": "
                  + mismatch);
        }
      }
      String transaction = transactionOf.get(id);
      if (transaction != null) {
        visible.add(new TransactionChecker.Visible(transaction, id, r.partition(), r.offset()));
      }
    }
    violations.addAll(ReplicationChecker.violations(read, log, Map.of(), List.of()));
    if (settings.transactional()) {
      violations.addAll(TransactionChecker.violations(visible, aborted, sentPerTransaction));
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("topic", topic.name());
    figures.put("partitions", topic.partitions());
    figures.put("producers", settings.producers());
    figures.put("sent", log.sentCount());
    figures.put("acknowledged", log.acks().size());
    figures.put("read", records.size());
    if (settings.transactional()) {
      figures.put("transactions_committed", committed.size());
      figures.put("transactions_aborted", aborted.size());
    }
    return new Verdict("produce", figures, violations);
  }
}
