package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testports.PortAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Brook as users run it: {@code java -jar brook.jar server FILE} in its own process, stopped with
 * real signals. Its output goes to a file (one per start) so a SIGKILL cannot lose or block it.
 */
final class BrookProcess implements AutoCloseable {
  /** What {@code brook server} prints once it accepts connections. */
  static final String READY_LINE = "Brook is running on port ";

  private final Process process;
  private final Path output;

  private BrookProcess(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  /** The runnable jar: passed by Failsafe, built by brook-server's package phase. */
  static Path jar() {
    Path jar = Path.of(System.getProperty("brook.jar", "../brook-server/target/brook.jar"));
    assertThat(jar)
        .as("brook.jar; build it first: mvn -B -DskipTests install (or mvn -B verify)")
        .exists();
    return jar.toAbsolutePath().normalize();
  }

  /**
   * A loopback port for a broker process that is started, killed and started again on it: outside
   * the kernel's ephemeral range, so no connection made while the broker is down can take it
   * ({@link PortAllocator}).
   */
  static int freePort() {
    return PortAllocator.shared().allocate();
  }

  /** Writes a single-node server.properties with Kafka's config names. */
  static Path writeConfig(Path dir, Path dataDir, int port, int controllerPort) throws IOException {
    Path file = dir.resolve("server.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "node.id=1",
            "process.roles=broker,controller",
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
            "controller.listener.names=CONTROLLER",
            "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
            "log.dirs=" + dataDir,
            "num.partitions=1",
            ""));
    return file;
  }

  /** Starts {@code brook server CONFIG} with a 1 GiB heap; output goes to {@code output}. */
  static BrookProcess start(Path config, Path output) throws IOException {
    return start(config, output, "-Xmx1g");
  }

  /** Starts {@code brook server CONFIG} with these JVM options; output goes to {@code output}. */
  static BrookProcess start(Path config, Path output, String... jvmOptions) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-jar", jar().toString(), "server", config.toString()));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    // If the test JVM dies (a Failsafe timeout), its broker must not live on.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> process.toHandle().destroyForcibly(), "kill-brook"));
    return new BrookProcess(process, output);
  }

  /** Waits for the ready line; fails early if the process died instead. */
  BrookProcess awaitReady() {
    await("Brook prints '" + READY_LINE + "' (output: " + output + ")")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError(
                    "Brook exited with " + process.exitValue() + " before it was ready:\n" + log());
              }
              return log().contains(READY_LINE);
            });
    return this;
  }

  /** Everything the process printed so far. */
  String log() {
    try {
      return Files.readString(output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ProcessHandle handle() {
    return process.toHandle();
  }

  /** SIGKILL, then waits for the process to be gone; returns its exit status. */
  int kill() throws InterruptedException {
    handle().destroyForcibly();
    return waitForExit(Duration.ofSeconds(30));
  }

  /** SIGTERM; returns the exit status, or fails if it has not exited within {@code timeout}. */
  int terminate(Duration timeout) throws InterruptedException {
    handle().destroy();
    return waitForExit(timeout);
  }

  private int waitForExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("Brook did not exit within " + timeout + ":\n" + log());
    }
    return process.exitValue();
  }

  /** Kills the process if a test left it running. */
  @Override
  public void close() {
    if (process.isAlive()) {
      handle().destroyForcibly();
      process.onExit().join();
    }
  }
}
