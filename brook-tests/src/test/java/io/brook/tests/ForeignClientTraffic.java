package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * kcat (librdkafka) and kafkajs clients on their own connections, doing round trips while a test
 * abuses the broker on others, as {@link BackgroundTraffic} does for kafka-clients. Each kcat round
 * produces one line to partition 0 of its topic and reads the partition's last record back; the
 * kafkajs process ({@code js/round-trips.js}) produces one record at a time with acks=all and
 * checks its offset and the end offset the admin API reports.
 *
 * <p>Both need the tools {@code .ci/run} installs (kcat; node with kafkajs in brook-tests/js).
 */
final class ForeignClientTraffic implements AutoCloseable {
  private static final Duration ROUND_TIMEOUT = Duration.ofSeconds(30);

  private final String bootstrap;
  private final String kcatTopic;
  private final Path kcat;
  private final Process kafkajs;
  private final AtomicLong kcatRounds = new AtomicLong();
  private final AtomicLong kafkajsRounds = new AtomicLong();
  private final List<String> errors = new CopyOnWriteArrayList<>();
  private final List<String> kafkajsOutput = new CopyOnWriteArrayList<>();
  private final Thread kcatThread;
  private final Thread kafkajsReader;
  private volatile boolean running = true;

  private ForeignClientTraffic(String bootstrap, String kcatTopic, Path kcat, Process kafkajs) {
    this.bootstrap = bootstrap;
    this.kcatTopic = kcatTopic;
    this.kcat = kcat;
    this.kafkajs = kafkajs;
    this.kcatThread = new Thread(this::kcatRounds, "background-kcat");
    this.kafkajsReader = new Thread(this::readKafkajs, "background-kafkajs");
  }

  /** Starts both clients, each on a new single-partition topic named after {@code prefix}. */
  static ForeignClientTraffic start(String bootstrap, String prefix) throws Exception {
    Path kcat =
        ChildProcess.onPath("kcat")
            .orElseThrow(
                () -> new AssertionError("kcat is not on PATH. .ci/run installs it (apt kcat)."));
    Path node =
        ChildProcess.onPath("node")
            .orElseThrow(
                () -> new AssertionError("node is not on PATH. .ci/run installs it (apt nodejs)."));
    Path js = Path.of(System.getProperty("brook.tests.js.dir", "js")).toAbsolutePath();
    assertThat(js.resolve("node_modules/kafkajs/package.json"))
        .as("kafkajs is not installed in %s; .ci/run installs it", js)
        .exists();
    String kcatTopic = prefix + "-kcat";
    String kafkajsTopic = prefix + "-kafkajs";
    TestClients.createTopic(bootstrap, kcatTopic, 1);
    TestClients.createTopic(bootstrap, kafkajsTopic, 1);
    ProcessBuilder builder =
        new ProcessBuilder(
                node.toString(), js.resolve("round-trips.js").toString(), bootstrap, kafkajsTopic)
            .redirectErrorStream(true);
    builder.environment().put("KAFKAJS_NO_PARTITIONER_WARNING", "1");
    ForeignClientTraffic traffic =
        new ForeignClientTraffic(bootstrap, kcatTopic, kcat, builder.start());
    traffic.kcatThread.start();
    traffic.kafkajsReader.start();
    return traffic;
  }

  private void kcatRounds() {
    for (long round = 0; running && errors.isEmpty(); round++) {
      String line = "kcat-" + round;
      ChildProcess.Result produced =
          ChildProcess.run(
              List.of(kcat.toString(), "-P", "-b", bootstrap, "-t", kcatTopic, "-p", "0"),
              line + "\n",
              ROUND_TIMEOUT);
      ChildProcess.Result last =
          ChildProcess.run(
              List.of(
                  kcat.toString(),
                  "-C",
                  "-b",
                  bootstrap,
                  "-t",
                  kcatTopic,
                  "-p",
                  "0",
                  "-o",
                  "-1",
                  "-e",
                  "-q"),
              "",
              ROUND_TIMEOUT);
      if (produced.exitCode() != 0 || last.exitCode() != 0 || !last.stdout().strip().equals(line)) {
        errors.add("kcat round " + round + ":\n" + produced.describe() + "\n" + last.describe());
        return;
      }
      kcatRounds.incrementAndGet();
    }
  }

  private void readKafkajs() {
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(kafkajs.getInputStream(), UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        kafkajsOutput.add(line);
        if (line.startsWith("ok ")) {
          kafkajsRounds.incrementAndGet();
        }
      }
    } catch (IOException e) {
      errors.add("reading kafkajs output: " + e);
    }
    if (running) {
      errors.add("kafkajs exited while the test ran:\n" + String.join("\n", kafkajsOutput));
    }
  }

  /** Waits until both clients finished a round since this call; fails on any error so far. */
  void assertStillFlowing() {
    long kcatBefore = kcatRounds.get();
    long kafkajsBefore = kafkajsRounds.get();
    await("kcat and kafkajs finish a round (errors: " + errors + ")")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                !errors.isEmpty()
                    || (kcatRounds.get() > kcatBefore && kafkajsRounds.get() > kafkajsBefore));
    assertThat(errors).as("errors of the kcat and kafkajs clients").isEmpty();
  }

  /** Stops both clients after their current round; fails if either saw an error. */
  @Override
  public void close() throws Exception {
    running = false;
    kcatThread.join(ROUND_TIMEOUT.multipliedBy(3).toMillis());
    kafkajs.getOutputStream().close();
    boolean exited = kafkajs.waitFor(ROUND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (!exited) {
      kafkajs.destroyForcibly();
    }
    kafkajsReader.join(ROUND_TIMEOUT.toMillis());
    List<String> problems = new ArrayList<>(errors);
    if (!exited || kafkajs.exitValue() != 0) {
      problems.add("kafkajs did not stop cleanly:\n" + String.join("\n", kafkajsOutput));
    }
    assertThat(problems).as("errors of the kcat and kafkajs clients").isEmpty();
    assertThat(kcatRounds.get()).isPositive();
    assertThat(kafkajsRounds.get()).isPositive();
  }
}
