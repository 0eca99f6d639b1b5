package io.brook.tests.groups.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ConsumerGroupHeartbeat and ConsumerGroupDescribe on the wire, every version kafka-clients knows:
 * good requests work, bad ones get Kafka's error codes, and other groups are not disturbed.
 */
class ConsumerGroupWireIT {
  private static final String TOPIC = "wire-orders";

  @TempDir Path dataDir;
  private EmbeddedBrook brook;
  private RawKafkaClient raw;

  @BeforeEach
  void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "2")
            .start();
    TestClients.createTopic(brook.bootstrapServers(), TOPIC, 4);
    raw = new RawKafkaClient("127.0.0.1", brook.port());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                findCoordinator("warmup") == Errors.NONE && findCoordinator("good") == Errors.NONE);
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    brook.close();
  }

  private Errors findCoordinator(String group) throws Exception {
    short version = 4;
    FindCoordinatorRequestData request =
        new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of(group));
    FindCoordinatorResponseData response =
        new FindCoordinatorResponseData(
            new ByteBufferAccessor(raw.send(request, version)), version);
    return Errors.forCode(response.coordinators().get(0).errorCode());
  }

  private ConsumerGroupHeartbeatResponseData heartbeat(
      ConsumerGroupHeartbeatRequestData request, short version) throws Exception {
    ByteBuffer body = raw.send(request, version);
    return new ConsumerGroupHeartbeatResponseData(new ByteBufferAccessor(body), version);
  }

  /** Sends until the coordinator has loaded (the first requests may find it loading). */
  private ConsumerGroupHeartbeatResponseData heartbeatLoaded(
      ConsumerGroupHeartbeatRequestData request, short version) {
    List<ConsumerGroupHeartbeatResponseData> last = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              ConsumerGroupHeartbeatResponseData r = heartbeat(request, version);
              last.add(0, r);
              Errors e = Errors.forCode(r.errorCode());
              return e != Errors.COORDINATOR_LOAD_IN_PROGRESS
                  && e != Errors.COORDINATOR_NOT_AVAILABLE;
            });
    return last.get(0);
  }

  private static ConsumerGroupHeartbeatRequestData join(String group, String memberId) {
    return new ConsumerGroupHeartbeatRequestData()
        .setGroupId(group)
        .setMemberId(memberId)
        .setMemberEpoch(0)
        .setRebalanceTimeoutMs(60_000)
        .setSubscribedTopicNames(List.of(TOPIC))
        .setTopicPartitions(new ArrayList<>());
  }

  private static Errors error(ConsumerGroupHeartbeatResponseData response) {
    return Errors.forCode(response.errorCode());
  }

  @Test
  void everyVersionJoinsHeartbeatsAndLeaves() throws Exception {
    for (short version = ApiKeys.CONSUMER_GROUP_HEARTBEAT.oldestVersion();
        version <= ApiKeys.CONSUMER_GROUP_HEARTBEAT.latestVersion();
        version++) {
      String group = "versions-" + version;
      // v0 lets the coordinator pick the member id; v1 clients bring their own.
      String memberId = version == 0 ? "" : "member-v" + version;
      ConsumerGroupHeartbeatResponseData joined = heartbeatLoaded(join(group, memberId), version);
      assertThat(error(joined)).as("v%d join", version).isEqualTo(Errors.NONE);
      assertThat(joined.memberId()).isNotEmpty();
      assertThat(joined.memberEpoch()).isEqualTo(1);
      assertThat(joined.assignment().topicPartitions().get(0).partitions()).hasSize(4);

      ConsumerGroupHeartbeatResponseData beat =
          heartbeat(
              new ConsumerGroupHeartbeatRequestData()
                  .setGroupId(group)
                  .setMemberId(joined.memberId())
                  .setMemberEpoch(1),
              version);
      assertThat(error(beat)).isEqualTo(Errors.NONE);
      assertThat(beat.heartbeatIntervalMs()).isEqualTo(5000);

      ConsumerGroupHeartbeatResponseData left =
          heartbeat(
              new ConsumerGroupHeartbeatRequestData()
                  .setGroupId(group)
                  .setMemberId(joined.memberId())
                  .setMemberEpoch(-1),
              version);
      assertThat(error(left)).isEqualTo(Errors.NONE);
      assertThat(left.memberEpoch()).isEqualTo(-1);
    }
  }

  @Test
  void badRequestsGetKafkasErrorsAndOtherGroupsKeepWorking() throws Exception {
    short v1 = 1;
    ConsumerGroupHeartbeatResponseData good = heartbeatLoaded(join("good", "good-1"), v1);
    assertThat(error(good)).isEqualTo(Errors.NONE);

    assertThat(error(heartbeat(join("bad", ""), v1))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(heartbeat(join("", "m"), v1))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(heartbeat(join("bad", "m").setRebalanceTimeoutMs(-1), v1)))
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(heartbeat(join("bad", "m").setServerAssignor("cooperative"), v1)))
        .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
    assertThat(
            error(
                heartbeat(
                    join("bad", "m").setSubscribedTopicNames(null).setSubscribedTopicRegex("[a-"),
                    v1)))
        .isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
    List<String> huge = Collections.nCopies(20_000, "t".repeat(60));
    assertThat(error(heartbeat(join("bad", "m").setSubscribedTopicNames(huge), v1)))
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(heartbeat(join("good", "good-1").setMemberEpoch(7), v1)))
        .isEqualTo(Errors.FENCED_MEMBER_EPOCH);
    assertThat(error(heartbeat(join("good", "stranger").setMemberEpoch(3), v1)))
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    assertThat(error(heartbeat(join("nobody", "m").setMemberEpoch(3), v1)))
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    assertThat(error(heartbeat(join("good", "good-1").setInstanceId("").setMemberEpoch(1), v1)))
        .isEqualTo(Errors.INVALID_REQUEST);

    // Commits must carry the current member epoch.
    assertThat(commit("good", "good-1", 0)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
    assertThat(commit("good", "stranger", 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    assertThat(commit("good", "good-1", 1)).isEqualTo(Errors.NONE);

    // The good group is untouched.
    ConsumerGroupHeartbeatResponseData still =
        heartbeat(
            new ConsumerGroupHeartbeatRequestData()
                .setGroupId("good")
                .setMemberId("good-1")
                .setMemberEpoch(1),
            v1);
    assertThat(error(still)).isEqualTo(Errors.NONE);
    assertThat(still.memberEpoch()).isEqualTo(1);
  }

  private Errors commit(String group, String memberId, int epoch) throws Exception {
    short version = 9;
    OffsetCommitRequestData request =
        new OffsetCommitRequestData()
            .setGroupId(group)
            .setMemberId(memberId)
            .setGenerationIdOrMemberEpoch(epoch);
    request
        .topics()
        .add(
            new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(TOPIC)
                .setPartitions(
                    List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(0)
                            .setCommittedOffset(0))));
    OffsetCommitResponseData response =
        new OffsetCommitResponseData(new ByteBufferAccessor(raw.send(request, version)), version);
    return Errors.forCode(response.topics().get(0).partitions().get(0).errorCode());
  }

  @Test
  void describeAnswersEveryVersionForMembersMissingAndInvalidGroups() throws Exception {
    ConsumerGroupHeartbeatResponseData joined =
        heartbeatLoaded(join("described", "d-1"), (short) 1);
    assertThat(error(joined)).isEqualTo(Errors.NONE);
    for (short version = ApiKeys.CONSUMER_GROUP_DESCRIBE.oldestVersion();
        version <= ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion();
        version++) {
      ConsumerGroupDescribeRequestData request =
          new ConsumerGroupDescribeRequestData().setGroupIds(List.of("described", "missing", ""));
      ConsumerGroupDescribeResponseData response =
          new ConsumerGroupDescribeResponseData(
              new ByteBufferAccessor(raw.send(request, version)), version);
      List<ConsumerGroupDescribeResponseData.DescribedGroup> groups = response.groups();
      assertThat(groups).hasSize(3);
      assertThat(groups.get(0).errorCode()).isZero();
      assertThat(groups.get(0).groupState()).isEqualTo("Stable");
      assertThat(groups.get(0).assignorName()).isEqualTo("uniform");
      assertThat(groups.get(0).members()).hasSize(1);
      assertThat(groups.get(0).members().get(0).assignment().topicPartitions().get(0).topicName())
          .isEqualTo(TOPIC);
      assertThat(groups.get(1).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
      assertThat(groups.get(2).errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
    }
  }
}
