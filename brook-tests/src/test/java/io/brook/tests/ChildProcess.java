package io.brook.tests;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs an external program (kcat, node, a Kafka tool in a child JVM) to completion: writes its
 * standard input, waits with a deadline and captures both output streams in files, so a chatty
 * child can never block on a full pipe.
 */
public final class ChildProcess {
  /** What the program left behind. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr) {
    /** For assertion messages: everything needed to see why a run failed. */
    public String describe() {
      return "command: "
          + String.join(" ", command)
          + "\nexit code: "
          + exitCode
          + "\n--- stdout ---\n"
          + stdout
          + "\n--- stderr ---\n"
          + stderr;
    }

    List<String> stdoutLines() {
      return stdout.lines().toList();
    }
  }

  private ChildProcess() {}

  /**
   * Runs {@code command} with {@code stdin} (may be empty) as its input; if it has not exited
   * within {@code timeout} it is killed and the run fails.
   */
  public static Result run(List<String> command, String stdin, Duration timeout) {
    return run(command, Map.of(), stdin, timeout);
  }

  /** As {@link #run(List, String, Duration)}, with extra environment variables. */
  static Result run(
      List<String> command, Map<String, String> environment, String stdin, Duration timeout) {
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("child-", ".out");
      err = Files.createTempFile("child-", ".err");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(environment);
      Process process = builder.start();
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // The program exited without reading all of its input: its exit code says why.
      }
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
        process.waitFor();
        throw new AssertionError(
            "timed out after "
                + timeout
                + "\n"
                + new Result(command, -1, Files.readString(out), Files.readString(err)).describe());
      }
      return new Result(
          List.copyOf(command), process.exitValue(), Files.readString(out), Files.readString(err));
    } catch (IOException e) {
      throw new AssertionError("cannot run " + String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + command, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /** The program's path if an executable of that name is on PATH. */
  static Optional<Path> onPath(String program) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Runs one of Kafka's command-line tools ({@code mainClass}, as {@code kafka-run-class.sh} would)
   * with {@code --bootstrap-server bootstrap ARGS} and no input.
   */
  public static Result kafkaTool(
      String mainClass, String bootstrap, Duration timeout, String... args) {
    List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap));
    all.addAll(List.of(args));
    return run(javaCommand(mainClass, all.toArray(String[]::new)), "", timeout);
  }

  /** {@code java} of the JVM running the tests, with the test classpath, for a child JVM. */
  public static List<String> javaCommand(String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Tools are short-lived: the C1 compiler alone starts them faster.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx512m");
    // Warnings only, on stderr: stdout is the tool's own output, which the tests read.
    command.add("-Dlog4j2.configurationFile=log4j2-child.properties");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // A leftover temp file is harmless.
      }
    }
  }
}
