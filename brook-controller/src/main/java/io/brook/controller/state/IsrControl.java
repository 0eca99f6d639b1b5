package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterPartition: a partition leader asks for a new ISR, after a follower fell behind (shrink) or
 * caught up (expand). The checks and their codes are those of Kafka's KRaft controller ({@code
 * ReplicationControlManager}, KIP-497, KIP-841, KIP-903), in its order:
 *
 * <ol>
 *   <li>The requesting broker's epoch must be its registration's, else the whole request fails with
 *       {@code STALE_BROKER_EPOCH}: it comes from a process that is gone.
 *   <li>An unknown topic id is {@code UNKNOWN_TOPIC_ID}, an unknown partition {@code
 *       UNKNOWN_TOPIC_OR_PARTITION}.
 *   <li>A leader or partition epoch above the controller's is {@code NOT_CONTROLLER}: the leader
 *       has seen metadata this node has not, so this node is likely no longer the active
 *       controller.
 *   <li>An older leader epoch is {@code FENCED_LEADER_EPOCH}; a requester that is not the leader is
 *       {@code INVALID_REQUEST}; an older partition epoch is {@code INVALID_UPDATE_VERSION} (the
 *       ISR changed since the leader last looked), unless the ISR asked for is the current one: a
 *       retry of a change that was applied, answered with the current state.
 *   <li>The ISR must be distinct current replicas and hold the leader ({@code INVALID_REQUEST});
 *       the recovery state must stay "recovered", the only one Brook has ({@code INVALID_REQUEST}).
 *   <li>Every member must be registered and unfenced, and, where the leader gives its broker epoch,
 *       in that epoch ({@code INELIGIBLE_REPLICA}, KIP-841 and KIP-903): a replica that caught up
 *       in an earlier life may have lost its log since, and must not vouch for records it lacks. A
 *       broker in controlled shutdown is fenced in Brook, so that case is covered.
 * </ol>
 *
 * <p>The change is built by {@link ReassignmentControl#isrChange}, so an expand that brings a
 * reassignment's new replicas in sync completes the move in the same record. When that moves the
 * leadership away from the requester, the answer is {@code NEW_LEADER_ELECTED} and the record is
 * still written, as in Kafka: the leader must learn its new state from the metadata.
 */
final class IsrControl {
  /** Kafka's {@code LeaderRecoveryState.RECOVERED}. */
  static final byte RECOVERED = 0;

  private IsrControl() {}

  /**
   * @return one result per partition, in request order, and at most one record per partition
   * @throws MetadataException {@code STALE_BROKER_EPOCH} if the broker is not registered in that
   *     epoch
   */
  static ControllerResult<List<IsrChangeResult>> alterPartition(
      MetadataImage image,
      ControllerConfig config,
      int brokerId,
      long brokerEpoch,
      List<IsrChangeRequest> requests) {
    BrokerRegistration broker = image.brokers().get(brokerId);
    if (broker == null || broker.epoch() != brokerEpoch) {
      throw new MetadataException(
          new ApiError(
              Errors.STALE_BROKER_EPOCH,
              "Broker "
                  + brokerId
                  + " is not registered in epoch "
                  + brokerEpoch
                  + (broker == null ? "" : " (its epoch is " + broker.epoch() + ")")));
    }
    MetadataImage current = image;
    List<MetadataRecord> records = new ArrayList<>();
    List<MetadataRecord> unapplied = new ArrayList<>();
    Set<PartitionKey> changed = new HashSet<>();
    List<Outcome> outcomes = new ArrayList<>();
    for (IsrChangeRequest request : requests) {
      PartitionKey key = new PartitionKey(request.topicId(), request.partitionId());
      if (changed.contains(key)) {
        // The same partition twice (a broker bug): the second sees the first's change.
        current = current.apply(unapplied, current.offset() + unapplied.size());
        unapplied.clear();
        changed.clear();
      }
      Outcome outcome = alterOne(current, config, brokerId, request);
      outcomes.add(outcome);
      outcome
          .change()
          .ifPresent(
              change -> {
                records.add(change);
                unapplied.add(change);
                changed.add(key);
              });
    }
    // The state each success reports is the state once every record is applied: one apply.
    MetadataImage after =
        records.isEmpty() ? image : image.apply(records, image.offset() + records.size());
    List<IsrChangeResult> results = new ArrayList<>();
    for (int i = 0; i < requests.size(); i++) {
      IsrChangeRequest request = requests.get(i);
      ApiError error = outcomes.get(i).error();
      Optional<PartitionImage> state =
          error.isSuccess()
              ? after.topic(request.topicId()).flatMap(t -> t.partition(request.partitionId()))
              : Optional.empty();
      results.add(new IsrChangeResult(request.topicId(), request.partitionId(), error, state));
    }
    return ControllerResult.of(records, results);
  }

  private static Outcome alterOne(
      MetadataImage image, ControllerConfig config, int brokerId, IsrChangeRequest request) {
    Optional<TopicImage> topic = image.topic(request.topicId());
    if (topic.isEmpty()) {
      return Outcome.refused(Errors.UNKNOWN_TOPIC_ID, "No topic with id " + request.topicId());
    }
    String name = topic.get().name() + "-" + request.partitionId();
    Optional<PartitionImage> found = topic.get().partition(request.partitionId());
    if (found.isEmpty()) {
      return Outcome.refused(Errors.UNKNOWN_TOPIC_OR_PARTITION, "No partition " + name);
    }
    PartitionImage p = found.get();
    Optional<ApiError> invalid = checkEpochsAndLeader(p, brokerId, request, name);
    if (invalid.isPresent()) {
      return new Outcome(invalid.get(), Optional.empty());
    }
    List<Integer> newIsr = request.newIsrIds();
    if (request.partitionEpoch() < p.partitionEpoch()) {
      if (new HashSet<>(newIsr).equals(new HashSet<>(p.isr())) && newIsr.size() == p.isr().size()) {
        // A retry of a change already made: the leader only missed the answer.
        return new Outcome(ApiError.NONE, Optional.empty());
      }
      return Outcome.refused(
          Errors.INVALID_UPDATE_VERSION,
          "Partition epoch "
              + request.partitionEpoch()
              + " of "
              + name
              + " is older than "
              + p.partitionEpoch());
    }
    invalid = checkIsr(image, p, newIsr, request, name);
    if (invalid.isPresent()) {
      return new Outcome(invalid.get(), Optional.empty());
    }
    // Kept in replica order, as every other ISR is, so an order-only difference changes nothing.
    List<Integer> ordered = p.replicas().stream().filter(newIsr::contains).toList();
    // A shrink below min ISR moves the members it drops into the ELR; a return to min ISR clears
    // it.
    Optional<PartitionChangeRecord> change =
        ReassignmentControl.changeBuilder(
                topic.get().id(),
                request.partitionId(),
                p,
                ordered,
                p.leader(),
                id -> isUnfenced(image, id))
            .eligibleLeaderReplicas(
                EligibleLeaderReplicas.minIsr(image, topic.get().name(), config))
            .build();
    boolean leaderMoved = change.flatMap(PartitionChangeRecord::leader).isPresent();
    if (leaderMoved) {
      // The ISR change completed a reassignment that removes the requester.
      return new Outcome(
          new ApiError(
              Errors.NEW_LEADER_ELECTED,
              "The ISR change of " + name + " completed its reassignment and moved its leader"),
          change);
    }
    return new Outcome(ApiError.NONE, change);
  }

  private static Optional<ApiError> checkEpochsAndLeader(
      PartitionImage p, int brokerId, IsrChangeRequest request, String name) {
    if (request.leaderEpoch() > p.leaderEpoch() || request.partitionEpoch() > p.partitionEpoch()) {
      return Optional.of(
          new ApiError(
              Errors.NOT_CONTROLLER,
              "The epochs of "
                  + name
                  + " are ahead of this controller's: it is likely no longer active"));
    }
    if (request.leaderEpoch() < p.leaderEpoch()) {
      return Optional.of(
          new ApiError(
              Errors.FENCED_LEADER_EPOCH,
              "Leader epoch "
                  + request.leaderEpoch()
                  + " of "
                  + name
                  + " is older than "
                  + p.leaderEpoch()));
    }
    if (brokerId != p.leader()) {
      return Optional.of(
          new ApiError(
              Errors.INVALID_REQUEST,
              "Broker " + brokerId + " is not the leader of " + name + " (" + p.leader() + " is)"));
    }
    return Optional.empty();
  }

  private static Optional<ApiError> checkIsr(
      MetadataImage image,
      PartitionImage p,
      List<Integer> newIsr,
      IsrChangeRequest request,
      String name) {
    if (newIsr.isEmpty()
        || new HashSet<>(newIsr).size() != newIsr.size()
        || !p.replicas().containsAll(newIsr)) {
      return Optional.of(
          new ApiError(
              Errors.INVALID_REQUEST,
              "ISR " + newIsr + " of " + name + " is not distinct replicas of " + p.replicas()));
    }
    if (!newIsr.contains(p.leader())) {
      return Optional.of(
          new ApiError(
              Errors.INVALID_REQUEST,
              "ISR " + newIsr + " of " + name + " lacks its leader " + p.leader()));
    }
    if (request.leaderRecoveryState() != RECOVERED) {
      return Optional.of(
          new ApiError(
              Errors.INVALID_REQUEST,
              "Leader recovery state "
                  + request.leaderRecoveryState()
                  + " of "
                  + name
                  + ": a recovered partition cannot go back to recovering"));
    }
    List<String> ineligible = new ArrayList<>();
    for (IsrChangeRequest.IsrMember member : request.newIsr()) {
      ineligibility(image, member).ifPresent(why -> ineligible.add(member.brokerId() + " " + why));
    }
    if (!ineligible.isEmpty()) {
      return Optional.of(
          new ApiError(
              Errors.INELIGIBLE_REPLICA, "Ineligible ISR members of " + name + ": " + ineligible));
    }
    return Optional.empty();
  }

  private static Optional<String> ineligibility(
      MetadataImage image, IsrChangeRequest.IsrMember member) {
    BrokerRegistration b = image.brokers().get(member.brokerId());
    if (b == null) {
      return Optional.of("is not registered");
    }
    if (b.fenced()) {
      return Optional.of("is fenced or shutting down");
    }
    if (member.brokerEpoch() != IsrChangeRequest.IsrMember.UNKNOWN_EPOCH
        && member.brokerEpoch() != b.epoch()) {
      return Optional.of("has epoch " + b.epoch() + ", not " + member.brokerEpoch());
    }
    return Optional.empty();
  }

  private static boolean isUnfenced(MetadataImage image, int brokerId) {
    BrokerRegistration b = image.brokers().get(brokerId);
    return b != null && !b.fenced();
  }

  private record PartitionKey(Uuid topicId, int partitionId) {}

  /** A partition's answer, and its record when it changes. */
  private record Outcome(ApiError error, Optional<PartitionChangeRecord> change) {
    static Outcome refused(Errors error, String message) {
      return new Outcome(new ApiError(error, message), Optional.empty());
    }
  }
}
