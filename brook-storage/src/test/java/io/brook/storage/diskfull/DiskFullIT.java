package io.brook.storage.diskfull;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk: a 1 MiB tmpfs mounted in a private mount namespace ({@code unshare -m}, which
 * also removes the mount when the child exits), with {@link DiskFullScenario} running in a child
 * JVM inside it.
 */
class DiskFullIT {
  @TempDir Path root;

  @Test
  void aFullDiskFailsTheAppendTakesThePartitionOfflineAndLosesNothingAcknowledged()
      throws Exception {
    // Given
    Path mount = Files.createDirectories(root.resolve("tiny"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
            "unshare",
            "--mount",
            "--map-root-user",
            "sh",
            "-c",
            "mount -t tmpfs -o size=1m brook-tiny \"$1\" && exec \"$2\" -Xmx128m -cp \"$3\" \"$4\" \"$1\"",
            "sh",
            mount.toString(),
            java,
            System.getProperty("java.class.path"),
            DiskFullScenario.class.getName());
    builder.redirectErrorStream(true);

    // When
    Process child = builder.start();
    byte[] output = child.getInputStream().readAllBytes();
    boolean exited = child.waitFor(120, TimeUnit.SECONDS);

    // Then
    String transcript = new String(output, StandardCharsets.UTF_8);
    assertThat(exited).isTrue();
    assertThat(child.exitValue()).as(transcript).isZero();
    assertThat(transcript).contains("OK acknowledgedBytes=");
    assertThat(transcript).contains("Partition taken offline after an I/O error");
  }
}
