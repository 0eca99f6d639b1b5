package io.brook.metadata.controller;

import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 *       replica, in replica order, that is in the ISR and may lead; or, when none may and {@link
 *       #uncleanElection unclean election} is allowed, the first replica that may lead, with an ISR
 *       of itself alone (KRaft's rule); or no leader (-1).
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
    electLeaderIfNeeded();
    Optional<List<Integer>> replicasChange = changed(replicas, current.replicas());
    Optional<List<Integer>> isrChange = changed(isr, current.isr());
    Optional<Integer> leaderChange =
        leader == current.leader() ? Optional.empty() : Optional.of(leader);
    Optional<List<Integer>> addingChange = changed(adding, current.addingReplicas());
    Optional<List<Integer>> removingChange = changed(removing, current.removingReplicas());
    if (replicasChange.isEmpty()
        && isrChange.isEmpty()
        && leaderChange.isEmpty()
        && addingChange.isEmpty()
        && removingChange.isEmpty()) {
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
            removingChange));
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
    if (!unclean) {
      return;
    }
    for (int replica : replicas) {
      if (mayLead.test(replica)) {
        // Only the new leader is known to hold what it holds; the others rejoin by catching up.
        leader = replica;
        isr = List.of(replica);
        return;
      }
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
