package io.brook.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.junit.jupiter.api.Test;

/** The admin-style OffsetCommit the HTTP API and the console's offset reset both send. */
class KafkaRequestsTest {

  @Test
  void anAdminOffsetCommitComesFromOutsideTheGroupWithItsOffsetsByTopic() {
    // Given
    KafkaRequests.AdminOffsetCommit commit =
        KafkaRequests.adminOffsetCommit("billing")
            .add("orders", 1, 40, "m")
            .add("payments", 0, 7, "")
            .add("orders", 0, 12, null);

    // When
    OffsetCommitRequestData request = commit.request();

    // Then: generation -1 and no member id, as a client outside the group commits
    assertThat(request.groupId()).isEqualTo("billing");
    assertThat(request.generationIdOrMemberEpoch()).isEqualTo(-1);
    assertThat(request.memberId()).isEmpty();
    assertThat(request.groupInstanceId()).isNull();
    assertThat(request.topics())
        .extracting(OffsetCommitRequestData.OffsetCommitRequestTopic::name)
        .containsExactly("orders", "payments");
    OffsetCommitRequestData.OffsetCommitRequestTopic orders = request.topics().get(0);
    assertThat(orders.partitions())
        .extracting(
            OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex,
            OffsetCommitRequestData.OffsetCommitRequestPartition::committedOffset,
            OffsetCommitRequestData.OffsetCommitRequestPartition::committedLeaderEpoch,
            OffsetCommitRequestData.OffsetCommitRequestPartition::committedMetadata)
        .containsExactly(tuple(1, 40L, -1, "m"), tuple(0, 12L, -1, null));
    assertThat(orders.topicId()).isEqualTo(Uuid.ZERO_UUID);
  }

  @Test
  void everyRequestIsNewSoAHandlerTrimmingOneLeavesTheNextWhole() {
    // Given
    KafkaRequests.AdminOffsetCommit commit =
        KafkaRequests.adminOffsetCommit("billing").add("orders", 0, 1, "").add("orders", 1, 2, "");

    // When a handler drops a denied partition and a topic from its copy
    OffsetCommitRequestData first = commit.request();
    first.topics().get(0).partitions().remove(1);
    first.topics().clear();

    // Then
    OffsetCommitRequestData second = commit.request();
    assertThat(second).isNotSameAs(first);
    assertThat(second.topics()).hasSize(1);
    assertThat(second.topics().get(0).partitions()).hasSize(2);
  }

  @Test
  void theForwardedRequestNamesTheTopicsIdsToo() {
    // Given
    Uuid orders = Uuid.randomUuid();
    Uuid payments = Uuid.randomUuid();
    KafkaRequests.AdminOffsetCommit commit =
        KafkaRequests.adminOffsetCommit("billing")
            .add("orders", 0, 1, "")
            .add("payments", 0, 2, "");

    // When
    OffsetCommitRequestData forwarded =
        commit.request(Map.of("orders", orders, "payments", payments)::get);

    // Then: ids for a coordinator that takes them, names for one that does not
    assertThat(forwarded.topics())
        .extracting(
            OffsetCommitRequestData.OffsetCommitRequestTopic::name,
            OffsetCommitRequestData.OffsetCommitRequestTopic::topicId)
        .containsExactly(tuple("orders", orders), tuple("payments", payments));
    assertThat(commit.request().topics().get(0).topicId()).isEqualTo(Uuid.ZERO_UUID);
  }
}
