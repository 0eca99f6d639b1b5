package io.brook.tests.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one of Kafka's command-line tools in a child JVM and returns its standard output. */
final class ToolRun {
  private ToolRun() {}

  static String run(String mainClass, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-Dlog4j2.configurationFile=log4j2-child.properties");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    Path out = Files.createTempFile("tool-", ".out");
    Path err = Files.createTempFile("tool-", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      boolean exited = process.waitFor(60, TimeUnit.SECONDS);
      if (!exited) {
        process.destroyForcibly().waitFor();
      }
      String stdout = Files.readString(out);
      assertThat(exited && process.exitValue() == 0)
          .as("%s\n--- stdout ---\n%s\n--- stderr ---\n%s", command, stdout, Files.readString(err))
          .isTrue();
      return stdout;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
