package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.PartitionImage;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The answer to one partition of an AlterPartition request.
 *
 * @param topicId the topic's id
 * @param partitionId the partition's index
 * @param error {@code NONE}, or why the ISR was not changed
 * @param partition on success, the partition as it is once the change is applied (the leader adopts
 *     its ISR, leader epoch and partition epoch); empty on error
 */
public record IsrChangeResult(
    Uuid topicId, int partitionId, ApiError error, Optional<PartitionImage> partition) {
  public IsrChangeResult {
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(partition, "partition");
  }
}
