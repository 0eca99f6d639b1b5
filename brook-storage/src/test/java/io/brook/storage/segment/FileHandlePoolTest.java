package io.brook.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.log.LogConfig;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool against real segment files: bound, CLOCK order, pins, reopen, retire. */
class FileHandlePoolTest {
  @TempDir Path dir;

  private final ManualTime time = new ManualTime();
  private final LogConfig config = LogConfig.builder().segmentIndexBytes(4096).build();

  /** A segment in its own directory holding {@code batches} one-record batches from offset 0. */
  private LogSegment segment(FileHandlePool pool, String name, int batches) throws Exception {
    Path segmentDir = Files.createDirectories(dir.resolve(name));
    LogSegment segment = LogSegment.create(segmentDir, 0, config, time, pool);
    for (int i = 0; i < batches; i++) {
      segment.append(batchAt(i, name));
    }
    return segment;
  }

  static MemoryRecords batchAt(long offset, String salt) {
    MemoryRecords batch = Batches.sized(1, 100, 1000 + offset, (salt.hashCode() * 31L) + offset);
    for (MutableRecordBatch b : batch.batches()) {
      b.setLastOffset(offset);
    }
    return batch;
  }

  /** Uses the segment's file once, as a read would. */
  private static void touch(LogSegment segment) {
    assertThat(segment.translateOffset(0, 0)).isNotNull();
  }

  @Test
  void neverKeepsMoreThanTheBoundOpenWhenNothingIsPinned() throws Exception {
    // Given
    FileHandlePool pool = new FileHandlePool(5);
    List<LogSegment> segments = new ArrayList<>();

    // When
    for (int i = 0; i < 40; i++) {
      segments.add(segment(pool, "p" + i, 3));
      assertThat(pool.openFiles()).isLessThanOrEqualTo(5);
    }
    for (LogSegment segment : segments) {
      touch(segment);
      assertThat(pool.openFiles()).isLessThanOrEqualTo(5);
    }

    // Then
    assertThat(segments.stream().filter(s -> s.file().isOpen()).count()).isEqualTo(5);
    assertThat(pool.evictions()).isGreaterThanOrEqualTo(75);
  }

  @Test
  void closesTheLeastRecentlyUsedIdleFile() throws Exception {
    // Given: a full pool of three, then a fourth file pushes the oldest out
    FileHandlePool pool = new FileHandlePool(3);
    LogSegment a = segment(pool, "a", 1);
    LogSegment b = segment(pool, "b", 1);
    LogSegment c = segment(pool, "c", 1);
    LogSegment d = segment(pool, "d", 1);
    assertThat(a.file().isOpen()).isFalse();

    // When: b is used again, then a fifth file opens
    touch(b);
    LogSegment e = segment(pool, "e", 1);

    // Then: c, now the least recently used, went; b stayed
    assertThat(b.file().isOpen()).isTrue();
    assertThat(c.file().isOpen()).isFalse();
    assertThat(d.file().isOpen()).isTrue();
    assertThat(e.file().isOpen()).isTrue();
    assertThat(pool.openFiles()).isEqualTo(3);
  }

  @Test
  void neverClosesAPinnedFileAndReturnsUnderTheBoundOnRelease() throws Exception {
    // Given: both slots pinned, as by two responses being sent
    FileHandlePool pool = new FileHandlePool(2);
    LogSegment a = segment(pool, "a", 2);
    LogSegment b = segment(pool, "b", 2);
    FileSlice sliceA = a.read(0, 1 << 20, a.sizeInBytes(), false);
    FileSlice sliceB = b.read(0, 1 << 20, b.sizeInBytes(), false);
    sliceA.pin();
    sliceB.pin();

    // When: more files are used than the bound allows
    LogSegment c = segment(pool, "c", 2);
    LogSegment d = segment(pool, "d", 2);

    // Then: the pinned ones stay open and readable, the rest were closed after use
    assertThat(a.file().isOpen()).isTrue();
    assertThat(b.file().isOpen()).isTrue();
    assertThat(c.file().isOpen()).isFalse();
    assertThat(d.file().isOpen()).isFalse();
    ByteBuffer bytes = ByteBuffer.allocate(sliceA.sizeInBytes());
    sliceA.channel().read(bytes, sliceA.position());
    assertThat(bytes.hasRemaining()).isFalse();

    // And: released, they are ordinary idle files again
    sliceA.unpin();
    sliceB.unpin();
    touch(c);
    assertThat(pool.openFiles()).isEqualTo(2);
  }

  @Test
  void aReopenedFileReadsTheSameBytesEvenAfterARename() throws Exception {
    // Given
    FileHandlePool pool = new FileHandlePool(1);
    LogSegment a = segment(pool, "a", 5);
    FileSlice slice = a.read(1, 1 << 20, a.sizeInBytes(), false);
    byte[] before = Batches.bytes(slice.copyToMemory());

    // When: another file pushes it out, and it is renamed while closed
    segment(pool, "other", 1);
    assertThat(a.file().isOpen()).isFalse();
    a.changeFileSuffixes("", SegmentFiles.DELETED_SUFFIX);

    // Then
    assertThat(Batches.bytes(slice.copyToMemory())).isEqualTo(before);
    assertThat(a.readNextOffset()).isEqualTo(5);
    assertThat(a.file().logPath().getFileName().toString()).endsWith(".log.deleted");
    assertThat(pool.opens()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void aDeletedFileStaysReadableUntilItsLastPinThenNeverReopens() throws Exception {
    // Given: a slice pinned for sending
    FileHandlePool pool = new FileHandlePool(4);
    LogSegment a = segment(pool, "a", 3);
    FileSlice slice = a.read(0, 1 << 20, a.sizeInBytes(), false);
    slice.pin();

    // When
    a.deleteIfExists();

    // Then: the unlinked inode still reads; the last unpin closes it; nothing comes back
    assertThat(Files.exists(a.file().logPath())).isFalse();
    ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
    slice.channel().read(bytes, slice.position());
    assertThat(bytes.hasRemaining()).isFalse();
    assertThat(pool.openFiles()).isEqualTo(1);
    slice.unpin();
    assertThat(pool.openFiles()).isZero();
    assertThatThrownBy(slice::pin).isInstanceOf(ClosedChannelException.class);
    assertThat(Files.exists(a.file().logPath())).isFalse();
  }

  @Test
  void anUnpinWithoutAPinFails() throws Exception {
    FileHandlePool pool = new FileHandlePool(4);
    LogSegment a = segment(pool, "a", 1);

    assertThatThrownBy(() -> a.file().unpin()).isInstanceOf(IllegalStateException.class);
  }
}
