package io.brook.coordinator.group.classic;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a classic group. The identity, timeouts, the selected protocol's metadata and the
 * assignment are persisted in the group record; the rest (the full protocol list, the pending
 * JoinGroup/SyncGroup answers, the connection it last spoke on) lives only in memory.
 *
 * <p>Its state changes only inside {@link ClassicGroup#apply}: the package-private mutators below
 * are that method's tools, not the request code's. Completing a parked answer ({@link
 * #completeJoin}, {@link #completeSync}) is answering a request and may be done by whoever answers.
 *
 * <p>Used on the shard's thread only, like its group.
 */
public final class ClassicMember {
  /** One protocol a member supports, with its metadata (for consumers: the subscription). */
  public record Protocol(String name, byte[] metadata) {
    boolean sameAs(Protocol other) {
      return name.equals(other.name) && Arrays.equals(metadata, other.metadata);
    }
  }

  /** What a member's JoinGroup tells about it besides its ids. */
  record Metadata(
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      List<Protocol> protocols) {
    Metadata {
      protocols = List.copyOf(protocols);
    }
  }

  private final String memberId;
  private final String groupInstanceId;
  private String clientId;
  private String clientHost;
  private int rebalanceTimeoutMs;
  private int sessionTimeoutMs;
  private List<Protocol> protocols;
  private byte[] assignment = new byte[0];
  private CompletableFuture<JoinResult> joinFuture;
  private CompletableFuture<SyncResult> syncFuture;
  private String connectionId;
  private boolean isNew;

  ClassicMember(String memberId, String groupInstanceId, Metadata metadata) {
    this.memberId = memberId;
    this.groupInstanceId = groupInstanceId;
    update(metadata);
  }

  /** A copy under a new member id (static member replacement), keeping the assignment. */
  ClassicMember withMemberId(String newMemberId) {
    ClassicMember copy = new ClassicMember(newMemberId, groupInstanceId, metadata());
    copy.assignment = assignment;
    copy.connectionId = connectionId;
    return copy;
  }

  Metadata metadata() {
    return new Metadata(clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocols);
  }

  public String memberId() {
    return memberId;
  }

  /** The static member's {@code group.instance.id}, or null for a dynamic member. */
  public String groupInstanceId() {
    return groupInstanceId;
  }

  public boolean isStatic() {
    return groupInstanceId != null;
  }

  public String clientId() {
    return clientId;
  }

  public String clientHost() {
    return clientHost;
  }

  public int rebalanceTimeoutMs() {
    return rebalanceTimeoutMs;
  }

  public int sessionTimeoutMs() {
    return sessionTimeoutMs;
  }

  public List<Protocol> protocols() {
    return protocols;
  }

  public byte[] assignment() {
    return assignment;
  }

  void setAssignment(byte[] assignment) {
    this.assignment = assignment == null ? new byte[0] : assignment;
  }

  /** The metadata this member sent for {@code protocol}. */
  public Optional<byte[]> metadata(String protocol) {
    return protocols.stream()
        .filter(p -> p.name().equals(protocol))
        .map(Protocol::metadata)
        .findFirst();
  }

  /** Whether the member sent exactly these protocols and metadata before. */
  boolean matches(List<Protocol> other) {
    if (other.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < other.size(); i++) {
      if (!protocols.get(i).sameAs(other.get(i))) {
        return false;
      }
    }
    return true;
  }

  void update(Metadata metadata) {
    this.clientId = metadata.clientId();
    this.clientHost = metadata.clientHost();
    this.rebalanceTimeoutMs = metadata.rebalanceTimeoutMs();
    this.sessionTimeoutMs = metadata.sessionTimeoutMs();
    this.protocols = metadata.protocols();
  }

  public boolean isAwaitingJoin() {
    return joinFuture != null;
  }

  public boolean isAwaitingSync() {
    return syncFuture != null;
  }

  /**
   * Parks a JoinGroup answer; an answer already parked for this member is completed with {@code
   * replacedWith} first, so no request of the member's connection waits forever.
   */
  void awaitJoin(CompletableFuture<JoinResult> future, JoinResult replacedWith) {
    if (joinFuture != null && joinFuture != future) {
      joinFuture.complete(replacedWith);
    }
    joinFuture = future;
  }

  /** Answers the parked JoinGroup, if any. */
  void completeJoin(JoinResult result) {
    CompletableFuture<JoinResult> future = joinFuture;
    joinFuture = null;
    if (future != null) {
      future.complete(result);
    }
  }

  void awaitSync(CompletableFuture<SyncResult> future, SyncResult replacedWith) {
    if (syncFuture != null && syncFuture != future) {
      syncFuture.complete(replacedWith);
    }
    syncFuture = future;
  }

  /** Answers the parked SyncGroup, if any. */
  void completeSync(SyncResult result) {
    CompletableFuture<SyncResult> future = syncFuture;
    syncFuture = null;
    if (future != null) {
      future.complete(result);
    }
  }

  /** The connection of the member's latest JoinGroup, SyncGroup or Heartbeat. */
  public String connectionId() {
    return connectionId;
  }

  void setConnectionId(String connectionId) {
    if (connectionId != null) {
      this.connectionId = connectionId;
    }
  }

  /** A member that joined but has not yet been part of a completed join phase. */
  boolean isNew() {
    return isNew;
  }

  void setNew(boolean isNew) {
    this.isNew = isNew;
  }
}
