package io.brook.tests.cluster.eos;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A settlement service as a separate JVM, so a test can SIGKILL it mid-transaction: it reads
 * payment events with {@code read_committed}, writes one ledger entry per payment and advances its
 * input position in the same transaction ({@code sendOffsetsToTransaction}), the read-process-write
 * loop of KIP-98.
 *
 * <p>Each ledger entry is the payment's value followed by {@code |partition:offset} of the payment,
 * so a checker can match every output to its input. The app exits on the first error; whoever
 * supervises it starts a new instance with the same {@code transactional.id}, which fences this one
 * and aborts the transaction it left open. A static group member ({@code group.instance.id}) takes
 * over the dead one's partitions without waiting for its session to expire.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, group id, transactional id, and how
 * long to hold each transaction open once its outputs are written (so that a test can kill it
 * then). Prints {@code open N} when a transaction's outputs are written and {@code committed N}
 * after its commit.
 */
public final class SettlementApp {
  private SettlementApp() {}

  public static void main(String[] args) {
    if (args.length != 6) {
      System.err.println(
          "usage: SettlementApp <bootstrap> <input> <output> <group> <txn-id> <hold-ms>");
      System.exit(2);
    }
    String bootstrap = args[0];
    String input = args[1];
    String output = args[2];
    String group = args[3];
    String transactionalId = args[4];
    long holdMs = Long.parseLong(args[5]);
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, transactionalId);
        KafkaProducer<String, String> producer = producer(bootstrap, transactionalId)) {
      producer.initTransactions();
      consumer.subscribe(List.of(input));
      System.out.println("started");
      while (true) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
          continue;
        }
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          String entry = r.value() + "|" + r.partition() + ":" + r.offset();
          producer.send(new ProducerRecord<>(output, r.key(), entry));
          next.put(
              new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        // Written but not committed: a kill now leaves an open transaction to abort.
        producer.flush();
        System.out.println("open " + records.count());
        Thread.sleep(holdMs);
        producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
        producer.commitTransaction();
        System.out.println("committed " + records.count());
      }
    } catch (RuntimeException | InterruptedException e) {
      // Fenced, timed out or anything else: a new instance takes over from the last commit.
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static KafkaConsumer<String, String> consumer(
      String bootstrap, String group, String instance) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "15000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }
}
