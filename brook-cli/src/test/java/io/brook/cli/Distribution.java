package io.brook.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.function.Predicate;

/**
 * The tarball the package phase built, unpacked into a test's directory and run as an operator
 * would: its own processes with a Java runtime only (no Maven on PATH, a clean environment).
 */
final class Distribution {
  final Path dir;
  final Path home;

  private Distribution(Path dir, Path home) {
    this.dir = dir;
    this.home = home;
  }

  /** Unpacks {@code brook.dist.tarball} into {@code dir}. */
  static Distribution unpack(Path dir) throws IOException, InterruptedException {
    Path tarball = Path.of(System.getProperty("brook.dist.tarball"));
    assertThat(tarball).exists();
    Result untar = run(new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", dir.toString()));
    assertThat(untar.exit()).as(untar.output()).isZero();
    try (var entries = Files.list(dir)) {
      Path home =
          entries.filter(p -> p.getFileName().toString().startsWith("brook-")).findFirst().get();
      return new Distribution(dir, home);
    }
  }

  Path launcher() {
    return home.resolve("bin/brook");
  }

  /**
   * {@code command} in {@code dir} with only a Java runtime: this JVM's JAVA_HOME, a small PATH.
   */
  ProcessBuilder launch(List<String> command) {
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

  ProcessBuilder brook(String... args) {
    List<String> command = new ArrayList<>();
    command.add(launcher().toString());
    command.addAll(List.of(args));
    return launch(command);
  }

  record Result(int exit, String output) {}

  static Result run(ProcessBuilder pb) throws IOException, InterruptedException {
    return run(pb, "");
  }

  /** Runs to completion with {@code stdin}; its stdout (stderr goes to the test's). */
  static Result run(ProcessBuilder pb, String stdin) throws IOException, InterruptedException {
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

  /** A node process whose stdout lines are collected as they come. */
  static final class Node implements AutoCloseable {
    final Process process;
    final List<String> seen = new ArrayList<>();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    Node(ProcessBuilder pb) throws IOException {
      process = pb.start();
      Thread reader = new Thread(this::pump, "dist-node-output");
      reader.setDaemon(true);
      reader.start();
    }

    /** Reads lines until one matches; fails after 90 s without a line or at the end of output. */
    String awaitLine(Predicate<String> match) throws InterruptedException {
      String line;
      do {
        line = lines.poll(90, TimeUnit.SECONDS);
        assertThat(line).as("node output so far: %s", seen).isNotNull().isNotEqualTo(END);
        seen.add(line);
      } while (!match.test(line));
      return line;
    }

    /** SIGTERM, and the clean exit that must follow. */
    void stop() throws InterruptedException {
      process.destroy();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("node stopped after SIGTERM").isTrue();
      assertThat(process.exitValue()).isZero();
    }

    /** Every line the node wrote until it exited (call after {@link #stop}). */
    List<String> allLines() throws InterruptedException {
      String line;
      while ((line = lines.poll(10, TimeUnit.SECONDS)) != null && !line.equals(END)) {
        seen.add(line);
      }
      return seen;
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }

    private static final String END = "\u0000end";

    private void pump() {
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // The JDK closes the pipe under a blocked reader when the process exits: the end.
      }
      lines.add(END);
    }
  }
}
