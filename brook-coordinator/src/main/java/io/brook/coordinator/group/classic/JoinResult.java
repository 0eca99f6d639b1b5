package io.brook.coordinator.group.classic;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to a JoinGroup.
 *
 * @param memberId the member's id (new for a first join, MEMBER_ID_REQUIRED carries it too)
 * @param members the members and their metadata of the chosen protocol; only for the leader
 */
public record JoinResult(
    Errors error,
    String memberId,
    int generationId,
    String protocolType,
    String protocolName,
    String leaderId,
    List<JoinedMember> members) {

  /** No generation, as Kafka answers a failed join. */
  public static final int NO_GENERATION = -1;

  /** One member as the leader sees it. */
  public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {}

  public JoinResult {
    members = List.copyOf(members);
  }

  public static JoinResult error(String memberId, Errors error) {
    return new JoinResult(error, memberId, NO_GENERATION, null, null, "", List.of());
  }
}
