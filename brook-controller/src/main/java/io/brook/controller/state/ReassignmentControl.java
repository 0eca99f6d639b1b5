package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Partition reassignment as KIP-455 defines it and KRaft runs it.
 *
 * <ul>
 *   <li><b>Start</b>: the replicas become target ∪ current, target first (so the preferred leader
 *       is the target's); adding = target - current, removing = current - target. The ISR and
 *       leader stay. "Current" is the replica list as it stands, so a new target for a partition
 *       that is already moving replaces the old target, and replicas the old one was adding may now
 *       be removed.
 *   <li><b>Complete</b>: when every adding replica is in the ISR (and the ISR keeps a member
 *       without the removing ones): replicas = target, ISR = ISR - removing, and a leader outside
 *       the target hands over to the first target replica in sync. {@link PartitionChangeBuilder}
 *       applies this rule on every partition change, so it also runs at start (a reorder or a
 *       shrink completes at once) and on every ISR change ({@link #isrChange}).
 *   <li><b>Cancel</b>: back to the original replicas (current - adding), ISR ∩ original, with a new
 *       leader if the old one is not among them. Refused when no original replica is in sync, which
 *       would take an unclean election.
 * </ul>
 */
final class ReassignmentControl {
  private ReassignmentControl() {}

  /**
   * Starts or cancels reassignments, in order, each seeing the changes before it. Stops before the
   * partition whose record would take the operation past {@code maxRecords}: the result then has
   * fewer entries than {@code requests}, and the caller submits the rest as another operation.
   *
   * @param allowReplicationFactorChange false to refuse a target whose size differs from the
   *     original replica count ({@code INVALID_REPLICATION_FACTOR}), as KIP-860 asks
   * @return one error (or success) per request handled, in order
   */
  static ControllerResult<List<ApiError>> alter(
      MetadataImage image,
      List<PartitionReassignment> requests,
      boolean allowReplicationFactorChange,
      int maxRecords) {
    MetadataImage current = image;
    List<MetadataRecord> records = new ArrayList<>();
    List<MetadataRecord> unapplied = new ArrayList<>();
    Set<PartitionKey> changed = new HashSet<>();
    List<ApiError> results = new ArrayList<>();
    for (PartitionReassignment request : requests) {
      if (records.size() >= maxRecords) {
        break;
      }
      PartitionKey key = new PartitionKey(request.topic(), request.partitionId());
      if (changed.contains(key)) {
        // The same partition twice: the second sees the first's change.
        current = current.apply(unapplied, current.offset() + unapplied.size());
        unapplied.clear();
        changed.clear();
      }
      Outcome outcome = alterOne(current, request, allowReplicationFactorChange);
      results.add(outcome.error());
      outcome
          .change()
          .ifPresent(
              change -> {
                records.add(change);
                unapplied.add(change);
                changed.add(key);
              });
    }
    return ControllerResult.of(records, results);
  }

  /**
   * The partitions with a reassignment in progress: those named in {@code partitions} (unknown
   * topics and partitions are left out, as KRaft does), or all.
   */
  static Map<String, Map<Integer, PartitionImage>> list(
      MetadataImage image, Optional<Map<String, List<Integer>>> partitions) {
    Map<String, Map<Integer, PartitionImage>> ongoing = new TreeMap<>();
    if (partitions.isEmpty()) {
      for (TopicImage topic : image.topics()) {
        topic.partitions().forEach((id, p) -> addIfMoving(ongoing, topic.name(), id, p));
      }
      return ongoing;
    }
    for (Map.Entry<String, List<Integer>> wanted : partitions.get().entrySet()) {
      Optional<TopicImage> topic = image.topic(wanted.getKey());
      for (int id : wanted.getValue()) {
        topic
            .flatMap(t -> t.partition(id))
            .ifPresent(p -> addIfMoving(ongoing, wanted.getKey(), id, p));
      }
    }
    return ongoing;
  }

  /**
   * The change an ISR change makes, completing the partition's reassignment when the new ISR allows
   * it and moving the leadership when {@code leader} is no longer in the ISR or the replicas.
   *
   * <p>Every path that changes an ISR must build its record here: broker fencing and unregistering
   * ({@link BrokerControl#removeFromIsrs}), and AlterPartition from partition leaders when
   * followers replicate ({@link IsrControl}) — the path that adds a reassignment's new replicas to
   * the ISR and so completes moves that add replicas.
   *
   * @param mayLead the brokers that may become leader
   */
  static Optional<PartitionChangeRecord> isrChange(
      Uuid topicId,
      int partitionId,
      PartitionImage partition,
      List<Integer> isr,
      int leader,
      IntPredicate mayLead) {
    return changeBuilder(topicId, partitionId, partition, isr, leader, mayLead).build();
  }

  /**
   * The builder {@link #isrChange} uses, for callers that add ELR tracking or an unclean election
   * before building.
   */
  static PartitionChangeBuilder changeBuilder(
      Uuid topicId,
      int partitionId,
      PartitionImage partition,
      List<Integer> isr,
      int leader,
      IntPredicate mayLead) {
    return new PartitionChangeBuilder(topicId, partitionId, partition, mayLead)
        .isr(isr)
        .leader(leader);
  }

  private static void addIfMoving(
      Map<String, Map<Integer, PartitionImage>> ongoing, String topic, int id, PartitionImage p) {
    if (p.isReassigning()) {
      ongoing.computeIfAbsent(topic, t -> new TreeMap<>()).put(id, p);
    }
  }

  private record PartitionKey(String topic, int partitionId) {}

  /** A partition's answer, and its record when it changes. */
  private record Outcome(ApiError error, Optional<PartitionChangeRecord> change) {
    static Outcome refused(Errors error, String message) {
      return new Outcome(new ApiError(error, message), Optional.empty());
    }

    static Outcome done(Optional<PartitionChangeRecord> change) {
      return new Outcome(ApiError.NONE, change);
    }
  }

  private static Outcome alterOne(
      MetadataImage image, PartitionReassignment request, boolean allowReplicationFactorChange) {
    Optional<TopicImage> topic = image.topic(request.topic());
    if (topic.isEmpty()) {
      return Outcome.refused(
          Errors.UNKNOWN_TOPIC_OR_PARTITION,
          "Unable to find a topic named " + request.topic() + ".");
    }
    Optional<PartitionImage> partition = topic.get().partition(request.partitionId());
    if (partition.isEmpty()) {
      return Outcome.refused(
          Errors.UNKNOWN_TOPIC_OR_PARTITION,
          "Unable to find partition " + request.topic() + ":" + request.partitionId() + ".");
    }
    PartitionChangeBuilder builder =
        new PartitionChangeBuilder(
            topic.get().id(), request.partitionId(), partition.get(), id -> isUnfenced(image, id));
    if (request.targetReplicas().isEmpty()) {
      return cancel(request, partition.get(), builder);
    }
    return start(
        image,
        request.targetReplicas().get(),
        partition.get(),
        allowReplicationFactorChange,
        builder);
  }

  private static Outcome start(
      MetadataImage image,
      List<Integer> target,
      PartitionImage partition,
      boolean allowReplicationFactorChange,
      PartitionChangeBuilder builder) {
    ApiError invalid = ManualAssignment.check(target, image.brokers(), OptionalInt.empty());
    if (invalid.isFailure()) {
      return new Outcome(invalid, Optional.empty());
    }
    int original = partition.originalReplicas().size();
    if (!allowReplicationFactorChange && target.size() != original) {
      return Outcome.refused(
          Errors.INVALID_REPLICATION_FACTOR,
          "The replication factor is changed from " + original + " to " + target.size());
    }
    List<Integer> current = partition.replicas();
    List<Integer> replicas = new ArrayList<>(target);
    for (int replica : current) {
      if (!target.contains(replica)) {
        replicas.add(replica);
      }
    }
    List<Integer> adding = PartitionChangeBuilder.without(target, current);
    List<Integer> removing = PartitionChangeBuilder.without(current, target);
    return Outcome.done(builder.replicas(replicas, adding, removing).build());
  }

  private static Outcome cancel(
      PartitionReassignment request, PartitionImage partition, PartitionChangeBuilder builder) {
    if (!partition.isReassigning()) {
      return new Outcome(ApiError.of(Errors.NO_REASSIGNMENT_IN_PROGRESS), Optional.empty());
    }
    List<Integer> original = partition.originalReplicas();
    List<Integer> isr = new ArrayList<>(partition.isr());
    isr.retainAll(original);
    if (isr.isEmpty()) {
      return Outcome.refused(
          Errors.INVALID_REPLICA_ASSIGNMENT,
          "Unable to revert partition assignment for "
              + request.topic()
              + ":"
              + request.partitionId()
              + " because it would require an unclean leader election.");
    }
    return Outcome.done(builder.replicas(original, List.of(), List.of()).isr(isr).build());
  }

  private static boolean isUnfenced(MetadataImage image, int brokerId) {
    BrokerRegistration b = image.brokers().get(brokerId);
    return b != null && !b.fenced();
  }
}
