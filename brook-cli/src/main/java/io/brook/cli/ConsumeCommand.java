package io.brook.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code brook consume TOPIC}: prints records as they arrive. Without {@code --group} it reads the
 * partitions directly from {@code --offset} or {@code --from-time}; with one it joins the group,
 * starts from the group's committed offsets and commits what it printed.
 */
@Command(name = "consume", description = "Print records of a topic.")
final class ConsumeCommand implements Callable<Integer> {
  @Mixin ClientOptions client;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "TOPIC")
  String topic;

  @Option(
      names = {"-o", "--offset"},
      defaultValue = "earliest",
      paramLabel = "earliest|latest|N",
      description =
          "Where to start in each partition (default: ${DEFAULT-VALUE}); with --group, where to"
              + " start when the group has no committed offset.")
  String offset;

  @Option(
      names = "--from-time",
      paramLabel = "ISO-8601",
      description = "Start at the first record at or after this time, e.g. 2026-12-01T10:00:00Z.")
  String fromTime;

  @Option(
      names = {"-g", "--group"},
      description = "Consume as a member of this consumer group and commit what is printed.")
  String group;

  @Option(
      names = {"-p", "--partition"},
      split = ",",
      description = "Only these partitions (not with --group).")
  List<Integer> partitions;

  @Option(
      names = {"-n", "--num"},
      description = "Stop after this many records.")
  Long count;

  @Option(
      names = {"-e", "--exit-at-end"},
      description =
          "Stop once every partition is read up to where it ended at start (not with --group).")
  boolean exitAtEnd;

  @Option(
      names = "--format",
      defaultValue = "text",
      paramLabel = "text|json|yaml|TEMPLATE",
      description =
          "text prints each value; json one object per line; yaml one document per record; or a"
              + " template: %%t topic, %%p partition, %%o offset, %%k key, %%v value, %%T timestamp"
              + " (ms), %%h headers, %%%% a percent sign, \\n and \\t.")
  String format;

  private volatile boolean stopping;

  @Override
  public Integer call() throws Exception {
    RecordFormat recordFormat = recordFormat();
    boolean grouped = group != null;
    if (grouped && (partitions != null || exitAtEnd || fromTime != null || !isNamedOffset())) {
      throw new ParameterException(
          spec.commandLine(),
          "--group starts from the group's offsets: use --offset earliest|latest only, and not"
              + " --partition, --from-time or --exit-at-end (move a group with `brook group reset`)");
    }
    if (count != null && count < 1) {
      throw new ParameterException(spec.commandLine(), "--num must be at least 1");
    }
    Instant startTime = parseTime();
    Properties props = client.clientProperties();
    props.put(
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest".equals(offset) ? "latest" : "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // Reading a topic that does not exist must not create it.
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    props.putIfAbsent(
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(client.timeoutMs));
    if (grouped) {
      props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
      Map<TopicPartition, Long> ends = grouped ? Map.of() : assign(consumer, startTime);
      Thread hook = null;
      CountDownLatch done = new CountDownLatch(1);
      if (count == null && !exitAtEnd) {
        // Runs until Ctrl-C: let the loop commit and close the consumer before the JVM exits.
        hook =
            new Thread(
                () -> {
                  stopping = true;
                  consumer.wakeup();
                  try {
                    done.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "brook-consume-stop");
        Runtime.getRuntime().addShutdownHook(hook);
      }
      try {
        loop(consumer, recordFormat, out, ends);
      } finally {
        done.countDown();
        if (hook != null && !stopping) {
          Runtime.getRuntime().removeShutdownHook(hook);
        }
      }
    }
    return 0;
  }

  private void loop(
      KafkaConsumer<String, String> consumer,
      RecordFormat recordFormat,
      PrintWriter out,
      Map<TopicPartition, Long> ends) {
    long printed = 0;
    Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
    if (group != null) {
      consumer.subscribe(List.of(topic));
    }
    try {
      while (!stopping
          && (count == null || printed < count)
          && !(exitAtEnd && atEnd(consumer, ends))) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          recordFormat.print(out, record);
          printed++;
          toCommit.put(
              new TopicPartition(record.topic(), record.partition()),
              // With the record's leader epoch, as kafka-clients commits its own positions: the
              // group's next reader then waits for a leader of that epoch, and a deposed leader
              // that does not know it yet cannot send it back to the log start.
              new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
          if (count != null && printed >= count) {
            break;
          }
        }
        out.flush();
        if (group != null && !toCommit.isEmpty()) {
          consumer.commitSync(toCommit);
          toCommit.clear();
        }
      }
    } catch (WakeupException e) {
      if (!stopping) {
        throw e;
      }
    } finally {
      out.flush();
      if (group != null && !toCommit.isEmpty()) {
        consumer.commitSync(toCommit);
      }
    }
  }

  private static boolean atEnd(
      KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Assigns the partitions and seeks each to the start asked for; returns their end offsets. */
  private Map<TopicPartition, Long> assign(KafkaConsumer<String, String> consumer, Instant start) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic);
    if (infos == null || infos.isEmpty()) {
      throw new CliException("topic '" + topic + "' does not exist");
    }
    List<TopicPartition> assigned = new ArrayList<>();
    for (PartitionInfo info : infos) {
      if (partitions == null || partitions.contains(info.partition())) {
        assigned.add(new TopicPartition(topic, info.partition()));
      }
    }
    if (assigned.isEmpty()) {
      throw new CliException("topic '" + topic + "' has no partition " + partitions);
    }
    consumer.assign(assigned);
    Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
    if (start != null) {
      Map<TopicPartition, Long> query = new HashMap<>();
      assigned.forEach(tp -> query.put(tp, start.toEpochMilli()));
      Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
      for (TopicPartition tp : assigned) {
        OffsetAndTimestamp at = found.get(tp);
        consumer.seek(tp, at == null ? ends.get(tp) : at.offset());
      }
    } else if ("earliest".equals(offset)) {
      consumer.seekToBeginning(assigned);
    } else if ("latest".equals(offset)) {
      consumer.seekToEnd(assigned);
    } else {
      long n = parseOffset();
      Map<TopicPartition, Long> begins = consumer.beginningOffsets(assigned);
      for (TopicPartition tp : assigned) {
        // Clamp to the partition's range, as Kafka's tools do, rather than fail on a gap.
        consumer.seek(tp, Math.max(begins.get(tp), Math.min(n, ends.get(tp))));
      }
    }
    return ends;
  }

  private boolean isNamedOffset() {
    return "earliest".equals(offset) || "latest".equals(offset);
  }

  private long parseOffset() {
    try {
      long n = Long.parseLong(offset);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--offset must be earliest, latest or an offset >= 0, not '" + offset + "'");
    }
  }

  private Instant parseTime() {
    if (fromTime == null) {
      return null;
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--offset")) {
      throw new ParameterException(spec.commandLine(), "give --offset or --from-time, not both");
    }
    try {
      return OffsetDateTime.parse(fromTime).toInstant();
    } catch (DateTimeParseException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--from-time must be ISO-8601 with an offset, e.g. 2026-12-01T10:00:00Z, not '"
              + fromTime
              + "'");
    }
  }

  private RecordFormat recordFormat() {
    if (format.contains("%")) {
      return new RecordFormat(null, format.replace("\\n", "\n").replace("\\t", "\t"));
    }
    try {
      return new RecordFormat(OutputFormat.parse(format), null);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--format: expected text, json, yaml or a template with %v etc.");
    }
  }

  /** Either one of the output formats or a template. */
  private record RecordFormat(OutputFormat format, String template) {
    void print(PrintWriter out, ConsumerRecord<String, String> record) {
      if (template != null) {
        out.print(render(template, record));
        out.println();
      } else if (format == OutputFormat.TEXT) {
        out.println(record.value() == null ? "" : record.value());
      } else {
        format.printElement(out, asMap(record));
      }
    }

    private static Map<String, Object> asMap(ConsumerRecord<String, String> record) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("topic", record.topic());
      m.put("partition", record.partition());
      m.put("offset", record.offset());
      m.put("timestamp", record.timestamp());
      m.put("key", record.key());
      m.put("value", record.value());
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header h : record.headers()) {
        headers.put(
            h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
      }
      m.put("headers", headers);
      return m;
    }

    private static String render(String template, ConsumerRecord<String, String> record) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < template.length(); i++) {
        char c = template.charAt(i);
        if (c != '%' || i + 1 == template.length()) {
          s.append(c);
          continue;
        }
        char f = template.charAt(++i);
        switch (f) {
          case 't' -> s.append(record.topic());
          case 'p' -> s.append(record.partition());
          case 'o' -> s.append(record.offset());
          case 'k' -> s.append(record.key() == null ? "" : record.key());
          case 'v' -> s.append(record.value() == null ? "" : record.value());
          case 'T' -> s.append(record.timestamp());
          case 'h' -> {
            List<String> parts = new ArrayList<>();
            for (Header h : record.headers()) {
              parts.add(
                  h.key()
                      + "="
                      + (h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8)));
            }
            s.append(String.join(",", parts));
          }
          case '%' -> s.append('%');
          default -> s.append('%').append(f);
        }
      }
      return s.toString();
    }
  }
}
