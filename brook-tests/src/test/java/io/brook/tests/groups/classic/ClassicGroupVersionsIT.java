package io.brook.tests.groups.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every version of the classic group APIs on the wire, and bad input answered with Kafka's error
 * codes while other groups keep working.
 */
class ClassicGroupVersionsIT {
  private EmbeddedBrook brook;
  private RawKafkaClient raw;

  @BeforeEach
  void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .config("offsets.topic.num.partitions", "1")
            .config("group.initial.rebalance.delay.ms", "0")
            .start();
    raw = new RawKafkaClient("127.0.0.1", brook.port());
    // The first FindCoordinator creates __consumer_offsets; wait until it is served.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              FindCoordinatorResponseData r =
                  new FindCoordinatorResponseData(
                      new ByteBufferAccessor(
                          raw.send(new FindCoordinatorRequestData().setKey("g"), (short) 0)),
                      (short) 0);
              return r.errorCode() == Errors.NONE.code();
            });
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    brook.close();
  }

  private JoinGroupResponseData join(JoinGroupRequestData request, short version) throws Exception {
    ByteBuffer body = raw.send(request, version);
    return new JoinGroupResponseData(new ByteBufferAccessor(body), version);
  }

  private static JoinGroupRequestData joinRequest(
      String group, String memberId, int metadataBytes) {
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    protocols.add(
        new JoinGroupRequestData.JoinGroupRequestProtocol()
            .setName("range")
            .setMetadata(new byte[metadataBytes]));
    return new JoinGroupRequestData()
        .setGroupId(group)
        .setMemberId(memberId)
        .setProtocolType("consumer")
        .setSessionTimeoutMs(10_000)
        .setRebalanceTimeoutMs(10_000)
        .setProtocols(protocols);
  }

  /** Joins a new group alone at {@code version}; returns the member's generation answer. */
  private JoinGroupResponseData joinAlone(String group, short version) throws Exception {
    JoinGroupResponseData first = join(joinRequest(group, "", 8), version);
    if (version >= 4) {
      assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
      first = join(joinRequest(group, first.memberId(), 8), version);
    }
    assertThat(Errors.forCode(first.errorCode()))
        .as("JoinGroup v%d", version)
        .isEqualTo(Errors.NONE);
    return first;
  }

  @Test
  void everyJoinGroupVersionFormsAGroup() throws Exception {
    for (short v = 0; v <= ApiKeys.JOIN_GROUP.latestVersion(); v++) {
      JoinGroupResponseData joined = joinAlone("join-v" + v, v);
      assertThat(joined.generationId()).isEqualTo(1);
      assertThat(joined.leader()).isEqualTo(joined.memberId());
      assertThat(joined.members()).hasSize(1);
      assertThat(joined.protocolName()).isEqualTo("range");
    }
  }

  @Test
  void everySyncHeartbeatLeaveAndDescribeVersionAnswers() throws Exception {
    for (short v = 0; v <= ApiKeys.SYNC_GROUP.latestVersion(); v++) {
      String group = "sync-v" + v;
      JoinGroupResponseData joined = joinAlone(group, ApiKeys.JOIN_GROUP.latestVersion());
      SyncGroupRequestData sync =
          new SyncGroupRequestData()
              .setGroupId(group)
              .setMemberId(joined.memberId())
              .setGenerationId(joined.generationId())
              .setAssignments(
                  List.of(
                      new SyncGroupRequestData.SyncGroupRequestAssignment()
                          .setMemberId(joined.memberId())
                          .setAssignment(new byte[] {7})));
      if (v >= 5) {
        sync.setProtocolType("consumer").setProtocolName("range");
      }
      SyncGroupResponseData synced =
          new SyncGroupResponseData(new ByteBufferAccessor(raw.send(sync, v)), v);
      assertThat(Errors.forCode(synced.errorCode())).as("SyncGroup v%d", v).isEqualTo(Errors.NONE);
      assertThat(synced.assignment()).containsExactly(7);
    }
    JoinGroupResponseData joined = joinAlone("hb", ApiKeys.JOIN_GROUP.latestVersion());
    for (short v = 0; v <= ApiKeys.HEARTBEAT.latestVersion(); v++) {
      HeartbeatRequestData hb =
          new HeartbeatRequestData()
              .setGroupId("hb")
              .setMemberId(joined.memberId())
              .setGenerationId(joined.generationId());
      HeartbeatResponseData r =
          new HeartbeatResponseData(new ByteBufferAccessor(raw.send(hb, v)), v);
      // CompletingRebalance: heartbeats are fine before the SyncGroup
      assertThat(Errors.forCode(r.errorCode())).as("Heartbeat v%d", v).isEqualTo(Errors.NONE);
    }
    for (short v = 0; v <= ApiKeys.DESCRIBE_GROUPS.latestVersion(); v++) {
      DescribeGroupsRequestData describe =
          new DescribeGroupsRequestData().setGroups(List.of("hb", "no-such-group"));
      DescribeGroupsResponseData r =
          new DescribeGroupsResponseData(new ByteBufferAccessor(raw.send(describe, v)), v);
      assertThat(r.groups().get(0).groupState()).isEqualTo("CompletingRebalance");
      assertThat(r.groups().get(0).members()).hasSize(1);
      assertThat(r.groups().get(1).groupState()).isEqualTo("Dead");
      assertThat(Errors.forCode(r.groups().get(1).errorCode()))
          .isEqualTo(v >= 6 ? Errors.GROUP_ID_NOT_FOUND : Errors.NONE);
    }
    for (short v = 0; v <= ApiKeys.LEAVE_GROUP.latestVersion(); v++) {
      String group = "leave-v" + v;
      JoinGroupResponseData member = joinAlone(group, ApiKeys.JOIN_GROUP.latestVersion());
      LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId(group);
      if (v < 3) {
        leave.setMemberId(member.memberId());
      } else {
        leave.setMembers(
            List.of(
                new LeaveGroupRequestData.MemberIdentity().setMemberId(member.memberId()),
                new LeaveGroupRequestData.MemberIdentity().setMemberId("ghost")));
      }
      LeaveGroupResponseData r =
          new LeaveGroupResponseData(new ByteBufferAccessor(raw.send(leave, v)), v);
      assertThat(Errors.forCode(r.errorCode())).as("LeaveGroup v%d", v).isEqualTo(Errors.NONE);
      if (v >= 3) {
        assertThat(r.members())
            .extracting(m -> Errors.forCode(m.errorCode()))
            .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID);
      }
    }
  }

  @Test
  void badInputGetsKafkaErrorsAndOtherGroupsKeepWorking() throws Exception {
    short v = ApiKeys.JOIN_GROUP.latestVersion();
    JoinGroupResponseData healthy = joinAlone("healthy", v);
    assertThat(Errors.forCode(join(joinRequest("", "", 8), v).errorCode()))
        .isEqualTo(Errors.INVALID_GROUP_ID);
    assertThat(Errors.forCode(join(joinRequest("bad", "nobody", 8), v).errorCode()))
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    assertThat(
            Errors.forCode(join(joinRequest("bad", "", 8).setSessionTimeoutMs(1), v).errorCode()))
        .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
    assertThat(Errors.forCode(join(joinRequest("bad", "", 2 * 1024 * 1024), v).errorCode()))
        .isEqualTo(Errors.INVALID_REQUEST);
    HeartbeatRequestData stale =
        new HeartbeatRequestData()
            .setGroupId("healthy")
            .setMemberId(healthy.memberId())
            .setGenerationId(healthy.generationId() - 1);
    short hv = ApiKeys.HEARTBEAT.latestVersion();
    assertThat(
            Errors.forCode(
                new HeartbeatResponseData(new ByteBufferAccessor(raw.send(stale, hv)), hv)
                    .errorCode()))
        .isEqualTo(Errors.ILLEGAL_GENERATION);
    // The healthy group still works
    HeartbeatRequestData ok = stale.duplicate().setGenerationId(healthy.generationId());
    assertThat(
            Errors.forCode(
                new HeartbeatResponseData(new ByteBufferAccessor(raw.send(ok, hv)), hv)
                    .errorCode()))
        .isEqualTo(Errors.NONE);
  }
}
