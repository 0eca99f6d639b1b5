package io.brook.metadata.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.ProducerIdsRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataJournalTest {
  private static final Uuid T1 = Uuid.fromString("MvDxzVmcRsaTz33bUuRU6A");
  private static final Uuid T2 = Uuid.fromString("b3_nGZQjRpWvDHpZ9LTKqA");

  @TempDir Path dir;

  private static final List<List<MetadataRecord>> BATCHES =
      List.of(
          List.of(
              new RegisterBrokerRecord(
                  1,
                  Uuid.fromString("r9Rxdwl_TvCmwAtTfRsMqg"),
                  0,
                  List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT")),
                  Optional.of("r1"),
                  false)),
          List.of(
              new TopicRecord("orders", T1),
              new ConfigRecord(ConfigResource.Type.TOPIC, "orders", "retention.ms", "1000"),
              new PartitionRecord(T1, 0, List.of(1), List.of(1), 1, 0, 0),
              new PartitionRecord(T1, 1, List.of(1), List.of(1), 1, 0, 0)),
          List.of(new ProducerIdsRecord(1, 0, 1000)),
          List.of(
              new TopicRecord("other", T2),
              new PartitionRecord(T2, 0, List.of(1), List.of(1), 1, 0, 0)),
          List.of(new PartitionChangeRecord(T1, 1, Optional.empty(), Optional.of(-1))),
          List.of(new RemoveTopicRecord(T2)));

  /** Appends the batches, returning the image they make and each entry's end position. */
  private MetadataImage appendAll(List<List<MetadataRecord>> batches, List<Long> ends)
      throws IOException {
    MetadataImage image = MetadataImage.EMPTY;
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      for (List<MetadataRecord> batch : batches) {
        long last = journal.append(batch);
        image = image.apply(batch, last);
        ends.add(journal.sizeInBytes());
      }
    }
    return image;
  }

  private Path file() {
    return dir.resolve(MetadataJournal.FILE_NAME);
  }

  @Test
  void missingJournalIsTheEmptyImage() throws IOException {
    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir.resolve("nothing-here"));

    // Then
    assertThat(loaded.image()).isEqualTo(MetadataImage.EMPTY);
    assertThat(loaded.nextOffset()).isZero();
  }

  @Test
  void appendThenReloadGivesAnEqualImage() throws IOException {
    // Given
    MetadataImage written = appendAll(BATCHES, new ArrayList<>());

    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);

    // Then
    assertThat(loaded.image()).isEqualTo(written);
    assertThat(loaded.image().offset()).isEqualTo(9);
    assertThat(loaded.nextOffset()).isEqualTo(10);
  }

  @Test
  void appendReturnsTheLastOffsetAndContinuesAfterReopen() throws IOException {
    // Given
    appendAll(BATCHES.subList(0, 2), new ArrayList<>());

    // When
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      // Then
      assertThat(journal.loaded().nextOffset()).isEqualTo(5);
      assertThat(journal.append(List.of())).isEqualTo(4);
      assertThat(journal.append(BATCHES.get(2))).isEqualTo(5);
      assertThat(journal.append(BATCHES.get(3))).isEqualTo(7);
    }
    assertThat(MetadataJournal.load(dir).image().nextProducerId()).isEqualTo(1000);
  }

  @Test
  void tornEntryRunningPastTheEndIsTruncated() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    MetadataImage firstThree = appendAll(BATCHES.subList(0, 3), new ArrayList<>());
    Files.delete(file());
    appendAll(BATCHES.subList(0, 4), ends);
    truncate(ends.get(3) - 5);

    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);

    // Then
    assertThat(loaded.image()).isEqualTo(firstThree);
    assertThat(Files.size(file())).isEqualTo(ends.get(2));
  }

  @Test
  void tornHeaderIsTruncated() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    MetadataImage written = appendAll(BATCHES, ends);
    appendBytes(new byte[] {0, 0, 1});

    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);

    // Then
    assertThat(loaded.image()).isEqualTo(written);
    assertThat(Files.size(file())).isEqualTo(ends.get(ends.size() - 1));
  }

  @Test
  void lastEntryWithBadChecksumIsTruncated() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    MetadataImage firstTwo = appendAll(BATCHES.subList(0, 2), new ArrayList<>());
    Files.delete(file());
    appendAll(BATCHES.subList(0, 3), ends);
    flipByte(ends.get(2) - 2);

    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);

    // Then
    assertThat(loaded.image()).isEqualTo(firstTwo);
    assertThat(Files.size(file())).isEqualTo(ends.get(1));
  }

  @Test
  void zeroFilledTailIsTruncated() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    MetadataImage written = appendAll(BATCHES, ends);
    appendBytes(new byte[4096]);

    // When
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);

    // Then
    assertThat(loaded.image()).isEqualTo(written);
    assertThat(Files.size(file())).isEqualTo(ends.get(ends.size() - 1));
  }

  @Test
  void afterTruncationTheJournalAcceptsAppendsAgain() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    appendAll(BATCHES.subList(0, 2), ends);
    appendBytes(new byte[] {0, 0, 0, 50, 1, 2, 3});

    // When
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      journal.append(BATCHES.get(2));
    }

    // Then
    assertThat(MetadataJournal.load(dir).image().nextProducerId()).isEqualTo(1000);
  }

  @Test
  void corruptMiddleEntryIsAnErrorNamingItsPosition() throws IOException {
    // Given
    List<Long> ends = new ArrayList<>();
    appendAll(BATCHES, ends);
    flipByte(ends.get(1) + 20);
    long sizeBefore = Files.size(file());

    // When / Then
    assertThatThrownBy(() -> MetadataJournal.load(dir))
        .isInstanceOfSatisfying(
            CorruptJournalException.class,
            e -> {
              assertThat(e.position()).isEqualTo(ends.get(1));
              assertThat(e.getMessage())
                  .contains("byte position " + ends.get(1))
                  .contains("entry 2")
                  .contains("after metadata offset 4")
                  .contains("bad checksum");
            });
    assertThat(Files.size(file())).isEqualTo(sizeBefore);
    assertThatThrownBy(() -> MetadataJournal.open(dir)).isInstanceOf(CorruptJournalException.class);
  }

  @Test
  void hugeLengthIsRejectedWithoutAllocating() throws IOException {
    // Given: a header claiming 2 GiB, as a bit flip in the length could
    List<Long> ends = new ArrayList<>();
    appendAll(BATCHES.subList(0, 1), ends);
    appendBytes(ByteBuffer.allocate(16).putInt(Integer.MAX_VALUE).putInt(0).array());

    // When / Then
    assertThatThrownBy(() -> MetadataJournal.load(dir))
        .isInstanceOfSatisfying(
            CorruptJournalException.class,
            e -> {
              assertThat(e.position()).isEqualTo(ends.get(0));
              assertThat(e.getMessage()).contains("length 2147483647 is outside 1..16777216");
            });
  }

  @Test
  void justAboveTheBoundAndNegativeLengthsAreCorrupt() throws IOException {
    for (int length : new int[] {MetadataJournal.MAX_ENTRY_BYTES + 1, -1}) {
      // Given
      Files.deleteIfExists(file());
      appendAll(BATCHES.subList(0, 1), new ArrayList<>());
      appendBytes(ByteBuffer.allocate(16).putInt(length).putInt(0).array());

      // When / Then
      assertThatThrownBy(() -> MetadataJournal.load(dir))
          .isInstanceOf(CorruptJournalException.class);
    }
  }

  @Test
  void checksumValidEntryThatCannotApplyIsCorrupt() throws IOException {
    // Given: a partition of a topic that does not exist, written as a valid entry
    appendAll(BATCHES.subList(0, 1), new ArrayList<>());
    ByteBuffer entry =
        MetadataJournal.encodeEntry(
            1, false, 0, List.of(new PartitionRecord(T2, 0, List.of(1), List.of(1), 1, 0, 0)));
    appendBytes(entry.array());

    // When / Then
    assertThatThrownBy(() -> MetadataJournal.load(dir))
        .isInstanceOf(CorruptJournalException.class)
        .hasMessageContaining("cannot apply");
  }

  @Test
  void oversizedBatchIsRefusedBeforeWriting() throws IOException {
    // Given
    String big = "x".repeat(MetadataJournal.MAX_ENTRY_BYTES);
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      journal.append(BATCHES.get(0));
      long size = journal.sizeInBytes();

      // When / Then
      assertThatThrownBy(
              () ->
                  journal.append(
                      List.of(new ConfigRecord(ConfigResource.Type.BROKER, "", "a", big))))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(journal.sizeInBytes()).isEqualTo(size);
      assertThat(Files.size(file())).isEqualTo(size);
    }
  }

  @Test
  void compactionKeepsTheImageAndAcceptsLaterAppends() throws IOException {
    // Given
    MetadataImage image = MetadataImage.EMPTY;
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      for (List<MetadataRecord> batch : BATCHES) {
        image = image.apply(batch, journal.append(batch));
      }
      for (int i = 0; i < 50; i++) {
        List<MetadataRecord> fence =
            List.of(
                new PartitionChangeRecord(
                    T1, 0, Optional.empty(), Optional.of(i % 2 == 0 ? -1 : 1)));
        image = image.apply(fence, journal.append(fence));
      }
      long before = journal.sizeInBytes();

      // When
      journal.compact(image);
      List<MetadataRecord> after = List.of(new FenceBrokerRecord(1, 0));
      image = image.apply(after, journal.append(after));

      // Then
      assertThat(journal.sizeInBytes()).isLessThan(before);
    }
    assertThat(MetadataJournal.load(dir).image()).isEqualTo(image);
    assertThat(Files.exists(dir.resolve(MetadataJournal.FILE_NAME + ".compacting"))).isFalse();
  }

  @Test
  void compactionInSeveralSnapshotEntries() throws IOException {
    // Given
    List<List<MetadataRecord>> batches = new ArrayList<>(BATCHES);
    List<MetadataRecord> many = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      many.add(new ConfigRecord(ConfigResource.Type.BROKER, "", "config." + i, "value-" + i));
    }
    batches.add(many);
    MetadataImage image;
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      image = MetadataImage.EMPTY;
      for (List<MetadataRecord> batch : batches) {
        image = image.apply(batch, journal.append(batch));
      }

      // When
      journal.compact(image, 1024);
    }

    // Then
    assertThat(MetadataJournal.load(dir).image()).isEqualTo(image);
    assertThat(image.offset()).isEqualTo(209);
  }

  @Test
  void snapshotCutShortIsCorruptNotTruncated() throws IOException {
    // Given: a snapshot of several entries whose last entry lost its end
    List<MetadataRecord> many = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      many.add(new ConfigRecord(ConfigResource.Type.BROKER, "", "config." + i, "value-" + i));
    }
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      MetadataImage image = MetadataImage.EMPTY.apply(many, journal.append(many));
      journal.compact(image, 1024);
    }
    truncate(Files.size(file()) - 10);

    // When / Then
    assertThatThrownBy(() -> MetadataJournal.load(dir))
        .isInstanceOf(CorruptJournalException.class)
        .hasMessageContaining("snapshot");
  }

  @Test
  void compactingAnImageOfAnotherOffsetIsRefused() throws IOException {
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      journal.append(BATCHES.get(0));
      assertThatThrownBy(() -> journal.compact(MetadataImage.EMPTY))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void compactedEmptyImageKeepsItsOffset() throws IOException {
    // Given
    MetadataImage image;
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      List<MetadataRecord> batch = BATCHES.get(0);
      image = MetadataImage.EMPTY.apply(batch, journal.append(batch));
      List<MetadataRecord> unregister =
          List.of(new io.brook.metadata.record.UnregisterBrokerRecord(1, 0));
      image = image.apply(unregister, journal.append(unregister));

      // When
      journal.compact(image);
    }

    // Then
    MetadataJournal.Loaded loaded = MetadataJournal.load(dir);
    assertThat(loaded.image()).isEqualTo(image);
    assertThat(loaded.nextOffset()).isEqualTo(2);
  }

  @Test
  void aSecondOpenIsRefusedWhileTheFirstHoldsTheLock() throws IOException {
    try (MetadataJournal journal = MetadataJournal.open(dir)) {
      assertThat(journal.lastOffset()).isEqualTo(-1);
      assertThatThrownBy(() -> MetadataJournal.open(dir))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("in use");
    }
    MetadataJournal.open(dir).close();
  }

  @Test
  void closedJournalRefusesAppends() throws IOException {
    MetadataJournal journal = MetadataJournal.open(dir);
    journal.close();
    assertThatThrownBy(() -> journal.append(BATCHES.get(0)))
        .isInstanceOf(IllegalStateException.class);
  }

  private void truncate(long size) throws IOException {
    try (FileChannel ch = FileChannel.open(file(), StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
  }

  private void appendBytes(byte[] bytes) throws IOException {
    Files.write(file(), bytes, StandardOpenOption.APPEND);
  }

  private void flipByte(long position) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, position);
      b.flip();
      byte value = b.get();
      ch.write(ByteBuffer.wrap(new byte[] {(byte) (value ^ 0x5A)}), position);
    }
  }
}
