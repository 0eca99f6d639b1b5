package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testports.PortAllocator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as an operator gets it: unpacked into an empty directory and run with {@code java}
 * only (no Maven, no source tree): {@code bin/brook dev} as its own process, records through {@code
 * bin/brook produce} and {@code consume}, then SIGTERM and a clean exit.
 */
class DistributionIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void unpackedTarballRunsANodeAndTheCli() throws Exception {
    Path tarball = Path.of(System.getProperty("brook.dist.tarball"));
    assertThat(tarball).exists();
    assertThat(
            run(new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", dir.toString()), "")
                .exit())
        .isZero();
    Path home;
    try (var entries = Files.list(dir)) {
      home = entries.filter(p -> p.getFileName().toString().startsWith("brook-")).findFirst().get();
    }
    Path launcher = home.resolve("bin/brook");
    assertThat(home.resolve("config/server.properties")).exists();

    int port = consecutivePorts();
    Path data = dir.resolve("node-data");
    ProcessBuilder dev =
        launch(launcher, "dev", "--port", Integer.toString(port), "--data-dir=" + data)
            .redirectErrorStream(true);
    Process node = dev.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> pump(node, lines), "dist-node-output");
    reader.setDaemon(true);
    reader.start();
    try {
      List<String> seen = new ArrayList<>();
      String line;
      do {
        line = lines.poll(90, TimeUnit.SECONDS);
        assertThat(line).as("node output so far: %s", seen).isNotNull();
        seen.add(line);
      } while (!line.contains("data directory"));
      assertThat(String.join("\n", seen))
          .contains("Brook is ready.")
          .contains("bootstrap.servers  localhost:" + port);
      assertThat(line).contains(data.toString());

      String brokers = "localhost:" + port;
      Result produced =
          run(
              launch(
                  launcher, "produce", "dist-topic", "-b", brokers, "-k", "=", "--format", "json"),
              "a=1\nb=2\nc=3\n");
      assertThat(produced.exit()).as(produced.output()).isZero();
      assertThat(JSON.readTree(produced.output()).get("records").asInt()).isEqualTo(3);

      Result consumed =
          run(
              launch(
                  launcher, "consume", "dist-topic", "-b", brokers, "-n", "3", "--format", "json"),
              "");
      assertThat(consumed.exit()).as(consumed.output()).isZero();
      List<String> values = new ArrayList<>();
      for (String json : consumed.output().split("\n")) {
        JsonNode record = JSON.readTree(json);
        values.add(record.get("key").asText() + "=" + record.get("value").asText());
      }
      assertThat(values).containsExactly("a=1", "b=2", "c=3");
    } finally {
      node.destroy(); // SIGTERM
    }
    assertThat(node.waitFor(60, TimeUnit.SECONDS)).as("node stopped after SIGTERM").isTrue();
    assertThat(node.exitValue()).isZero();
    assertThat(data.resolve("meta.properties")).exists();
  }

  /** The dev node takes two ports: clients on P, the controller on P + 1. */
  private static int consecutivePorts() {
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

  /** The launcher with only a Java runtime: JAVA_HOME of this JVM, no Maven on PATH. */
  private ProcessBuilder launch(Path launcher, String... args) {
    List<String> command = new ArrayList<>();
    command.add(launcher.toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/bin:/bin");
    env.put("HOME", dir.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("JAVA_OPTS", "-Xms64m -Xmx256m");
    env.put("BROOK_CONFIG_DIR", dir.resolve("config-dir").toString());
    return pb;
  }

  record Result(int exit, String output) {}

  private static Result run(ProcessBuilder pb, String stdin)
      throws IOException, InterruptedException {
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + pb.command());
    }
    return new Result(p.exitValue(), out);
  }

  private static void pump(Process p, BlockingQueue<String> lines) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("(output closed: " + e + ")");
    }
  }
}
