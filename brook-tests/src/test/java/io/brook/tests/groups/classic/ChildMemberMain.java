package io.brook.tests.groups.classic;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A classic group member in its own JVM, for tests that SIGKILL it. Arguments: bootstrap, topic,
 * group, output file. It appends "R partition:offset" for every record before committing it, and "A
 * generation p,p,..." after every assignment, flushing each batch, until it is killed.
 */
public final class ChildMemberMain {
  private ChildMemberMain() {}

  public static void main(String[] args) throws IOException {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("group.id", args[2]);
    props.put("group.protocol", "classic");
    props.put("client.id", "child");
    props.put("auto.offset.reset", "earliest");
    props.put("enable.auto.commit", "false");
    props.put("session.timeout.ms", "10000");
    props.put("heartbeat.interval.ms", "1000");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (Writer out =
            Files.newBufferedWriter(
                Path.of(args[3]),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(
          List.of(args[1]),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              String owned =
                  consumer.assignment().stream()
                      .map(tp -> Integer.toString(tp.partition()))
                      .collect(Collectors.joining(","));
              write(out, "A " + consumer.groupMetadata().generationId() + " " + owned + "\n");
            }
          });
      while (true) {
        var records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          out.write("R " + r.partition() + ":" + r.offset() + "\n");
        }
        out.flush();
        if (!records.isEmpty()) {
          consumer.commitSync();
        }
      }
    }
  }

  private static void write(Writer out, String line) {
    try {
      out.write(line);
      out.flush();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
