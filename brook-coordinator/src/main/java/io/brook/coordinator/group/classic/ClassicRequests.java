package io.brook.coordinator.group.classic;

import java.util.List;
import java.util.Map;

/** The classic protocol's requests in version-neutral terms; the API handlers build them. */
public final class ClassicRequests {
  private ClassicRequests() {}

  /**
   * A JoinGroup.
   *
   * @param memberId "" for a first join
   * @param groupInstanceId null for a dynamic member
   * @param rebalanceTimeoutMs the session timeout for version 0, which has no rebalance timeout
   * @param requireKnownMemberId version 4 and up: a first join gets MEMBER_ID_REQUIRED and an id
   * @param connectionId the coordinator connection the request came on
   */
  public record Join(
      String groupId,
      String memberId,
      String groupInstanceId,
      String protocolType,
      List<ClassicMember.Protocol> protocols,
      int sessionTimeoutMs,
      int rebalanceTimeoutMs,
      String clientId,
      String clientHost,
      boolean requireKnownMemberId,
      String connectionId,
      String reason) {}

  /**
   * A SyncGroup.
   *
   * @param protocolType null before version 5
   * @param protocolName null before version 5
   * @param assignments the leader's assignment by member id; empty from followers
   */
  public record Sync(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationId,
      String protocolType,
      String protocolName,
      Map<String, byte[]> assignments,
      String connectionId) {}

  /** A Heartbeat. */
  public record Heartbeat(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationId,
      String connectionId) {}

  /** One member of a LeaveGroup; {@code memberId} may be "" for a static member. */
  public record Leaving(String memberId, String groupInstanceId, String reason) {}
}
