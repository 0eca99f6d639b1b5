package io.brook.controller.state;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * One partition of an AlterPartition request: its leader asks for a new ISR.
 *
 * @param topicId the topic's id
 * @param partitionId the partition's index
 * @param leaderEpoch the leader epoch the leader acts in
 * @param partitionEpoch the partition epoch of the state the leader saw last
 * @param newIsr the ISR asked for, the leader included
 * @param leaderRecoveryState Kafka's leader recovery state: 0 recovered, 1 recovering (KIP-704)
 */
public record IsrChangeRequest(
    Uuid topicId,
    int partitionId,
    int leaderEpoch,
    int partitionEpoch,
    List<IsrMember> newIsr,
    byte leaderRecoveryState) {
  public IsrChangeRequest {
    Objects.requireNonNull(topicId, "topicId");
    newIsr = List.copyOf(newIsr);
  }

  /** The ISR asked for, as broker ids. */
  public List<Integer> newIsrIds() {
    return newIsr.stream().map(IsrMember::brokerId).toList();
  }

  /**
   * A member of the ISR asked for, with the broker epoch the leader saw it fetch with (KIP-903).
   *
   * @param brokerEpoch the epoch, or {@link #UNKNOWN_EPOCH} to skip the check
   */
  public record IsrMember(int brokerId, long brokerEpoch) {
    /** The epoch of a member whose epoch the leader does not know. */
    public static final long UNKNOWN_EPOCH = -1;

    /** A member whose epoch is not checked. */
    public static IsrMember of(int brokerId) {
      return new IsrMember(brokerId, UNKNOWN_EPOCH);
    }
  }
}
