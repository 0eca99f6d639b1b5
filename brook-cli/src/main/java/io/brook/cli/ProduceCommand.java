package io.brook.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code brook produce TOPIC}: one record per line of standard input, then a summary (records per
 * partition and their offsets). Exits 1 if any record was not acknowledged.
 */
@Command(name = "produce", description = "Write one record per line of standard input.")
final class ProduceCommand implements Callable<Integer> {
  @ParentCommand BrookCli root;
  @Mixin ClientOptions client;
  @Mixin FormatOption output;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "TOPIC")
  String topic;

  @Option(
      names = {"-k", "--key-separator"},
      paramLabel = "SEP",
      description =
          "Split each line at the first SEP into key and value (a line without it fails).")
  String keySeparator;

  @Option(
      names = {"-H", "--header"},
      paramLabel = "KEY=VALUE",
      description = "A header on every record (repeatable).")
  Map<String, String> headers = new LinkedHashMap<>();

  @Option(
      names = {"-p", "--partition"},
      description = "Write every record to this partition (default: by key, or spread).")
  Integer partition;

  @Option(
      names = "--acks",
      defaultValue = "all",
      description = "0, 1 or all (default: ${DEFAULT-VALUE}).")
  String acks;

  /** Offsets acknowledged per partition: first and last. */
  private final Map<Integer, long[]> offsets = new TreeMap<>();

  private final AtomicReference<Exception> firstError = new AtomicReference<>();

  @Override
  public Integer call() throws Exception {
    if (!List.of("0", "1", "all", "-1").contains(acks)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--acks must be 0, 1 or all, not '" + acks + "'");
    }
    if (keySeparator != null && keySeparator.isEmpty()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--key-separator must not be empty");
    }
    Properties props = client.clientProperties();
    props.put(ProducerConfig.ACKS_CONFIG, acks);
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(client.timeoutMs));
    // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
    props.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(client.timeoutMs));
    props.putIfAbsent(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(client.timeoutMs + 1_000));
    List<Header> recordHeaders = new ArrayList<>();
    headers.forEach(
        (k, v) -> recordHeaders.add(new RecordHeader(k, v.getBytes(StandardCharsets.UTF_8))));
    long sent = 0;
    try (KafkaProducer<String, String> producer =
            new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        BufferedReader in =
            new BufferedReader(new InputStreamReader(root.stdin(), StandardCharsets.UTF_8))) {
      String line;
      long lineNumber = 0;
      while ((line = in.readLine()) != null && firstError.get() == null) {
        lineNumber++;
        String key = null;
        String value = line;
        if (keySeparator != null) {
          int at = line.indexOf(keySeparator);
          if (at < 0) {
            throw new CliException(
                "line " + lineNumber + " has no key separator '" + keySeparator + "'");
          }
          key = line.substring(0, at);
          value = line.substring(at + keySeparator.length());
        }
        producer.send(
            new ProducerRecord<>(topic, partition, key, value, recordHeaders),
            (metadata, e) -> {
              if (e != null) {
                firstError.compareAndSet(null, e);
              } else {
                record(metadata.partition(), metadata.offset());
              }
            });
        sent++;
      }
      producer.flush();
    }
    if (firstError.get() != null) {
      throw firstError.get();
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("topic", topic);
    result.put("records", sent);
    List<Map<String, Object>> partitions = new ArrayList<>();
    synchronized (offsets) {
      offsets.forEach(
          (p, range) -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("partition", p);
            row.put("records", range[2]);
            row.put("first_offset", range[0]);
            row.put("last_offset", range[1]);
            partitions.add(row);
          });
    }
    result.put("partitions", partitions);
    output.print(spec.commandLine().getOut(), result);
    return 0;
  }

  private void record(int p, long offset) {
    synchronized (offsets) {
      long[] range = offsets.computeIfAbsent(p, k -> new long[] {Long.MAX_VALUE, -1, 0});
      range[0] = Math.min(range[0], offset);
      range[1] = Math.max(range[1], offset);
      range[2]++;
    }
  }
}
