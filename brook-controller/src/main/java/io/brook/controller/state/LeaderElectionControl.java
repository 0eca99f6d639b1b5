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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * Leader elections an administrator asks for (ElectLeaders). All changes of one election are one
 * batch of records.
 *
 * <ul>
 *   <li>Preferred: each partition's first replica leads again when it is unfenced and in sync, so
 *       leaders return to the even spread placement gave them after failures moved them.
 *   <li>Unclean: each leaderless partition gets an unfenced eligible leader replica if it has one
 *       (no data loss), else its first unfenced replica, in sync or not, with an ISR of itself; see
 *       {@link UncleanLeaderElection} for what that costs.
 * </ul>
 */
final class LeaderElectionControl {
  private LeaderElectionControl() {}

  /** One partition's election: its outcome, with its record added to {@code records}. */
  @FunctionalInterface
  private interface Election {
    ApiError elect(
        MetadataImage image,
        TopicImage topic,
        int id,
        PartitionImage partition,
        List<MetadataRecord> records);
  }

  /**
   * @param partitions partition ids by topic name, or empty for every partition (then only the
   *     partitions whose leader changes appear in the result)
   * @return per topic and partition: {@code NONE} (elected), {@code ELECTION_NOT_NEEDED}, {@code
   *     PREFERRED_LEADER_NOT_AVAILABLE} or {@code UNKNOWN_TOPIC_OR_PARTITION}
   */
  static ControllerResult<Map<String, Map<Integer, ApiError>>> electPreferred(
      MetadataImage image, Optional<Map<String, List<Integer>>> partitions) {
    return electAll(image, partitions, LeaderElectionControl::elect);
  }

  /**
   * @param partitions partition ids by topic name, or empty for every partition (then only the
   *     partitions that get a leader appear in the result)
   * @return per topic and partition: {@code NONE} (elected), {@code ELECTION_NOT_NEEDED}, {@code
   *     ELIGIBLE_LEADERS_NOT_AVAILABLE} or {@code UNKNOWN_TOPIC_OR_PARTITION}
   */
  static ControllerResult<Map<String, Map<Integer, ApiError>>> electUnclean(
      MetadataImage image,
      ControllerConfig config,
      Optional<Map<String, List<Integer>>> partitions) {
    return electAll(
        image,
        partitions,
        (img, topic, id, partition, records) ->
            electUnclean(img, config, topic, id, partition, records));
  }

  private static ControllerResult<Map<String, Map<Integer, ApiError>>> electAll(
      MetadataImage image, Optional<Map<String, List<Integer>>> partitions, Election election) {
    Map<String, Map<Integer, ApiError>> results = new TreeMap<>();
    List<MetadataRecord> records = new ArrayList<>();
    Map<String, List<Integer>> wanted = partitions.orElseGet(() -> everyPartition(image));
    for (Map.Entry<String, List<Integer>> topic : wanted.entrySet()) {
      Optional<TopicImage> found = image.topic(topic.getKey());
      for (int id : topic.getValue()) {
        Optional<PartitionImage> partition = found.flatMap(t -> t.partition(id));
        ApiError outcome;
        if (partition.isEmpty()) {
          outcome = ApiError.of(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        } else {
          outcome = election.elect(image, found.get(), id, partition.get(), records);
        }
        if (partitions.isPresent() || outcome.isSuccess()) {
          results.computeIfAbsent(topic.getKey(), k -> new LinkedHashMap<>()).put(id, outcome);
        }
      }
    }
    return ControllerResult.of(records, results);
  }

  private static ApiError elect(
      MetadataImage image,
      TopicImage topic,
      int id,
      PartitionImage partition,
      List<MetadataRecord> records) {
    int preferred = partition.replicas().get(0);
    if (partition.leader() == preferred) {
      return ApiError.of(Errors.ELECTION_NOT_NEEDED);
    }
    boolean unfenced = image.broker(preferred).map(b -> !b.fenced()).orElse(false);
    if (!unfenced || !partition.isr().contains(preferred)) {
      return new ApiError(
          Errors.PREFERRED_LEADER_NOT_AVAILABLE,
          "preferred replica " + preferred + " is fenced or not in sync");
    }
    records.add(
        new PartitionChangeRecord(topic.id(), id, Optional.empty(), Optional.of(preferred)));
    return ApiError.NONE;
  }

  private static ApiError electUnclean(
      MetadataImage image,
      ControllerConfig config,
      TopicImage topic,
      int id,
      PartitionImage partition,
      List<MetadataRecord> records) {
    if (partition.hasLeader()) {
      return ApiError.of(Errors.ELECTION_NOT_NEEDED);
    }
    // An eligible leader replica, if one can lead, before any replica that may lack records.
    Optional<PartitionChangeRecord> change =
        ReassignmentControl.changeBuilder(
                topic.id(),
                id,
                partition,
                partition.isr(),
                PartitionImage.NO_LEADER,
                b -> image.broker(b).map(r -> !r.fenced()).orElse(false))
            .eligibleLeaderReplicas(EligibleLeaderReplicas.minIsr(image, topic.name(), config))
            .uncleanEvenOverEligibleReplicas()
            .build();
    boolean elected =
        change
            .flatMap(PartitionChangeRecord::leader)
            .filter(l -> l != PartitionImage.NO_LEADER)
            .isPresent();
    if (!elected) {
      return new ApiError(
          Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, "no replica of the partition is unfenced");
    }
    records.add(change.get());
    return ApiError.NONE;
  }

  private static Map<String, List<Integer>> everyPartition(MetadataImage image) {
    Map<String, List<Integer>> all = new TreeMap<>();
    for (TopicImage topic : image.topics()) {
      all.put(topic.name(), new ArrayList<>(topic.partitions().keySet()));
    }
    return all;
  }

  /** Whether any unfenced broker leads a partition it is not the preferred replica of. */
  static boolean imbalanced(MetadataImage image) {
    for (TopicImage topic : image.topics()) {
      for (PartitionImage p : topic.partitions().values()) {
        int preferred = p.replicas().get(0);
        BrokerRegistration b = image.brokers().get(preferred);
        if (p.leader() != preferred && b != null && !b.fenced() && p.isr().contains(preferred)) {
          return true;
        }
      }
    }
    return false;
  }
}
