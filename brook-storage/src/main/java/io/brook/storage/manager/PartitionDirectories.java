package io.brook.storage.manager;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/** The {@code <topic>-<partition>} naming of partition directories. */
final class PartitionDirectories {
  private PartitionDirectories() {}

  static String name(TopicPartition tp) {
    return tp.topic() + "-" + tp.partition();
  }

  /** The partition a directory belongs to, or empty if the name does not parse. */
  static Optional<TopicPartition> parse(Path dir) {
    String name = dir.getFileName().toString();
    int dash = name.lastIndexOf('-');
    if (dash <= 0 || dash == name.length() - 1) {
      return Optional.empty();
    }
    try {
      int partition = Integer.parseInt(name.substring(dash + 1));
      if (partition < 0) {
        return Optional.empty();
      }
      return Optional.of(new TopicPartition(name.substring(0, dash), partition));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
