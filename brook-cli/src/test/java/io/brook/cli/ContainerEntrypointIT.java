package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image's entry point ({@code docker/entrypoint.sh}) run directly against the
 * unpacked tarball, as the image runs it: environment variables become a properties file that
 * {@code bin/brook server} starts from. The node logs JSON lines ({@code BROOK_LOG_FORMAT=json}):
 * every stdout line parses, the start-up and leader lines carry their fields, and the same lines go
 * to a rolled, bounded log file ({@code BROOK_LOG_DIR}).
 */
class ContainerEntrypointIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void environmentBecomesTheServersPropertiesAndLogsAreJsonLines() throws Exception {
    Distribution dist = Distribution.unpack(dir);
    int port = DistributionIT.consecutivePorts();
    int adminPort = PortAllocator.shared().allocate();
    Path config = dir.resolve("container/server.properties");
    Path data = dir.resolve("container/data");
    Path logs = dir.resolve("container/logs");
    Path entrypoint = Path.of(System.getProperty("brook.docker.entrypoint"));
    ProcessBuilder pb = dist.launch(List.of("bash", entrypoint.toString()));
    Map<String, String> env = pb.environment();
    env.put("BROOK_HOME", dist.home.toString());
    env.put("BROOK_CONFIG_FILE", config.toString());
    env.put("BROOK_NODE_ID", "7");
    env.put("BROOK_ADVERTISED_HOST", "localhost");
    env.put("BROOK_PORT", Integer.toString(port));
    env.put("BROOK_CONTROLLER_PORT", Integer.toString(port + 1));
    env.put("BROOK_ADMIN_PORT", Integer.toString(adminPort));
    env.put("BROOK_DATA_DIR", data.toString());
    env.put("BROOK_CFG_NUM_PARTITIONS", "3");
    env.put("BROOK_CFG_OFFSETS_TOPIC_REPLICATION_FACTOR", "1");
    env.put("BROOK_CFG_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
    env.put("BROOK_LOG_FORMAT", "json");
    env.put("BROOK_LOG_DIR", logs.toString());
    env.put("BROOK_LOG_FILE_SIZE", "1 KB");
    env.put("BROOK_LOG_FILE_COUNT", "2");
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);

    try (Distribution.Node node = new Distribution.Node(pb)) {
      // Every stdout line is a JSON object, the ready line included
      JsonNode running = json(node.awaitLine(l -> "Brook is running".equals(message(l))));
      assertThat(running.get("port").asText()).isEqualTo(Integer.toString(port));
      JsonNode started =
          node.seen.stream()
              .map(ContainerEntrypointIT::json)
              .filter(l -> "Brook started".equals(l.path("message").asText()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no start-up line in " + node.seen));
      assertThat(started.get("level").asText()).isEqualTo("INFO");
      assertThat(started.get("logger").asText()).isEqualTo("io.brook.server.BrookServer");
      assertThat(started.get("@timestamp").asText()).endsWith("Z");
      assertThat(started.get("nodeId").asText()).isEqualTo("7");
      assertThat(started.get("clusterId").asText()).isNotBlank();
      assertThat(started.get("durationMs").asText()).matches("[0-9]+");

      // The file the entry point wrote
      Properties props = new Properties();
      try (Reader in = Files.newBufferedReader(config)) {
        props.load(in);
      }
      assertThat(props)
          .containsEntry("node.id", "7")
          .containsEntry("process.roles", "broker,controller")
          .containsEntry("advertised.listeners", "PLAINTEXT://localhost:" + port)
          .containsEntry("controller.quorum.voters", "7@localhost:" + (port + 1))
          .containsEntry("log.dirs", data.toString())
          .containsEntry("brook.admin.listener", "http://0.0.0.0:" + adminPort)
          .containsEntry("num.partitions", "3")
          .containsEntry("offsets.topic.replication.factor", "1");

      // The node runs on it: admin listener, data directory, and a BROOK_CFG_ setting in force
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + adminPort + "/health"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(data.resolve("meta.properties")).exists();
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port))) {
        admin
            .createTopics(List.of(new NewTopic("from-env", Optional.empty(), Optional.empty())))
            .all()
            .get();
        assertThat(
                admin
                    .describeTopics(List.of("from-env"))
                    .allTopicNames()
                    .get()
                    .get("from-env")
                    .partitions())
            .hasSize(3);
      }
      JsonNode leader = json(node.awaitLine(l -> "Became leader".equals(message(l))));
      assertThat(leader.get("topicPartition").asText()).startsWith("from-env-");
      assertThat(leader.get("leaderEpoch").asText()).matches("[0-9]+");

      node.stop();
      for (String line : node.allLines()) {
        json(line);
      }
    }

    // The same JSON lines in the log directory, rolled at 1 KB, at most two rolled files kept
    assertThat(logs.resolve("brook.log")).exists();
    for (String line : Files.readAllLines(logs.resolve("brook.log"))) {
      json(line);
    }
    try (Stream<Path> files = Files.list(logs)) {
      List<String> rolled =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith("brook-") && n.endsWith(".log.gz"))
              .toList();
      assertThat(rolled).isNotEmpty().hasSizeLessThanOrEqualTo(2);
    }
  }

  private static String message(String line) {
    return json(line).path("message").asText();
  }

  /** The line as JSON; a line that is not JSON fails the test. */
  private static JsonNode json(String line) {
    try {
      JsonNode node = JSON.readTree(line);
      assertThat(node.isObject()).as("a JSON object: %s", line).isTrue();
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON line: " + line, e);
    }
  }
}
