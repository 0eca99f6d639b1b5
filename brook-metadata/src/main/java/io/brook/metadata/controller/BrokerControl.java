package io.brook.metadata.controller;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.UnfenceBrokerRecord;
import io.brook.metadata.record.UnregisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Broker registration, fencing and unfencing, and the leader and ISR changes they cause.
 *
 * <p>A fenced (or unregistered) broker leaves every ISR it is in, except where it is the last
 * member: the ISR never becomes empty, because its last member is the only replica known to hold
 * every committed record; the partition is then left without a leader (-1) until that broker
 * returns. Leadership moves to the first other ISR member, in replica order, that is unfenced.
 *
 * <p>Where the topic allows unclean leader election ({@link UncleanLeaderElection}), a partition
 * that would be left without a leader gets the first unfenced replica instead, with an ISR of
 * itself alone: when its last ISR member is fenced, and when a replica outside the ISR of a
 * leaderless partition is unfenced.
 */
final class BrokerControl {
  private BrokerControl() {}

  static ControllerResult<Long> registerBroker(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      Uuid incarnationId,
      List<BrokerEndpoint> endpoints,
      Optional<String> rack) {
    if (brokerId < 0) {
      throw new MetadataException(
          new ApiError(Errors.INVALID_REQUEST, "Invalid broker id " + brokerId));
    }
    BrokerRegistration existing = image.brokers().get(brokerId);
    if (existing != null
        && existing.incarnationId().equals(incarnationId)
        && existing.endpoints().equals(endpoints)
        && existing.rack().equals(rack)
        && !existing.fenced()) {
      // A retry of the registration that already succeeded.
      return ControllerResult.of(existing.epoch());
    }
    // The epoch is the offset this record will have: unique and increasing, like Kafka's.
    long epoch = image.offset() + 1;
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new RegisterBrokerRecord(brokerId, incarnationId, epoch, endpoints, rack, false));
    records.addAll(electLeaderless(image, config, brokerId));
    return ControllerResult.of(records, epoch);
  }

  static ControllerResult<ApiError> fenceBroker(
      MetadataImage image, ControllerConfig config, int brokerId) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      return ControllerResult.of(ApiError.of(Errors.BROKER_ID_NOT_REGISTERED));
    }
    if (broker.fenced()) {
      return ControllerResult.of(ApiError.NONE);
    }
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new FenceBrokerRecord(brokerId, broker.epoch()));
    records.addAll(removeFromIsrs(image, config, brokerId));
    return ControllerResult.of(records, ApiError.NONE);
  }

  /**
   * {@link #fenceBroker(MetadataImage, ControllerConfig, int)}, but only the registration of {@code
   * expectedEpoch}: a decision taken about one incarnation must not fence the next, which
   * re-registered meanwhile.
   */
  static ControllerResult<ApiError> fenceBroker(
      MetadataImage image, ControllerConfig config, int brokerId, long expectedEpoch) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker != null && broker.epoch() != expectedEpoch) {
      return ControllerResult.of(ApiError.of(Errors.STALE_BROKER_EPOCH));
    }
    return fenceBroker(image, config, brokerId);
  }

  static ControllerResult<ApiError> unfenceBroker(
      MetadataImage image, ControllerConfig config, int brokerId) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      return ControllerResult.of(ApiError.of(Errors.BROKER_ID_NOT_REGISTERED));
    }
    if (!broker.fenced()) {
      return ControllerResult.of(ApiError.NONE);
    }
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new UnfenceBrokerRecord(brokerId, broker.epoch()));
    records.addAll(electLeaderless(image, config, brokerId));
    return ControllerResult.of(records, ApiError.NONE);
  }

  static ControllerResult<ApiError> unregisterBroker(
      MetadataImage image, ControllerConfig config, int brokerId) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null) {
      return ControllerResult.of(ApiError.of(Errors.BROKER_ID_NOT_REGISTERED));
    }
    List<MetadataRecord> records = new ArrayList<>(removeFromIsrs(image, config, brokerId));
    records.add(new UnregisterBrokerRecord(brokerId, broker.epoch()));
    return ControllerResult.of(records, ApiError.NONE);
  }

  /**
   * The changes that take {@code brokerId} out of every ISR (but never empty one) and move its
   * leaderships to another unfenced ISR member, or (unclean election) to another unfenced replica,
   * or to no leader.
   */
  static List<MetadataRecord> removeFromIsrs(
      MetadataImage image, ControllerConfig config, int brokerId) {
    return removeFromIsrs(image, config, brokerId, (topicId, partition) -> true);
  }

  /**
   * {@link #removeFromIsrs(MetadataImage, ControllerConfig, int)} for the partitions {@code only}
   * accepts (by topic id and partition index): the replicas of a log directory that failed.
   */
  static List<MetadataRecord> removeFromIsrs(
      MetadataImage image, ControllerConfig config, int brokerId, BiPredicate<Uuid, Integer> only) {
    IntPredicate eligible = id -> id != brokerId && isUnfenced(image, id);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topics()) {
      boolean unclean = UncleanLeaderElection.enabled(image, topic.name(), config);
      for (Map.Entry<Integer, PartitionImage> e : topic.partitions().entrySet()) {
        PartitionImage p = e.getValue();
        boolean inIsr = p.isr().contains(brokerId);
        if ((!inIsr && p.leader() != brokerId) || !only.test(topic.id(), e.getKey())) {
          continue;
        }
        List<Integer> isr = new ArrayList<>(p.isr());
        if (isr.size() > 1) {
          isr.remove(Integer.valueOf(brokerId));
        }
        int leader = p.leader();
        if (leader == brokerId || leader == PartitionImage.NO_LEADER) {
          leader = firstEligible(p.replicas(), isr, eligible);
        }
        // Through the reassignment rules, like every ISR change (see ReassignmentControl).
        ReassignmentControl.isrChange(topic.id(), e.getKey(), p, isr, leader, eligible, unclean)
            .ifPresent(changes::add);
      }
    }
    return changes;
  }

  /**
   * Leaders for the leaderless partitions whose ISR holds {@code brokerId}, now unfenced; and,
   * where the topic allows unclean election, for those whose replicas hold it.
   */
  static List<MetadataRecord> electLeaderless(
      MetadataImage image, ControllerConfig config, int brokerId) {
    IntPredicate eligible = id -> id == brokerId || isUnfenced(image, id);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topics()) {
      boolean unclean = UncleanLeaderElection.enabled(image, topic.name(), config);
      for (Map.Entry<Integer, PartitionImage> e : topic.partitions().entrySet()) {
        PartitionImage p = e.getValue();
        if (p.hasLeader() || !p.replicas().contains(brokerId)) {
          continue;
        }
        if (!p.isr().contains(brokerId)) {
          if (unclean) {
            ReassignmentControl.isrChange(
                    topic.id(), e.getKey(), p, p.isr(), PartitionImage.NO_LEADER, eligible, true)
                .ifPresent(changes::add);
          }
          continue;
        }
        int leader = firstEligible(p.replicas(), p.isr(), eligible);
        changes.add(
            new PartitionChangeRecord(
                topic.id(), e.getKey(), Optional.empty(), Optional.of(leader)));
      }
    }
    return changes;
  }

  private static int firstEligible(
      List<Integer> replicas, List<Integer> isr, IntPredicate eligible) {
    for (int replica : replicas) {
      if (isr.contains(replica) && eligible.test(replica)) {
        return replica;
      }
    }
    return PartitionImage.NO_LEADER;
  }

  private static boolean isUnfenced(MetadataImage image, int brokerId) {
    BrokerRegistration b = image.brokers().get(brokerId);
    return b != null && !b.fenced();
  }
}
