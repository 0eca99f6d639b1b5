package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.cli.Distribution.Result;
import io.brook.testports.PortAllocator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as an operator gets it: unpacked into an empty directory and run with {@code java}
 * only (no Maven, no source tree): {@code bin/brook dev} as its own process, its ready block (the
 * admin and HTTP API URLs answer), records through {@code bin/brook produce} and {@code consume},
 * then SIGTERM and a clean exit.
 */
class DistributionIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void unpackedTarballRunsANodeAndTheCli() throws Exception {
    Distribution dist = Distribution.unpack(dir);
    assertThat(dist.home.resolve("config/server.properties")).exists();

    int port = consecutivePorts();
    int adminPort = PortAllocator.shared().allocate();
    int httpPort = PortAllocator.shared().allocate();
    Path data = dir.resolve("node-data");
    try (Distribution.Node node =
        new Distribution.Node(
            dist.brook(
                    "dev",
                    "--port",
                    Integer.toString(port),
                    "--admin-port",
                    Integer.toString(adminPort),
                    "--http-port",
                    Integer.toString(httpPort),
                    "--data-dir=" + data)
                .redirectErrorStream(true))) {
      String line = node.awaitLine(l -> l.contains("data directory"));
      String block = String.join("\n", node.seen);
      assertThat(block)
          .contains("Brook is ready.")
          .contains("bootstrap.servers  localhost:" + port)
          .contains("admin              http://localhost:" + adminPort + "\n")
          .contains("HTTP API           http://localhost:" + httpPort + "/v1\n");
      assertThat(line).contains(data.toString());

      // The URLs of the block answer
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> ready = get(http, "http://localhost:" + adminPort + "/ready");
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
      HttpResponse<String> topics = get(http, "http://localhost:" + httpPort + "/v1/topics");
      assertThat(topics.statusCode()).as(topics.body()).isEqualTo(200);

      String brokers = "localhost:" + port;
      Result produced =
          Distribution.run(
              dist.brook("produce", "dist-topic", "-b", brokers, "-k", "=", "--format", "json"),
              "a=1\nb=2\nc=3\n");
      assertThat(produced.exit()).as(produced.output()).isZero();
      assertThat(JSON.readTree(produced.output()).get("records").asInt()).isEqualTo(3);

      Result consumed =
          Distribution.run(
              dist.brook("consume", "dist-topic", "-b", brokers, "-n", "3", "--format", "json"));
      assertThat(consumed.exit()).as(consumed.output()).isZero();
      List<String> values = new ArrayList<>();
      for (String json : consumed.output().split("\n")) {
        JsonNode record = JSON.readTree(json);
        values.add(record.get("key").asText() + "=" + record.get("value").asText());
      }
      assertThat(values).containsExactly("a=1", "b=2", "c=3");
      node.stop();
    }
    assertThat(data.resolve("meta.properties")).exists();
  }

  @Test
  void tarballCarriesLicenceNoticeAndEveryBundledJarsLicence() throws Exception {
    Distribution dist = Distribution.unpack(dir);
    assertThat(Files.readString(dist.home.resolve("LICENSE")))
        .contains("Apache License")
        .contains("Version 2.0, January 2004");
    assertThat(Files.readString(dist.home.resolve("NOTICE"))).startsWith("Brook\n");

    // Every third-party jar of lib/ is listed with a licence, and nothing else is
    Map<String, String> listed = new TreeMap<>();
    for (String line : Files.readAllLines(dist.home.resolve("licenses/THIRD-PARTY.txt"))) {
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      String[] columns = line.split("\t");
      assertThat(columns).as(line).hasSize(3);
      assertThat(columns[2]).as(line).isNotBlank();
      listed.put(columns[0], columns[2]);
    }
    Set<String> bundled = new TreeSet<>();
    try (Stream<Path> jars = Files.list(dist.home.resolve("lib"))) {
      jars.map(p -> p.getFileName().toString())
          .filter(name -> !name.startsWith("brook-"))
          .forEach(bundled::add);
    }
    assertThat(bundled).isNotEmpty();
    assertThat(listed.keySet())
        .as("licenses/THIRD-PARTY.txt against lib/ (regenerate: scripts/third-party-licenses.py)")
        .containsExactlyElementsOf(bundled);
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The dev node takes two ports: clients on P, the controller on P + 1. */
  static int consecutivePorts() {
    PortAllocator ports = PortAllocator.shared();
    int previous = ports.allocate();
    for (int i = 0; i < 50; i++) {
      int next = ports.allocate();
      if (next == previous + 1) {
        return previous;
      }
      previous = next;
    }
    throw new IllegalStateException("no two consecutive free ports");
  }
}
