package io.brook.coordinator.api;

import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The partitions of an OffsetCommit or TxnOffsetCommit request, split into those refused up front
 * (unknown topic or partition) and those whose offsets go on to the group's coordinator.
 *
 * <p>Both requests carry the same fields in different kafka-clients generated classes with no
 * common supertype, so {@link #resolve} takes the per-type accessors rather than the classes.
 *
 * @param <T> the request's topic class
 * @param refused partitions answered without writing, with their error
 * @param offsets partitions to write, with what to commit
 * @param names each request topic's resolved name, so the response can find its partitions' errors
 *     when the topic was given by id
 */
record ResolvedOffsetCommits<T>(
    Map<TopicPartition, Errors> refused,
    Map<TopicPartition, PartitionCommit> offsets,
    Map<T, String> names) {

  /**
   * Resolves each topic by name or by id ({@code byId}) and refuses the partitions of unknown
   * topics or partitions.
   *
   * @param <P> the request's partition class
   * @param commit what to commit for a partition: offset, leader epoch and metadata
   */
  static <T, P> ResolvedOffsetCommits<T> resolve(
      TopicResolver resolver,
      boolean byId,
      List<T> topics,
      Function<T, String> name,
      Function<T, Uuid> topicId,
      Function<T, List<P>> partitions,
      ToIntFunction<P> partitionIndex,
      Function<P, PartitionCommit> commit) {
    Map<TopicPartition, Errors> refused = new LinkedHashMap<>();
    Map<TopicPartition, PartitionCommit> offsets = new LinkedHashMap<>();
    Map<T, String> names = new LinkedHashMap<>();
    for (T topic : topics) {
      TopicResolver.Resolved resolved =
          resolver.resolve(name.apply(topic), topicId.apply(topic), byId);
      names.put(topic, resolved.name());
      for (P p : partitions.apply(topic)) {
        int index = partitionIndex.applyAsInt(p);
        TopicPartition tp = new TopicPartition(resolved.name(), index);
        if (resolved.error() != Errors.NONE) {
          refused.put(tp, resolved.error());
        } else if (!resolver.partitionExists(resolved.name(), index)) {
          refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        } else {
          offsets.put(tp, commit.apply(p));
        }
      }
    }
    return new ResolvedOffsetCommits<>(refused, offsets, names);
  }

  /** Every partition of {@code offsets} failed with {@code error} (group or write refused). */
  static Map<TopicPartition, Errors> allFailed(
      Map<TopicPartition, PartitionCommit> offsets, Errors error) {
    Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
    offsets.keySet().forEach(tp -> errors.put(tp, error));
    return errors;
  }

  /**
   * The error to answer for partition {@code partitionIndex} of request topic {@code topic}: its
   * refusal, else the coordinator's answer in {@code written}.
   */
  Errors outcome(T topic, int partitionIndex, Map<TopicPartition, Errors> written) {
    TopicPartition tp = new TopicPartition(names.get(topic), partitionIndex);
    return refused.getOrDefault(tp, written.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR));
  }
}
