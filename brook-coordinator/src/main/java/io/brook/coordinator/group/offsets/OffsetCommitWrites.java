package io.brook.coordinator.group.offsets;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The steps an offset commit shares with a transactional one: validate the committer, refuse
 * partitions whose metadata is too large, write the rest as one batch and map a failed write to the
 * client's error. What differs (how the committer is validated, how the batch is written and which
 * errors the client learns) is passed in.
 */
final class OffsetCommitWrites {
  private OffsetCommitWrites() {}

  /**
   * @param validate throws the {@link ApiException} that refuses every partition of the commit
   * @param write writes the batch of offset records
   * @param writeFailure the error each written partition answers when the write failed
   * @return per partition, in request order, NONE once the write is durable, or why it was refused
   */
  static CompletableFuture<Map<TopicPartition, Errors>> validateAndWrite(
      ShardContext context,
      GroupConfig config,
      String groupId,
      Map<TopicPartition, PartitionCommit> offsets,
      Runnable validate,
      Function<List<CoordinatorRecord>, CompletableFuture<Void>> write,
      Function<Throwable, Errors> writeFailure) {
    Map<TopicPartition, Errors> result = new LinkedHashMap<>();
    try {
      validate.run();
    } catch (ApiException e) {
      Errors error = Errors.forException(e);
      offsets.keySet().forEach(tp -> result.put(tp, error));
      return CompletableFuture.completedFuture(result);
    }
    List<CoordinatorRecord> records = new ArrayList<>();
    long now = context.nowMs();
    offsets.forEach(
        (tp, commit) -> {
          String metadata = commit.metadata() == null ? "" : commit.metadata();
          if (metadata.getBytes(StandardCharsets.UTF_8).length > config.offsetMetadataMaxBytes()) {
            result.put(tp, Errors.OFFSET_METADATA_TOO_LARGE);
            return;
          }
          records.add(
              OffsetRecords.commit(
                  groupId,
                  tp,
                  new CommittedOffset(commit.offset(), commit.leaderEpoch(), metadata, now)));
          result.put(tp, Errors.NONE);
        });
    return write
        .apply(records)
        .handle(
            (ok, error) -> {
              if (error != null) {
                Errors failure = writeFailure.apply(error);
                result.replaceAll((tp, e) -> e == Errors.NONE ? failure : e);
              }
              return result;
            });
  }
}
