package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.testing.FakeShardContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A shard with a manual clock for driving classic groups step by step: {@code
 * ClassicTestContext.builder().initialDelayMs(0).build()}, then join, sync, heartbeat and advance
 * the clock on the test's thread.
 */
final class ClassicTestContext {
  static final String GROUP = "group-1";
  static final int SESSION_MS = 10_000;
  static final int REBALANCE_MS = 30_000;

  final FakeShardContext context;
  final GroupCoordinatorShard shard;
  final GroupConfig config;

  private ClassicTestContext(GroupConfig config) {
    this.config = config;
    this.context = new FakeShardContext(0, 1_000_000L);
    this.shard = new GroupCoordinatorShard(context, config);
    context.attach(shard);
    shard.onLoaded();
  }

  static Builder builder() {
    return new Builder();
  }

  static final class Builder {
    private int initialDelayMs;
    private int maxSize = Integer.MAX_VALUE;
    private long graceMs = 2_000L;

    Builder initialDelayMs(int ms) {
      this.initialDelayMs = ms;
      return this;
    }

    Builder maxSize(int size) {
      this.maxSize = size;
      return this;
    }

    Builder deadConnectionGraceMs(long ms) {
      this.graceMs = ms;
      return this;
    }

    ClassicTestContext build() {
      return new ClassicTestContext(config(initialDelayMs, maxSize, graceMs));
    }
  }

  static GroupConfig config(int initialDelayMs, int maxSize, long graceMs) {
    GroupConfig d = GroupConfig.defaults();
    return new GroupConfig(
        d.offsetsTopicNumPartitions(),
        d.offsetsTopicReplicationFactor(),
        d.offsetsTopicSegmentBytes(),
        d.offsetsLoadBufferSize(),
        d.offsetsRetentionMs(),
        d.offsetsRetentionCheckIntervalMs(),
        d.offsetsCommitTimeoutMs(),
        d.offsetMetadataMaxBytes(),
        d.coordinatorThreads(),
        d.rebalanceProtocols(),
        initialDelayMs,
        d.groupMinSessionTimeoutMs(),
        d.groupMaxSessionTimeoutMs(),
        maxSize,
        d.consumerSessionTimeoutMs(),
        d.consumerMinSessionTimeoutMs(),
        d.consumerMaxSessionTimeoutMs(),
        d.consumerHeartbeatIntervalMs(),
        d.consumerMaxSize(),
        d.consumerAssignors(),
        graceMs,
        d.share());
  }

  ClassicGroupManager classic() {
    return shard.classic();
  }

  ClassicGroup group() {
    return classic().group(GROUP).orElseThrow();
  }

  static List<ClassicMember.Protocol> protocols(String... namesAndMetadata) {
    List<ClassicMember.Protocol> out = new java.util.ArrayList<>();
    for (int i = 0; i < namesAndMetadata.length; i += 2) {
      out.add(
          new ClassicMember.Protocol(
              namesAndMetadata[i], namesAndMetadata[i + 1].getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  static final List<ClassicMember.Protocol> RANGE = protocols("range", "sub");

  ClassicRequests.Join joinRequest(String memberId, String instanceId) {
    return new ClassicRequests.Join(
        GROUP,
        memberId,
        instanceId,
        "consumer",
        RANGE,
        SESSION_MS,
        REBALANCE_MS,
        "client",
        "/127.0.0.1",
        true,
        "conn-" + memberId,
        null);
  }

  CompletableFuture<JoinResult> join(ClassicRequests.Join request) {
    return classic().join(request);
  }

  /** A dynamic member's first join: MEMBER_ID_REQUIRED, then the join with the id. */
  CompletableFuture<JoinResult> joinNew(String connectionId) {
    JoinResult required = join(joinRequest("", null)).join();
    if (required.error() != org.apache.kafka.common.protocol.Errors.MEMBER_ID_REQUIRED) {
      throw new AssertionError("expected MEMBER_ID_REQUIRED, got " + required);
    }
    ClassicRequests.Join again = joinRequest(required.memberId(), null);
    return join(withConnection(again, connectionId));
  }

  static ClassicRequests.Join withConnection(ClassicRequests.Join r, String connectionId) {
    return new ClassicRequests.Join(
        r.groupId(),
        r.memberId(),
        r.groupInstanceId(),
        r.protocolType(),
        r.protocols(),
        r.sessionTimeoutMs(),
        r.rebalanceTimeoutMs(),
        r.clientId(),
        r.clientHost(),
        r.requireKnownMemberId(),
        connectionId,
        r.reason());
  }

  CompletableFuture<JoinResult> rejoin(JoinResult previous) {
    return join(joinRequest(previous.memberId(), null));
  }

  CompletableFuture<SyncResult> sync(
      String memberId, String instanceId, int generation, Map<String, byte[]> assignments) {
    return classic()
        .sync(
            new ClassicRequests.Sync(
                GROUP,
                memberId,
                instanceId,
                generation,
                "consumer",
                "range",
                assignments,
                "conn-" + memberId));
  }

  /** The leader's sync giving every member of {@code leaderResult} its id as assignment. */
  CompletableFuture<SyncResult> leaderSync(JoinResult leaderResult, String instanceId) {
    Map<String, byte[]> assignments = new java.util.HashMap<>();
    for (JoinResult.JoinedMember m : leaderResult.members()) {
      assignments.put(m.memberId(), assignmentFor(m.memberId()));
    }
    return sync(leaderResult.memberId(), instanceId, leaderResult.generationId(), assignments);
  }

  static byte[] assignmentFor(String memberId) {
    return ("a:" + memberId).getBytes(StandardCharsets.UTF_8);
  }

  org.apache.kafka.common.protocol.Errors heartbeat(
      String memberId, String instanceId, int generation) {
    return classic()
        .heartbeat(
            new ClassicRequests.Heartbeat(
                GROUP, memberId, instanceId, generation, "hb-" + memberId));
  }

  /** A fresh shard loaded from everything written so far. */
  GroupCoordinatorShard reloaded() {
    FakeShardContext fresh = new FakeShardContext(0, context.nowMs());
    GroupCoordinatorShard loaded = new GroupCoordinatorShard(fresh, config);
    fresh.attach(loaded);
    context.replayInto(loaded);
    return loaded;
  }
}
