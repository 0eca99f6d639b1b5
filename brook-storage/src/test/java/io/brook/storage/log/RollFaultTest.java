package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A roll that faults writing an index mapping: on a full disk the JVM reports a write to a mapped
 * page it cannot back as an {@link InternalError} in the writing thread, not an IOException. The
 * fault is injected where the roll starts its file work ({@link DiskStallHook}).
 */
class RollFaultTest {
  @TempDir Path root;

  @AfterEach
  void removeHook() {
    DiskStallHook.install(null);
  }

  @Test
  void aMappingFaultDuringARollTakesTheLogOfflineWithAStorageError() {
    // Given a log whose active segment holds a batch, and a disk that faults the roll's writes
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(2, 1L), 0);
    DiskStallHook.install(
        (tp, step) -> {
          if (step == DiskStallHook.Step.ROLL) {
            throw new InternalError("a fault occurred in an unsafe memory access operation");
          }
        });

    // When / Then: the roll fails as an I/O error does, and the log goes offline
    assertThatThrownBy(log::roll)
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(((StorageException) e).error())
                    .isEqualTo(StorageError.KAFKA_STORAGE_ERROR));
    assertThat(log.isOffline()).isTrue();
    assertThatThrownBy(() -> log.appendAsLeader(Batches.records(1, 1L), 0))
        .isInstanceOf(StorageException.class);
  }
}
