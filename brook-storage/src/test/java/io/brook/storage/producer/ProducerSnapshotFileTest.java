package io.brook.storage.producer;

import static io.brook.storage.producer.TestBatches.idempotent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.checkpoint.CorruptCheckpointException;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerSnapshotFileTest {
  private static final long EXPIRATION_MS = Long.MAX_VALUE;

  @TempDir Path dir;

  private final ManualTime time = new ManualTime();
  private ProducerStateManager state;
  private FakeLog log;

  /** Snapshots at 2 and 4; the one at 4 knows producer 2, the one at 2 does not. */
  @BeforeEach
  void setUp() throws IOException {
    state = new ProducerStateManager(dir, time, EXPIRATION_MS);
    log = new FakeLog(state);
    log.appendFromClient(idempotent(1L, (short) 0, 0, 2, time.milliseconds()));
    state.takeSnapshot();
    log.appendFromClient(idempotent(2L, (short) 0, 0, 2, time.milliseconds()));
    state.takeSnapshot();
  }

  private Path newest() {
    return ProducerSnapshotFile.pathFor(dir, 4);
  }

  /** Applies {@code change} to the newest snapshot's bytes, then recomputes a valid CRC. */
  private void rewriteWithValidCrc(Consumer<ByteBuffer> change) throws IOException {
    byte[] bytes = Files.readAllBytes(newest());
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    change.accept(buffer);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 6, bytes.length - 6);
    buffer.putInt(2, (int) crc.getValue());
    Files.write(newest(), bytes);
  }

  private void assertNewestIsSkippedAndDeleted() throws IOException {
    // When
    ProducerStateManager reopened = new ProducerStateManager(dir, time, EXPIRATION_MS);
    reopened.truncateAndReload(0, 4);

    // Then
    assertThat(reopened.mapEndOffset()).isEqualTo(2);
    assertThat(reopened.activeProducers()).containsOnlyKeys(1L);
    assertThat(reopened.snapshotOffsets()).containsExactly(2L);
    assertThat(newest()).doesNotExist();
  }

  @Test
  void layoutMatchesTheDocumentedSizes() throws IOException {
    // Given / When
    long size = Files.size(newest());

    // Then: header + 2 producers with one batch each.
    assertThat(ProducerSnapshotFile.HEADER_BYTES).isEqualTo(10);
    assertThat(ProducerSnapshotFile.PRODUCER_FIXED_BYTES).isEqualTo(31);
    assertThat(ProducerSnapshotFile.BATCH_BYTES).isEqualTo(32);
    assertThat(size).isEqualTo(10 + 2 * (31 + 32));
  }

  @Test
  void aFlippedByteIsCaughtByTheCrc() throws IOException {
    // Given
    byte[] bytes = Files.readAllBytes(newest());
    bytes[bytes.length - 3] ^= 0x10;
    Files.write(newest(), bytes);

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(newest().toString())
        .hasMessageContaining("CRC mismatch");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aTruncatedFileIsSkipped() throws IOException {
    // Given
    byte[] bytes = Files.readAllBytes(newest());
    Files.write(newest(), Arrays.copyOf(bytes, bytes.length - 7));

    // Then
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aFileShorterThanTheHeaderIsSkipped() throws IOException {
    // Given
    Files.write(newest(), new byte[] {0, 1, 2});

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("shorter than the 10-byte header");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aHugeProducerCountIsRejectedBeforeAllocating() throws IOException {
    // Given
    rewriteWithValidCrc(buffer -> buffer.putInt(6, Integer.MAX_VALUE));

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("producerCount: 2147483647 x 31 bytes does not fit");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aNegativeProducerCountIsRejected() throws IOException {
    // Given
    rewriteWithValidCrc(buffer -> buffer.putInt(6, -1));

    // Then
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aBatchCountAboveFiveIsRejected() throws IOException {
    // Given: the first producer's batchCount byte sits after its 30 fixed bytes.
    rewriteWithValidCrc(buffer -> buffer.put(10 + 30, (byte) 6));

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("batchCount 6");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aBatchCountBeyondTheRemainingBytesIsRejected() throws IOException {
    // Given: 5 batches claimed, but only 1 + the next producer's bytes follow.
    rewriteWithValidCrc(buffer -> buffer.put(10 + 63 + 30, (byte) 5));

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("does not fit");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void trailingBytesAreRejected() throws IOException {
    // Given
    byte[] bytes = Files.readAllBytes(newest());
    Files.write(newest(), Arrays.copyOf(bytes, bytes.length + 4));
    rewriteWithValidCrc(buffer -> {});

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("4 unexpected trailing bytes");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void anUnknownVersionIsRejected() throws IOException {
    // Given
    rewriteWithValidCrc(buffer -> buffer.putShort(0, (short) 2));

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("expected version 1 but found 2");
    assertNewestIsSkippedAndDeleted();
  }

  @Test
  void aRepeatedProducerIdIsRejected() throws IOException {
    // Given: the second producer gets the first one's id.
    rewriteWithValidCrc(buffer -> buffer.putLong(10 + 63, 1L));

    // Then
    assertThatThrownBy(() -> ProducerSnapshotFile.read(newest()))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("repeated producerId 1");
  }

  @Test
  void allSnapshotsCorruptLeavesAnEmptyStateAtTheLogStart() throws IOException {
    // Given
    Files.write(ProducerSnapshotFile.pathFor(dir, 2), new byte[20]);
    Files.write(newest(), new byte[20]);

    // When
    ProducerStateManager reopened = new ProducerStateManager(dir, time, EXPIRATION_MS);
    reopened.truncateAndReload(0, 4);

    // Then
    assertThat(reopened.activeProducers()).isEmpty();
    assertThat(reopened.mapEndOffset()).isZero();
    assertThat(reopened.snapshotOffsets()).isEmpty();
  }

  @Test
  void emptyStateRoundTrips() throws IOException {
    // Given
    byte[] bytes = ProducerSnapshotFile.serialize(List.of());

    // When
    List<ProducerStateEntry> entries = ProducerSnapshotFile.deserialize(bytes, newest());

    // Then
    assertThat(bytes).hasSize(ProducerSnapshotFile.HEADER_BYTES);
    assertThat(entries).isEmpty();
  }

  @Test
  void parsesFileNames() {
    // Given / When / Then
    assertThat(ProducerSnapshotFile.offsetOf("00000000000000000042.snapshot")).hasValue(42);
    assertThat(ProducerSnapshotFile.offsetOf("42.snapshot")).isEmpty();
    assertThat(ProducerSnapshotFile.offsetOf("00000000000000000042.snapshot.tmp")).isEmpty();
    assertThat(ProducerSnapshotFile.offsetOf("99999999999999999999.snapshot")).isEmpty();
    assertThat(ProducerSnapshotFile.pathFor(dir, 42).getFileName().toString())
        .isEqualTo("00000000000000000042.snapshot");
  }
}
