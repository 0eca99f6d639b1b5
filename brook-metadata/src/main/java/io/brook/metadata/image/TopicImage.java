package io.brook.metadata.image;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * One topic and its partitions.
 *
 * @param name the topic's name
 * @param id the topic's id
 * @param partitions the partitions by index, 0 to {@code partitions().size() - 1}, in index order
 */
public record TopicImage(String name, Uuid id, Map<Integer, PartitionImage> partitions) {
  public TopicImage {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(id, "id");
    partitions = Collections.unmodifiableMap(new TreeMap<>(partitions));
  }

  /** One partition, if it exists. */
  public Optional<PartitionImage> partition(int partitionId) {
    return Optional.ofNullable(partitions.get(partitionId));
  }

  /** The number of partitions. */
  public int numPartitions() {
    return partitions.size();
  }
}
