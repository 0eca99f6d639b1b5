package io.brook.tests.groups.share;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A share group member in its own JVM, for tests that SIGKILL it. Arguments: bootstrap, topic,
 * group, output file. It polls until it is given records, writes "R key deliveryCount" for each and
 * then "HELD", and keeps them without acknowledging until it is killed.
 */
public final class ShareChildMain {
  private ShareChildMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("group.id", args[2]);
    props.put("client.id", "share-child");
    props.put("share.acknowledgement.mode", "explicit");
    KafkaShareConsumer<String, String> consumer =
        new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    consumer.subscribe(List.of(args[1]));
    ConsumerRecords<String, String> got = ConsumerRecords.empty();
    while (got.isEmpty()) {
      got = consumer.poll(Duration.ofMillis(200));
    }
    StringBuilder lines = new StringBuilder();
    for (ConsumerRecord<String, String> r : got) {
      lines.append("R ").append(r.key()).append(' ').append(r.deliveryCount().orElseThrow());
      lines.append('\n');
    }
    lines.append("HELD\n");
    // Written whole, then moved into place: the test never reads half of it.
    Path target = Path.of(args[3]);
    Path written = target.resolveSibling(target.getFileName() + ".tmp");
    Files.writeString(written, lines, StandardCharsets.UTF_8);
    Files.move(written, target, StandardCopyOption.ATOMIC_MOVE);
    // Holds the records, never acknowledging them, until killed.
    Thread.currentThread().join();
  }
}
