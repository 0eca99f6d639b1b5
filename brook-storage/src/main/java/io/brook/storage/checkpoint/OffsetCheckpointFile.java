package io.brook.storage.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * One offset per partition, for the per-log-directory files {@code
 * recovery-point-offset-checkpoint} and {@code log-start-offset-checkpoint}.
 *
 * <p>A {@link CheckpointFile} of version {@value #VERSION} whose entry lines are {@code topic
 * partition offset}, separated by single spaces, written sorted by topic then partition. Topic
 * names never contain spaces (Kafka's legal topic characters are {@code [a-zA-Z0-9._-]}).
 * Partitions and offsets are never negative; a negative one on disk is corruption. A partition
 * listed twice is corruption.
 *
 * <p>Thread-safety: as {@link CheckpointFile}.
 */
public final class OffsetCheckpointFile {
  /** The only version of the format. */
  public static final int VERSION = 0;

  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final CheckpointFile<Map.Entry<TopicPartition, Long>> checkpoint;

  public OffsetCheckpointFile(Path file) {
    this.checkpoint = new CheckpointFile<>(file, VERSION, new Format());
  }

  public Path file() {
    return checkpoint.file();
  }

  /**
   * Replaces the file's content with {@code offsets}.
   *
   * @throws IllegalArgumentException if a topic contains whitespace or a partition or offset is
   *     negative
   */
  public void write(Map<TopicPartition, Long> offsets) throws IOException {
    List<Map.Entry<TopicPartition, Long>> entries = new ArrayList<>(offsets.entrySet());
    entries.sort(Map.Entry.comparingByKey(ORDER));
    checkpoint.write(entries);
  }

  /**
   * The offsets in file order; empty if the file does not exist.
   *
   * @throws CorruptCheckpointException if the file is malformed or lists a partition twice
   */
  public Map<TopicPartition, Long> read() throws IOException {
    List<Map.Entry<TopicPartition, Long>> entries = checkpoint.read();
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, Long> entry : entries) {
      if (offsets.put(entry.getKey(), entry.getValue()) != null) {
        throw new CorruptCheckpointException(
            "Corrupt checkpoint file "
                + file()
                + ": partition "
                + entry.getKey()
                + " is listed twice");
      }
    }
    return Collections.unmodifiableMap(offsets);
  }

  private static final class Format
      implements CheckpointFile.EntryFormat<Map.Entry<TopicPartition, Long>> {
    @Override
    public String toLine(Map.Entry<TopicPartition, Long> entry) {
      TopicPartition tp = entry.getKey();
      long offset = entry.getValue();
      if (tp.topic().isEmpty() || tp.topic().chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("topic name is empty or contains whitespace: " + tp);
      }
      if (tp.partition() < 0 || offset < 0) {
        throw new IllegalArgumentException("negative partition or offset: " + tp + " " + offset);
      }
      return tp.topic() + " " + tp.partition() + " " + offset;
    }

    @Override
    public Map.Entry<TopicPartition, Long> fromLine(String line) {
      String[] parts = line.split(" ", -1);
      if (parts.length != 3 || parts[0].isEmpty()) {
        throw new IllegalArgumentException("expected 'topic partition offset'");
      }
      int partition = Integer.parseInt(parts[1]);
      long offset = Long.parseLong(parts[2]);
      if (partition < 0 || offset < 0) {
        throw new IllegalArgumentException("negative partition or offset");
      }
      return Map.entry(new TopicPartition(parts[0], partition), offset);
    }
  }
}
