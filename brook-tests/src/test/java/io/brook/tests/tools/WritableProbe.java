package io.brook.tests.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Used by {@code scripts/restart-time.sh}, not a test: started together with the broker, it
 * produces one record (acks=all) to every partition of a topic and prints how long after {@code
 * START_EPOCH_MILLIS} the last of them was acknowledged, that is, when the broker became writable.
 *
 * <pre>
 * java -cp ... io.brook.tests.tools.WritableProbe BOOTSTRAP TOPIC PARTITIONS START_EPOCH_MILLIS
 * </pre>
 */
public final class WritableProbe {
  private WritableProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: WritableProbe BOOTSTRAP TOPIC PARTITIONS START_EPOCH_MILLIS");
      System.exit(2);
    }
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    long startMillis = Long.parseLong(args[3]);

    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    // Poll a broker that is still starting every 10-20 ms, not with the default up-to-1 s backoff,
    // so the measurement is not rounded up by the client.
    props.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "10");
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "20");
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
    props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "20");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        sends.add(producer.send(new ProducerRecord<>(topic, p, null, "probe".getBytes())));
      }
      for (Future<RecordMetadata> send : sends) {
        send.get();
      }
      long elapsed = System.currentTimeMillis() - startMillis;
      System.out.printf(
          Locale.ROOT, "writable partitions=%d seconds=%.3f%n", partitions, elapsed / 1000.0);
    }
  }
}
