package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.EmbeddedBrook;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every {@code brook} command run in-process through picocli against one real node, with {@code
 * --format json} parsed and checked.
 */
class BrookCliTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path configDir;

  private static EmbeddedBrook brook;
  private static String previousConfigDir;

  @BeforeAll
  static void start() {
    brook = EmbeddedBrook.builder().config("group.initial.rebalance.delay.ms", "0").start();
    previousConfigDir = System.getProperty("brook.config.dir");
    System.setProperty("brook.config.dir", configDir.toString());
  }

  @AfterAll
  static void stop() {
    if (previousConfigDir == null) {
      System.clearProperty("brook.config.dir");
    } else {
      System.setProperty("brook.config.dir", previousConfigDir);
    }
    brook.close();
  }

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }

    List<JsonNode> jsonLines() throws Exception {
      List<JsonNode> lines = new ArrayList<>();
      for (String line : out.split("\n")) {
        if (!line.isBlank()) {
          lines.add(JSON.readTree(line));
        }
      }
      return lines;
    }
  }

  /** Runs {@code brook args} in-process with {@code stdin}; also used by VerifyCommandTest. */
  static Run run(String stdin, String... args) {
    CommandLine cli =
        BrookCli.commandLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** A command against the test node, JSON output. */
  private static Run brook(String... args) {
    return brookWithInput("", args);
  }

  private static Run brookWithInput(String stdin, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-b", brook.bootstrapServers(), "--format", "json"));
    Run r = run(stdin, all.toArray(String[]::new));
    assertThat(r.exit()).as("exit of %s; stderr: %s", all, r.err()).isZero();
    return r;
  }

  @Test
  void topicCreateListDescribeAlterDelete() throws Exception {
    JsonNode created =
        brook("topic", "create", "cli-topics", "-p", "3", "-c", "cleanup.policy=compact").json();
    assertThat(created.get(0).get("topic").asText()).isEqualTo("cli-topics");
    assertThat(created.get(0).get("partitions").asInt()).isEqualTo(3);
    assertThat(created.get(0).get("replication_factor").asInt()).isEqualTo(1);

    JsonNode list = brook("topic", "list").json();
    assertThat(list.findValuesAsText("name")).contains("cli-topics");

    JsonNode described = brook("topic", "describe", "cli-topics").json();
    assertThat(described.get("partition_count").asInt()).isEqualTo(3);
    assertThat(described.get("partitions")).hasSize(3);
    assertThat(described.get("partitions").get(0).get("leader").asInt()).isEqualTo(1);
    assertThat(described.get("configs").get("cleanup.policy").asText()).isEqualTo("compact");

    brook(
        "topic",
        "alter-config",
        "cli-topics",
        "-c",
        "retention.ms=3600000",
        "-d",
        "cleanup.policy");
    JsonNode after = brook("topic", "describe", "cli-topics").json().get("configs");
    assertThat(after.get("retention.ms").asText()).isEqualTo("3600000");
    assertThat(after.has("cleanup.policy")).isFalse();

    assertThat(brook("topic", "delete", "cli-topics").json().get("deleted").get(0).asText())
        .isEqualTo("cli-topics");
    assertThat(brook("topic", "list").json().findValuesAsText("name")).doesNotContain("cli-topics");
  }

  @Test
  void produceThenConsumeRoundTrip() throws Exception {
    brook("topic", "create", "cli-round-trip", "-p", "2");
    JsonNode produced =
        brookWithInput(
                "k1:v1\nk2:v2\nk3:v3\n",
                "produce",
                "cli-round-trip",
                "--key-separator",
                ":",
                "-H",
                "source=cli",
                "--partition",
                "1",
                "--acks",
                "1")
            .json();
    assertThat(produced.get("records").asLong()).isEqualTo(3);
    assertThat(produced.get("partitions")).hasSize(1);
    assertThat(produced.get("partitions").get(0).get("partition").asInt()).isEqualTo(1);
    assertThat(produced.get("partitions").get(0).get("last_offset").asLong()).isEqualTo(2);

    List<JsonNode> records = brook("consume", "cli-round-trip", "-n", "3").jsonLines();
    assertThat(records).hasSize(3);
    assertThat(records.stream().map(r -> r.get("key").asText()).toList())
        .containsExactly("k1", "k2", "k3");
    assertThat(records.get(1).get("value").asText()).isEqualTo("v2");
    assertThat(records.get(1).get("partition").asInt()).isEqualTo(1);
    assertThat(records.get(1).get("offset").asLong()).isEqualTo(1);
    assertThat(records.get(1).get("headers").get("source").asText()).isEqualTo("cli");

    // From offset 1 of partition 1, to the end, with a template.
    Run fromOne =
        run(
            "",
            "consume",
            "cli-round-trip",
            "-b",
            brook.bootstrapServers(),
            "-p",
            "1",
            "--offset",
            "1",
            "--exit-at-end",
            "--format",
            "%p/%o %k=%v");
    assertThat(fromOne.exit()).as(fromOne.err()).isZero();
    assertThat(fromOne.out().lines().toList()).containsExactly("1/1 k2=v2", "1/2 k3=v3");

    // Nothing was written after a time in the future.
    Run future =
        brook("consume", "cli-round-trip", "--from-time", "2999-01-01T00:00:00Z", "--exit-at-end");
    assertThat(future.out()).isBlank();
  }

  @Test
  void groupLagAndReset() throws Exception {
    brook("topic", "create", "cli-group", "-p", "1");
    brookWithInput("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "produce", "cli-group");
    assertThat(brook("consume", "cli-group", "--group", "cli-g", "-n", "4").jsonLines()).hasSize(4);
    // The commit carries the leader epoch of the last record read, as kafka-clients' own commits
    // do: the group's next reader waits for a leader of that epoch instead of trusting a deposed
    // one that does not know it yet (which could send it back to the log start).
    assertThat(committedLeaderEpochs("cli-g")).containsExactly(Optional.of(0));

    assertThat(brook("group", "list").json().findValuesAsText("group")).contains("cli-g");
    assertLag("cli-g", 4, 6);
    JsonNode described = brook("group", "describe", "cli-g").json();
    assertThat(described.get("state").asText()).isEqualToIgnoringCase("Empty");
    assertThat(described.get("offsets").get(0).get("lag").asLong()).isEqualTo(6);

    // A dry run shows the plan and changes nothing.
    JsonNode plan = brook("group", "reset", "cli-g", "--to-earliest").json();
    assertThat(plan.get("executed").asBoolean()).isFalse();
    assertThat(plan.get("partitions").get(0).get("current").asLong()).isEqualTo(4);
    assertThat(plan.get("partitions").get(0).get("new").asLong()).isZero();
    assertLag("cli-g", 4, 6);

    brook("group", "reset", "cli-g", "--to-earliest", "--execute");
    assertLag("cli-g", 0, 10);
    brook("group", "reset", "cli-g", "--to-latest", "--execute");
    assertLag("cli-g", 10, 0);
    brook("group", "reset", "cli-g", "--to-time", "2000-01-01T00:00:00Z", "--execute");
    assertLag("cli-g", 0, 10);

    // The group resumes from the reset offset.
    assertThat(
            brook("consume", "cli-group", "--group", "cli-g", "-n", "1")
                .jsonLines()
                .get(0)
                .get("value")
                .asText())
        .isEqualTo("a");
  }

  /** The leader epochs of {@code group}'s committed offsets, read through the Admin API. */
  private static List<Optional<Integer>> committedLeaderEpochs(String group) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()))) {
      return admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get()
          .values()
          .stream()
          .map(OffsetAndMetadata::leaderEpoch)
          .toList();
    }
  }

  private static void assertLag(String group, long committed, long lag) throws Exception {
    JsonNode result = brook("group", "lag", group).json();
    assertThat(result.get("total_lag").asLong()).isEqualTo(lag);
    JsonNode row = result.get("partitions").get(0);
    assertThat(row.get("committed").asLong()).isEqualTo(committed);
    assertThat(row.get("end").asLong()).isEqualTo(10);
    assertThat(row.get("lag").asLong()).isEqualTo(lag);
  }

  @Test
  void clusterStatus() throws Exception {
    JsonNode status = brook("cluster", "status").json();
    assertThat(status.get("brokers")).hasSize(1);
    assertThat(status.get("brokers").get(0).get("controller").asBoolean()).isTrue();
    assertThat(status.get("brokers").get(0).get("fenced").asBoolean()).isFalse();
    assertThat(status.get("controller_id").asInt()).isEqualTo(1);
    assertThat(status.get("offline_partitions")).isEmpty();
    assertThat(status.get("under_replicated_partitions")).isEmpty();
    assertThat(status.get("healthy").asBoolean()).isTrue();
    assertThat(status.get("cluster_id").asText()).isNotBlank();
  }

  @Test
  void configExplainReadsTheConfigDefinitions() throws Exception {
    JsonNode numPartitions =
        run("", "config", "explain", "num.partitions", "--format", "json").json();
    assertThat(numPartitions.get("kind").asText()).isEqualTo("broker");
    assertThat(numPartitions.get("default").asText()).isEqualTo("1");
    assertThat(numPartitions.get("used_by_brook").asBoolean()).isTrue();
    assertThat(numPartitions.get("description").asText()).isNotBlank();

    JsonNode cleanup = run("", "config", "explain", "cleanup.policy", "--format", "json").json();
    assertThat(cleanup.get("kind").asText()).isEqualTo("topic");
    assertThat(cleanup.get("default").asText()).isEqualTo("delete");
    assertThat(cleanup.get("broker_default_from").get(0).asText()).isEqualTo("log.cleanup.policy");

    Run yaml = run("", "config", "explain", "num.partitions", "--format", "yaml");
    assertThat(yaml.out()).contains("name: num.partitions").contains("kind: broker");

    Run unknown = run("", "config", "explain", "no.such.config");
    assertThat(unknown.exit()).isEqualTo(BrookCli.FAILED);
    assertThat(unknown.err()).contains("no.such.config");
  }

  @Test
  void profilesSupplyTheBrokers() throws Exception {
    Path clientProps = configDir.resolve("client.properties");
    Files.writeString(clientProps, "client.id=from-profile\n");
    Run created =
        run(
            "",
            "profile",
            "create",
            "local",
            "--brokers",
            brook.bootstrapServers(),
            "--command-config",
            clientProps.toString(),
            "--format",
            "json");
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.json().get("current").asBoolean()).isTrue();
    assertThat(Files.readString(configDir.resolve("profiles"))).contains("profile.local.brokers=");

    // --profile, and the current profile when nothing is named.
    Run named = run("", "cluster", "status", "--profile", "local", "--format", "json");
    assertThat(named.exit()).as(named.err()).isZero();
    assertThat(named.json().get("brokers")).hasSize(1);
    Run current = run("", "cluster", "status", "--format", "json");
    assertThat(current.exit()).as(current.err()).isZero();

    run("", "profile", "create", "other", "--brokers", "localhost:1");
    JsonNode list = run("", "profile", "list", "--format", "json").json();
    assertThat(list.findValuesAsText("name")).containsExactly("local", "other");
    assertThat(run("", "profile", "use", "other").exit()).isZero();
    assertThat(
            run("", "profile", "list", "--format", "json").json().get(1).get("current").asBoolean())
        .isTrue();
    assertThat(run("", "profile", "delete", "other").exit()).isZero();
    assertThat(run("", "profile", "use", "local").exit()).isZero();

    Run missing = run("", "cluster", "status", "--profile", "nope");
    assertThat(missing.exit()).isEqualTo(BrookCli.FAILED);
    assertThat(missing.err()).contains("no profile named 'nope'");
    assertThat(run("", "profile", "delete", "local").exit()).isZero();
  }

  @Test
  void exitCodesVersionAndCompletion() {
    assertThat(run("", "topic", "create").exit()).isEqualTo(BrookCli.USAGE);
    assertThat(run("", "topic", "list", "--no-such-option").exit()).isEqualTo(BrookCli.USAGE);
    assertThat(run("", "group", "reset", "g").exit()).isEqualTo(BrookCli.USAGE);
    assertThat(run("", "cluster", "status", "--format", "xml").exit()).isEqualTo(BrookCli.USAGE);

    Run missingTopic =
        run("", "topic", "describe", "cli-no-such-topic", "-b", brook.bootstrapServers());
    assertThat(missingTopic.exit()).isEqualTo(BrookCli.FAILED);
    assertThat(missingTopic.err()).startsWith("brook: error: UnknownTopicOrPartitionException");

    Run help = run("", "help", "group");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("lag").contains("reset");

    Run version = run("", "--version");
    assertThat(version.exit()).isZero();
    assertThat(version.out()).matches("brook \\d+\\.\\d+\\.\\d+.*\\s*");

    Run completion = run("", "completion");
    assertThat(completion.exit()).isZero();
    assertThat(completion.out()).contains("complete").contains("consume").contains("--to-earliest");

    Run created = run("", "topic", "create", "cli-text", "-b", brook.bootstrapServers());
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.out()).startsWith("TOPIC").contains("cli-text");
    Run text = run("", "topic", "list", "-b", brook.bootstrapServers());
    assertThat(text.exit()).isZero();
    assertThat(text.out()).startsWith("NAME").contains("cli-text");
  }
}
