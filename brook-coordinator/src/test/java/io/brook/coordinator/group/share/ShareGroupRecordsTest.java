package io.brook.coordinator.group.share;

import static io.brook.coordinator.testing.KafkaRecords.assertKafkaBytes;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsKey;
import static io.brook.coordinator.testing.KafkaRecords.assertKafkaReadsValue;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.List;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataValue;
import org.junit.jupiter.api.Test;

/** Share group records are Kafka's bytes, both ways. */
class ShareGroupRecordsTest {
  private static final short V0 = 0;
  private static final ShareGroupMember MEMBER =
      new ShareGroupMember("m", 3, "rack-a", "client", "/10.0.0.1", List.of("b", "a"));

  @Test
  void groupEpochIsKafkasRecord() {
    CoordinatorRecord brook = ShareGroupRecords.groupEpoch("g", 7);
    ShareGroupMetadataKey key = new ShareGroupMetadataKey().setGroupId("g");
    ShareGroupMetadataValue value = new ShareGroupMetadataValue().setEpoch(7);

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsKey(brook, ShareGroupMetadataKey::new, key);
    assertKafkaReadsValue(brook, ShareGroupMetadataValue::new, value);
    assertThat(brook.type()).isEqualTo(ShareGroupRecords.GROUP_METADATA);
    assertThat(ShareGroupRecords.readKey(brook)).isEqualTo(new ShareGroupRecords.Key("g", null));
    assertThat(ShareGroupRecords.readEpoch(brook)).isEqualTo(7);
  }

  @Test
  void memberIsKafkasRecord() {
    CoordinatorRecord brook = ShareGroupRecords.member("g", MEMBER);
    ShareGroupMemberMetadataKey key =
        new ShareGroupMemberMetadataKey().setGroupId("g").setMemberId("m");
    ShareGroupMemberMetadataValue value =
        new ShareGroupMemberMetadataValue()
            .setRackId("rack-a")
            .setClientId("client")
            .setClientHost("/10.0.0.1")
            .setSubscribedTopicNames(List.of("b", "a"));

    assertKafkaBytes(brook, key, V0, value);
    assertKafkaReadsValue(brook, ShareGroupMemberMetadataValue::new, value);
    assertThat(brook.type()).isEqualTo(ShareGroupRecords.MEMBER_METADATA);
    assertThat(ShareGroupRecords.readKey(brook)).isEqualTo(new ShareGroupRecords.Key("g", "m"));
    assertThat(ShareGroupRecords.readMember("m", brook)).isEqualTo(MEMBER.withEpoch(0));
  }

  @Test
  void tombstonesHaveKafkasKeys() {
    assertThat(ShareGroupRecords.memberTombstone("g", "m").isTombstone()).isTrue();
    assertThat(ShareGroupRecords.readKey(ShareGroupRecords.memberTombstone("g", "m")))
        .isEqualTo(new ShareGroupRecords.Key("g", "m"));
    assertThat(ShareGroupRecords.readKey(ShareGroupRecords.groupTombstone("g")))
        .isEqualTo(new ShareGroupRecords.Key("g", null));
  }
}
