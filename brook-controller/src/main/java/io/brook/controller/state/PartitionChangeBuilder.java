package io.brook.controller.state;

import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;

/**
 * Turns the state one partition should reach into the {@link PartitionChangeRecord} that reaches
 * it, or none when nothing changes. Every controller path that changes a partition's ISR, leader or
 * replicas builds its record here, so that two rules hold on all of them:
 *
 * <ol>
 *   <li>A reassignment in progress completes as soon as the new ISR allows it (see {@link
 *       #build()}), in the same record as the change that allowed it.
 *   <li>A partition whose leader is gone, out of the ISR or out of the replicas gets the first
 *       replica, in replica order, that is in the ISR and may lead; else, when the ISR is empty,
 *       the first eligible leader replica that may lead, which becomes the ISR alone (no data loss:
 *       see {@link EligibleLeaderReplicas}); else, when the ISR and ELR are empty, the last known
 *       leader if it may lead (what happened before the ELR existed: the last ISR member stayed in
 *       the ISR and led again when it returned); else, when {@link #uncleanElection unclean
 *       election} is allowed (and the ELR is empty), the first replica that may lead, with an ISR
 *       of itself alone (KRaft's rule); or no leader (-1).
 *   <li>When the ELR is tracked ({@link #eligibleLeaderReplicas}), a replica leaving an ISR that is
 *       (or becomes) smaller than min ISR joins the ELR, unless it shut down uncleanly; the ELR is
 *       cleared once the ISR is back at min ISR; the leader a partition had when its ISR became
 *       empty is kept as its last known ELR until it has a leader again.
 * </ol>
 *
 * <p>Single use, not thread-safe.
 */
final class PartitionChangeBuilder {
  private final Uuid topicId;
  private final int partitionId;
  private final PartitionImage current;
  private final IntPredicate mayLead;
  private List<Integer> replicas;
  private List<Integer> isr;
  private int leader;
  private List<Integer> adding;
  private List<Integer> removing;
  private boolean unclean;
  private boolean uncleanOverElr;

  /** Null: the ELR is not re-derived (kept, less ISR members and non-replicas). */
  private OptionalInt minIsr;

  private final Set<Integer> uncleanShutdown = new HashSet<>();
  private List<Integer> elr;
  private List<Integer> lastKnownElr;

  /**
   * @param mayLead which brokers may become leader (unfenced ones, less any being fenced now)
   */
  PartitionChangeBuilder(
      Uuid topicId, int partitionId, PartitionImage current, IntPredicate mayLead) {
    this.topicId = topicId;
    this.partitionId = partitionId;
    this.current = current;
    this.mayLead = mayLead;
    this.replicas = current.replicas();
    this.isr = current.isr();
    this.leader = current.leader();
    this.adding = current.addingReplicas();
    this.removing = current.removingReplicas();
    this.elr = current.eligibleLeaderReplicas();
    this.lastKnownElr = current.lastKnownElr();
  }

  /**
   * Tracks the ELR with this min ISR, or (empty) clears it: the ELR feature is off for the topic,
   * and then the caller must never empty the ISR.
   */
  PartitionChangeBuilder eligibleLeaderReplicas(OptionalInt topicMinIsr) {
    this.minIsr = topicMinIsr;
    return this;
  }

  /**
   * A broker that registered again after an unclean shutdown: its log may have lost records it had
   * acknowledged, so it leaves the ELR.
   */
  PartitionChangeBuilder uncleanShutdown(int brokerId) {
    uncleanShutdown.add(brokerId);
    return this;
  }

  /**
   * An administrator's unclean election: it may elect outside the ISR even while the ELR holds
   * replicas, none of which can lead now.
   */
  PartitionChangeBuilder uncleanEvenOverEligibleReplicas() {
    this.unclean = true;
    this.uncleanOverElr = true;
    return this;
  }

  PartitionChangeBuilder isr(List<Integer> newIsr) {
    this.isr = List.copyOf(newIsr);
    return this;
  }

  /** A leader chosen by the caller; it is kept if it is in the ISR and the replicas. */
  PartitionChangeBuilder leader(int newLeader) {
    this.leader = newLeader;
    return this;
  }

  /**
   * Allows electing a replica outside the ISR when no ISR member may lead. Records that only the
   * ISR held may be lost: see {@link UncleanLeaderElection}.
   */
  PartitionChangeBuilder uncleanElection(boolean allowed) {
    this.unclean = allowed;
    return this;
  }

  /** New replicas with the reassignment's adding and removing sets (empty to end one). */
  PartitionChangeBuilder replicas(
      List<Integer> newReplicas, List<Integer> newAdding, List<Integer> newRemoving) {
    this.replicas = List.copyOf(newReplicas);
    this.adding = List.copyOf(newAdding);
    this.removing = List.copyOf(newRemoving);
    return this;
  }

  /**
   * The record, with only the fields that change. A reassignment completes (KRaft's rule) when
   * every replica it adds is in the ISR and the ISR keeps a member once the replicas it removes
   * leave: then replicas = target, ISR = ISR - removing, and the adding and removing sets are
   * cleared. Replicas the reassignment keeps need not be in sync, so a fenced kept replica does not
   * hold a move up forever.
   */
  Optional<PartitionChangeRecord> build() {
    completeReassignmentIfReady();
    deriveElr();
    electLeaderIfNeeded();
    updateLastKnownLeader();
    Optional<List<Integer>> replicasChange = changed(replicas, current.replicas());
    Optional<List<Integer>> isrChange = changed(isr, current.isr());
    Optional<Integer> leaderChange =
        leader == current.leader() ? Optional.empty() : Optional.of(leader);
    Optional<List<Integer>> addingChange = changed(adding, current.addingReplicas());
    Optional<List<Integer>> removingChange = changed(removing, current.removingReplicas());
    Optional<List<Integer>> elrChange = changed(elr, current.eligibleLeaderReplicas());
    Optional<List<Integer>> lastKnownChange = changed(lastKnownElr, current.lastKnownElr());
    if (replicasChange.isEmpty()
        && isrChange.isEmpty()
        && leaderChange.isEmpty()
        && addingChange.isEmpty()
        && removingChange.isEmpty()
        && elrChange.isEmpty()
        && lastKnownChange.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new PartitionChangeRecord(
            topicId,
            partitionId,
            isrChange,
            leaderChange,
            replicasChange,
            addingChange,
            removingChange,
            elrChange,
            lastKnownChange));
  }

  private void completeReassignmentIfReady() {
    if (adding.isEmpty() && removing.isEmpty()) {
      return;
    }
    if (!isr.containsAll(adding)) {
      return;
    }
    List<Integer> keptIsr = without(isr, removing);
    if (keptIsr.isEmpty()) {
      return;
    }
    replicas = without(replicas, removing);
    isr = keptIsr;
    adding = List.of();
    removing = List.of();
  }

  /**
   * The ELR for the target ISR: the current ISR and ELR members outside it, in replica order, when
   * the target ISR is below min ISR; nobody once it is at min ISR.
   */
  private void deriveElr() {
    if (minIsr == null) {
      elr = replicas.stream().filter(r -> elr.contains(r) && !isr.contains(r)).toList();
      elr = without(elr, List.copyOf(uncleanShutdown));
      return;
    }
    if (minIsr.isEmpty()) {
      elr = List.of();
      lastKnownElr = List.of();
      return;
    }
    // A min ISR above the replication factor counts as the factor, as on the leader.
    if (isr.size() >= Math.min(minIsr.getAsInt(), replicas.size())) {
      elr = List.of();
      return;
    }
    List<Integer> derived = new ArrayList<>();
    for (int replica : replicas) {
      boolean wasEligible = elr.contains(replica) || current.isr().contains(replica);
      if (wasEligible && !isr.contains(replica) && !uncleanShutdown.contains(replica)) {
        derived.add(replica);
      }
    }
    elr = List.copyOf(derived);
  }

  private void electLeaderIfNeeded() {
    if (leader != PartitionImage.NO_LEADER && isr.contains(leader) && replicas.contains(leader)) {
      return;
    }
    leader = PartitionImage.NO_LEADER;
    for (int replica : replicas) {
      if (isr.contains(replica) && mayLead.test(replica)) {
        leader = replica;
        return;
      }
    }
    if (isr.isEmpty() && electEligibleLeader()) {
      return;
    }
    if (!unclean || (!elr.isEmpty() && !uncleanOverElr)) {
      return;
    }
    for (int replica : replicas) {
      if (mayLead.test(replica)) {
        // Only the new leader is known to hold what it holds; the others rejoin by catching up.
        leader = replica;
        isr = List.of(replica);
        elr = List.of();
        lastKnownElr = List.of();
        return;
      }
    }
  }

  /** A leader from the ELR, else the last known leader; the ISR is then that leader alone. */
  private boolean electEligibleLeader() {
    for (int replica : replicas) {
      if (elr.contains(replica) && mayLead.test(replica)) {
        leader = replica;
        isr = List.of(replica);
        elr = without(elr, List.of(replica));
        return true;
      }
    }
    if (elr.isEmpty() && lastKnownElr.size() == 1) {
      int last = lastKnownElr.get(0);
      if (replicas.contains(last) && mayLead.test(last)) {
        leader = last;
        isr = List.of(last);
        return true;
      }
    }
    return false;
  }

  /**
   * Remembers the leader of a partition whose ISR becomes empty (the replica an operator most
   * likely wants back), and forgets it once the partition has a leader again.
   */
  private void updateLastKnownLeader() {
    if (minIsr != null && minIsr.isEmpty()) {
      return;
    }
    if (isr.isEmpty() && !current.isr().isEmpty() && current.hasLeader()) {
      lastKnownElr = List.of(current.leader());
    } else if (leader != PartitionImage.NO_LEADER) {
      lastKnownElr = List.of();
    }
  }

  private static Optional<List<Integer>> changed(List<Integer> wanted, List<Integer> now) {
    return wanted.equals(now) ? Optional.empty() : Optional.of(wanted);
  }

  static List<Integer> without(List<Integer> from, List<Integer> removed) {
    List<Integer> kept = new ArrayList<>(from);
    kept.removeAll(removed);
    return List.copyOf(kept);
  }
}
