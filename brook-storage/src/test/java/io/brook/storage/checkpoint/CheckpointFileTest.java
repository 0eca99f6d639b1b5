package io.brook.storage.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {
  /** Entries are plain longs, one per line. */
  private static final CheckpointFile.EntryFormat<Long> LONGS =
      new CheckpointFile.EntryFormat<>() {
        @Override
        public String toLine(Long entry) {
          return Long.toString(entry);
        }

        @Override
        public Long fromLine(String line) {
          return Long.parseLong(line);
        }
      };

  @TempDir Path dir;

  private CheckpointFile<Long> checkpoint() {
    return new CheckpointFile<>(dir.resolve("checkpoint"), 3, LONGS);
  }

  @Test
  void roundTripsEntriesInOrder() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();

    // When
    checkpoint.write(List.of(42L, 7L, 1_000_000_000_000L));

    // Then
    assertThat(checkpoint.read()).containsExactly(42L, 7L, 1_000_000_000_000L);
    assertThat(Files.readString(checkpoint.file())).isEqualTo("3\n3\n42\n7\n1000000000000\n");
  }

  @Test
  void roundTripsAnEmptyList() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();

    // When
    checkpoint.write(List.of());

    // Then
    assertThat(checkpoint.read()).isEmpty();
    assertThat(Files.readString(checkpoint.file())).isEqualTo("3\n0\n");
  }

  @Test
  void missingFileReadsAsEmpty() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();

    // When
    List<Long> entries = checkpoint.read();

    // Then
    assertThat(entries).isEmpty();
    assertThat(checkpoint.file()).doesNotExist();
  }

  @Test
  void aWriteLeftForLaterTouchesNothingUntilTheNextSync() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.write(List.of(1L, 2L));
    byte[] before = Files.readAllBytes(checkpoint.file());

    // When
    checkpoint.writeLater(List.of(1L));

    // Then: the file is as it was, but the change counts as not yet durable
    assertThat(Files.readAllBytes(checkpoint.file())).isEqualTo(before);
    assertThat(checkpoint.hasUnsyncedWrite()).isTrue();
    assertThat(checkpoint.syncCount()).isEqualTo(1);

    // When
    checkpoint.sync();

    // Then: written and forced once; a second sync has nothing to do
    assertThat(checkpoint.read()).containsExactly(1L);
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();
    assertThat(checkpoint.syncCount()).isEqualTo(2);
    checkpoint.sync();
    assertThat(checkpoint.syncCount()).isEqualTo(2);
  }

  @Test
  void aLaterWriteReplacesTheOneLeftForTheSync() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.write(List.of(1L, 2L));
    checkpoint.writeLater(List.of(1L));

    // When: a newer state is written before the sync
    checkpoint.writeUnsynced(List.of(1L, 5L));
    checkpoint.sync();

    // Then: the sync forced the newer state, not the older one left for it
    assertThat(checkpoint.read()).containsExactly(1L, 5L);
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();
  }

  @Test
  void replacesAtomicallyAndLeavesNoTemporaryFile() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.write(List.of(1L, 2L, 3L));

    // When
    checkpoint.write(List.of(9L));

    // Then
    assertThat(checkpoint.read()).containsExactly(9L);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(checkpoint.file());
    }
  }

  @Test
  void overwritesAStaleTemporaryFileFromACrash() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(AtomicFiles.tmpFileFor(checkpoint.file()), "garbage that is longer\n");

    // When
    checkpoint.write(List.of(5L));

    // Then
    assertThat(checkpoint.read()).containsExactly(5L);
    assertThat(AtomicFiles.tmpFileFor(checkpoint.file())).doesNotExist();
  }

  @Test
  void rejectsWrongVersion() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(checkpoint.file(), "4\n1\n10\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(checkpoint.file().toString())
        .hasMessageContaining("expected version 3 but found 4");
  }

  @Test
  void rejectsACountLargerThanTheLinesPresent() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(checkpoint.file(), "3\n2147483647\n10\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(checkpoint.file().toString())
        .hasMessageContaining("header says 2147483647 entries but the file has 1");
  }

  @Test
  void rejectsACountSmallerThanTheLinesPresent() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(checkpoint.file(), "3\n1\n10\n11\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("header says 1 entries but the file has 2");
  }

  @Test
  void rejectsANegativeCount() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(checkpoint.file(), "3\n-1\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("header says -1 entries");
  }

  @Test
  void rejectsAMalformedLineNamingItsLineNumber() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.writeString(checkpoint.file(), "3\n2\n10\nten\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(checkpoint.file().toString())
        .hasMessageContaining("malformed entry on line 4 'ten'");
  }

  @Test
  void rejectsMalformedHeaders() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();

    // When / Then
    Files.writeString(checkpoint.file(), "");
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("expected a version line and a count line");
    Files.writeString(checkpoint.file(), "three\n0\n");
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("malformed version line 'three'");
    Files.writeString(checkpoint.file(), "3\nx\n");
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("malformed entry count line 'x'");
  }

  @Test
  void rejectsInvalidUtf8() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.write(checkpoint.file(), new byte[] {'3', '\n', '1', '\n', (byte) 0xff, '\n'});

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("not valid UTF-8");
  }

  @Test
  void refusesToWriteAnEntryContainingANewline() {
    // Given
    CheckpointFile<String> checkpoint =
        new CheckpointFile<>(
            dir.resolve("strings"),
            0,
            new CheckpointFile.EntryFormat<>() {
              @Override
              public String toLine(String entry) {
                return entry;
              }

              @Override
              public String fromLine(String line) {
                return line;
              }
            });

    // When / Then
    assertThatThrownBy(() -> checkpoint.write(List.of("a\nb")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(checkpoint.file()).doesNotExist();
  }

  @Test
  void acceptsCrlfLineEndingsFromHandEditedFiles() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    Files.write(checkpoint.file(), "3\r\n1\r\n10\r\n".getBytes(StandardCharsets.UTF_8));

    // When
    List<Long> entries = checkpoint.read();

    // Then
    assertThat(entries).containsExactly(10L);
  }

  @Test
  void unsyncedWriteReplacesTheContentWithoutFsyncUntilSynced() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.write(List.of(1L));
    long syncsAfterDurableWrite = checkpoint.syncCount();

    // When
    checkpoint.writeUnsynced(List.of(1L, 2L));
    checkpoint.writeUnsynced(List.of(1L, 2L, 3L));

    // Then: readers see the latest content at once, nothing was forced, no tmp file is left
    assertThat(syncsAfterDurableWrite).isEqualTo(1);
    assertThat(checkpoint.read()).containsExactly(1L, 2L, 3L);
    assertThat(checkpoint.syncCount()).isEqualTo(1);
    assertThat(checkpoint.hasUnsyncedWrite()).isTrue();
    assertThat(Files.exists(AtomicFiles.tmpFileFor(checkpoint.file()))).isFalse();

    // When: synced twice
    checkpoint.sync();
    checkpoint.sync();

    // Then: one fsync sequence for both unsynced writes, none for the clean file
    assertThat(checkpoint.syncCount()).isEqualTo(2);
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();
    assertThat(checkpoint.read()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aDurableWriteAfterAnUnsyncedOneLeavesNothingToSync() throws IOException {
    // Given
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.writeUnsynced(List.of(7L));

    // When
    checkpoint.write(List.of(8L));
    checkpoint.sync();

    // Then
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();
    assertThat(checkpoint.syncCount()).isEqualTo(1);
    assertThat(checkpoint.read()).containsExactly(8L);
  }

  @Test
  void syncUnlessSavesTheSyncWhenTheReaderWouldEndUpWithTheSame() throws IOException {
    // Given: [1] on disk, then [1, 2] written without fsync
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.write(List.of(1L));
    checkpoint.writeUnsynced(List.of(1L, 2L));

    // When: the owner says only the first entry matters to the next reader
    checkpoint.syncUnless((onDisk, latest) -> onDisk.get(0).equals(latest.get(0)));

    // Then: no fsync, and the write is still unsynced
    assertThat(checkpoint.syncCount()).isEqualTo(1);
    assertThat(checkpoint.hasUnsyncedWrite()).isTrue();

    // When: the entries differ for the reader
    checkpoint.writeUnsynced(List.of(5L, 6L));
    checkpoint.syncUnless((onDisk, latest) -> onDisk.get(0).equals(latest.get(0)));

    // Then: synced, and what is on disk is now the latest
    assertThat(checkpoint.syncCount()).isEqualTo(2);
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();
    checkpoint.writeLater(List.of(5L, 7L));
    checkpoint.syncUnless((onDisk, latest) -> onDisk.get(0).equals(latest.get(0)));
    assertThat(checkpoint.syncCount()).isEqualTo(2);
    assertThat(checkpoint.read()).containsExactly(5L, 6L);
  }

  @Test
  void syncUnlessSyncsWhenWhatIsOnDiskIsNotKnown() throws IOException {
    // Given: a file this instance neither read nor wrote durably
    Files.writeString(dir.resolve("checkpoint"), "3\n1\n9\n");
    CheckpointFile<Long> checkpoint = checkpoint();
    checkpoint.writeUnsynced(List.of(9L));

    // When
    checkpoint.syncUnless((onDisk, latest) -> true);

    // Then
    assertThat(checkpoint.syncCount()).isEqualTo(1);
    assertThat(checkpoint.hasUnsyncedWrite()).isFalse();

    // And a file found unreadable is not known either
    CheckpointFile<Long> corrupt = new CheckpointFile<>(dir.resolve("corrupt"), 3, LONGS);
    Files.writeString(corrupt.file(), "3\n2\n1\n");
    assertThatThrownBy(corrupt::read).isInstanceOf(CorruptCheckpointException.class);
    corrupt.writeLater(List.of());
    corrupt.syncUnless((onDisk, latest) -> true);
    assertThat(corrupt.syncCount()).isEqualTo(1);
    assertThat(corrupt.read()).isEmpty();
  }
}
