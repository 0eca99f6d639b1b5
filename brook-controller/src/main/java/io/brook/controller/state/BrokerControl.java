package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.UnfenceBrokerRecord;
import io.brook.metadata.record.UnregisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BiPredicate;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Broker registration, fencing and unfencing, and the leader and ISR changes they cause.
 *
 * <p>A fenced (or unregistered) broker leaves every ISR it is in. Where the topic tracks eligible
 * leader replicas ({@link EligibleLeaderReplicas}) the ISR may become empty: a member leaving an
 * ISR below min ISR joins the ELR, and one of its unfenced members leads a partition whose ISR is
 * empty. Where it does not, the last ISR member stays (it is the only replica known to hold every
 * committed record) and the partition is left without a leader (-1) until that broker returns.
 * Leadership moves to the first other ISR member, in replica order, that is unfenced.
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
    // A broker that leaves the cluster leaves the ELRs too: it is not coming back to lead.
    List<MetadataRecord> records =
        new ArrayList<>(removeFromIsrs(image, config, brokerId, (t, p) -> true, true));
    records.add(new UnregisterBrokerRecord(brokerId, broker.epoch()));
    return ControllerResult.of(records, ApiError.NONE);
  }

  /**
   * The changes that take {@code brokerId} out of every ISR and move its leaderships to another
   * unfenced ISR member, or (ELR) to an unfenced eligible leader replica, or (unclean election) to
   * another unfenced replica, or to no leader. Where the topic tracks the ELR the ISR may become
   * empty and the broker joins the ELR when the ISR is below min ISR; where it does not, the last
   * ISR member stays, as the only replica known to hold every committed record.
   */
  static List<MetadataRecord> removeFromIsrs(
      MetadataImage image, ControllerConfig config, int brokerId) {
    return removeFromIsrs(image, config, brokerId, (topicId, partition) -> true, false);
  }

  /**
   * {@link #removeFromIsrs(MetadataImage, ControllerConfig, int)} for the partitions {@code only}
   * accepts (by topic id and partition index): the replicas of a log directory that failed. With
   * {@code dropFromElr} the broker's replicas may lack committed records (it registered again after
   * an unclean shutdown, or their log directory failed) or it leaves the cluster: it also leaves
   * those ELRs, and does not join them.
   */
  static List<MetadataRecord> removeFromIsrs(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      BiPredicate<Uuid, Integer> only,
      boolean dropFromElr) {
    IntPredicate eligible = id -> id != brokerId && isUnfenced(image, id);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topics()) {
      boolean unclean = UncleanLeaderElection.enabled(image, topic.name(), config);
      OptionalInt minIsr = EligibleLeaderReplicas.minIsr(image, topic.name(), config);
      for (Map.Entry<Integer, PartitionImage> e : topic.partitions().entrySet()) {
        PartitionImage p = e.getValue();
        boolean affected =
            p.isr().contains(brokerId)
                || p.leader() == brokerId
                || (dropFromElr && p.eligibleLeaderReplicas().contains(brokerId));
        if (!affected || !only.test(topic.id(), e.getKey())) {
          continue;
        }
        List<Integer> isr = new ArrayList<>(p.isr());
        if (isr.size() > 1 || minIsr.isPresent()) {
          isr.remove(Integer.valueOf(brokerId));
        }
        int leader = p.leader();
        if (leader == brokerId || leader == PartitionImage.NO_LEADER) {
          leader = firstEligible(p.replicas(), isr, eligible);
        }
        // Through the reassignment rules, like every ISR change (see ReassignmentControl).
        PartitionChangeBuilder change =
            ReassignmentControl.changeBuilder(topic.id(), e.getKey(), p, isr, leader, eligible)
                .uncleanElection(unclean)
                .eligibleLeaderReplicas(minIsr);
        if (dropFromElr) {
          change.uncleanShutdown(brokerId);
        }
        change.build().ifPresent(changes::add);
      }
    }
    return changes;
  }

  /**
   * Leaders for the leaderless partitions {@code brokerId}, now unfenced, may lead: those whose ISR
   * holds it; those with an empty ISR whose ELR (or, the ELR empty, last known leader) it is; and,
   * where the topic allows unclean election, those whose replicas hold it.
   */
  static List<MetadataRecord> electLeaderless(
      MetadataImage image, ControllerConfig config, int brokerId) {
    IntPredicate eligible = id -> id == brokerId || isUnfenced(image, id);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topics()) {
      boolean unclean = UncleanLeaderElection.enabled(image, topic.name(), config);
      OptionalInt minIsr = EligibleLeaderReplicas.minIsr(image, topic.name(), config);
      for (Map.Entry<Integer, PartitionImage> e : topic.partitions().entrySet()) {
        PartitionImage p = e.getValue();
        boolean mayWin =
            p.isr().contains(brokerId)
                || p.eligibleLeaderReplicas().contains(brokerId)
                || p.lastKnownElr().contains(brokerId);
        // Only elections this broker can win, or unclean ones its return makes possible: another
        // replica that is unfenced but was passed over (its log directory failed) stays so.
        if (p.hasLeader() || !p.replicas().contains(brokerId) || !(mayWin || unclean)) {
          continue;
        }
        ReassignmentControl.changeBuilder(
                topic.id(), e.getKey(), p, p.isr(), PartitionImage.NO_LEADER, eligible)
            .uncleanElection(unclean)
            .eligibleLeaderReplicas(minIsr)
            .build()
            .ifPresent(changes::add);
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
