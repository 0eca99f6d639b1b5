package io.brook.storage.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetCheckpointFileTest {
  @TempDir Path dir;

  @Test
  void roundTripsOffsetsSortedByTopicAndPartition() throws IOException {
    // Given
    OffsetCheckpointFile checkpoint =
        new OffsetCheckpointFile(dir.resolve("recovery-point-offset-checkpoint"));
    Map<TopicPartition, Long> offsets = new HashMap<>();
    offsets.put(new TopicPartition("orders", 10), 5L);
    offsets.put(new TopicPartition("orders", 2), 1234L);
    offsets.put(new TopicPartition("audit.log-v1_x", 0), 0L);
    offsets.put(new TopicPartition("orders", 0), Long.MAX_VALUE);

    // When
    checkpoint.write(offsets);

    // Then
    assertThat(checkpoint.read()).isEqualTo(offsets);
    assertThat(Files.readString(checkpoint.file()))
        .isEqualTo(
            "0\n4\naudit.log-v1_x 0 0\norders 0 "
                + Long.MAX_VALUE
                + "\norders 2 1234\norders 10 5\n");
  }

  @Test
  void missingFileReadsAsEmpty() throws IOException {
    // Given
    OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(dir.resolve("missing"));

    // When / Then
    assertThat(checkpoint.read()).isEmpty();
  }

  @Test
  void rejectsMalformedLines() throws IOException {
    // Given
    OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(dir.resolve("log-start-offset"));

    // When / Then
    for (String line : new String[] {"orders 0", "orders 0 1 2", "orders x 1", "orders 0 -1"}) {
      Files.writeString(checkpoint.file(), "0\n1\n" + line + "\n");
      assertThatThrownBy(checkpoint::read)
          .as(line)
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("line 3");
    }
  }

  @Test
  void rejectsAPartitionListedTwice() throws IOException {
    // Given
    OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(dir.resolve("log-start-offset"));
    Files.writeString(checkpoint.file(), "0\n2\norders 0 1\norders 0 2\n");

    // When / Then
    assertThatThrownBy(checkpoint::read)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("orders-0 is listed twice");
  }

  @Test
  void rejectsTopicsWithWhitespaceOnWrite() {
    // Given
    OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(dir.resolve("log-start-offset"));

    // When / Then
    assertThatThrownBy(() -> checkpoint.write(Map.of(new TopicPartition("bad topic", 0), 1L)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
