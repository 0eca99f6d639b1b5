package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The clean-shutdown epoch on real directories. */
class CleanShutdownEpochTest {
  private static final String MARKER = ".clean";

  @TempDir Path a;
  @TempDir Path b;

  @Test
  void anEpochWrittenWhereEveryLogClosedCleanlyIsReadOnce() throws Exception {
    // Given
    Files.createFile(a.resolve(MARKER));
    Files.createFile(b.resolve(MARKER));

    // When
    CleanShutdownEpoch.writeWhereClean(List.of(a, b), MARKER, 42);

    // Then the next start reads it, and a crash after that finds none
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a, b))).isEqualTo(42);
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a, b)))
        .isEqualTo(CleanShutdownEpoch.UNKNOWN);
  }

  @Test
  void aDirectoryWithoutTheCleanMarkerMakesTheShutdownUnclean() throws Exception {
    // Given only a closed cleanly
    Files.createFile(a.resolve(MARKER));

    // When
    CleanShutdownEpoch.writeWhereClean(List.of(a, b), MARKER, 42);

    // Then
    assertThat(Files.exists(b.resolve(CleanShutdownEpoch.FILE))).isFalse();
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a, b)))
        .isEqualTo(CleanShutdownEpoch.UNKNOWN);
    assertThat(Files.exists(a.resolve(CleanShutdownEpoch.FILE))).isFalse();
  }

  @Test
  void differentOrGarbledEpochsAreUnknown() throws Exception {
    Files.writeString(a.resolve(CleanShutdownEpoch.FILE), "41");
    Files.writeString(b.resolve(CleanShutdownEpoch.FILE), "42");
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a, b)))
        .isEqualTo(CleanShutdownEpoch.UNKNOWN);

    Files.writeString(a.resolve(CleanShutdownEpoch.FILE), "not a number");
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a))).isEqualTo(CleanShutdownEpoch.UNKNOWN);

    Files.writeString(a.resolve(CleanShutdownEpoch.FILE), "9".repeat(100));
    assertThat(CleanShutdownEpoch.readAndDelete(List.of(a))).isEqualTo(CleanShutdownEpoch.UNKNOWN);
    assertThat(Files.exists(a.resolve(CleanShutdownEpoch.FILE))).isFalse();
  }
}
