package io.brook.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

class RecordJsonTest {
  static final Uuid ID = Uuid.fromString("MvDxzVmcRsaTz33bUuRU6A");

  /** One of every record type, with optional fields both present and absent. */
  static List<MetadataRecord> everyRecordType() {
    return List.of(
        new RegisterBrokerRecord(
            1,
            Uuid.fromString("r9Rxdwl_TvCmwAtTfRsMqg"),
            7,
            List.of(
                new BrokerEndpoint("PLAINTEXT", "h1", 9092, "PLAINTEXT"),
                new BrokerEndpoint("SSL", "h1", 9093, "SSL")),
            Optional.of("rack-a"),
            false),
        new RegisterBrokerRecord(2, ID, 8, List.of(), Optional.empty(), true),
        new UnregisterBrokerRecord(2, 8),
        new FenceBrokerRecord(1, 7),
        new UnfenceBrokerRecord(1, 7),
        new TopicRecord("orders", ID),
        new PartitionRecord(ID, 0, List.of(1, 2), List.of(1), 1, 3, 4),
        new PartitionChangeRecord(
            ID, 0, Optional.of(List.of(1, 2)), Optional.of(-1), Optional.empty()),
        new PartitionChangeRecord(
            ID, 0, Optional.empty(), Optional.empty(), Optional.of(List.of(2, 1))),
        new PartitionRecord(
            ID, 1, List.of(3, 1, 2), List.of(1, 2), 1, 0, 0, List.of(3), List.of(2)),
        new PartitionChangeRecord(
            ID,
            1,
            Optional.of(List.of(1)),
            Optional.empty(),
            Optional.of(List.of(3, 1, 2)),
            Optional.of(List.of(3)),
            Optional.of(List.of())),
        new ConfigRecord(ConfigResource.Type.TOPIC, "orders", "retention.ms", "1000"),
        new ConfigRecord(ConfigResource.Type.BROKER, "", "log.retention.ms", null),
        new ProducerIdsRecord(1, 7, Long.MAX_VALUE),
        new ClusterIdRecord("MkU3OEVBNTcwNTJENDM2Qk"),
        new UserScramCredentialRecord(
            "alice", (byte) 2, new byte[] {1, 2}, new byte[] {3, 4, 5}, new byte[] {6}, 8192),
        new RemoveUserScramCredentialRecord("alice", (byte) 2),
        new AccessControlEntryRecord(
            ID, (byte) 2, "orders", (byte) 4, "User:alice", "*", (byte) 3, (byte) 3),
        new RemoveAccessControlEntryRecord(ID),
        new ClientQuotaRecord(quotaEntity(), "producer_byte_rate", 1048576.5, false),
        ClientQuotaRecord.of(Map.of("client-id", "backfill"), "request_percentage", 0, true),
        new RemoveTopicRecord(ID));
  }

  /** A user's default client: the null name is the default entity. */
  private static java.util.SortedMap<String, String> quotaEntity() {
    java.util.SortedMap<String, String> entity = new java.util.TreeMap<>();
    entity.put("user", "alice");
    entity.put("client-id", null);
    return entity;
  }

  @Test
  void everyRecordTypeRoundTrips() throws Exception {
    // Given
    List<MetadataRecord> records = everyRecordType();

    // When
    byte[] bytes = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(records));
    List<MetadataRecord> decoded = RecordJson.listFromJson(RecordJson.MAPPER.readTree(bytes));

    // Then
    assertThat(decoded).isEqualTo(records);
  }

  @Test
  void formatIsExplicitAndStable() throws Exception {
    // Given
    MetadataRecord record = new PartitionChangeRecord(ID, 3, Optional.empty(), Optional.of(2));

    // When
    String json = RecordJson.MAPPER.writeValueAsString(RecordJson.toJson(record));

    // Then
    assertThat(json)
        .isEqualTo(
            "{\"type\":\"PartitionChangeRecord\",\"topicId\":\"MvDxzVmcRsaTz33bUuRU6A\","
                + "\"partitionId\":3,\"isr\":null,\"leader\":2,\"replicas\":null}");
  }

  @Test
  void reassignmentFieldsAreWrittenOnlyWhenSetAndReadAsEmptyWhenAbsent() throws Exception {
    // Given the forms written before reassignment existed
    String partition =
        "{\"type\":\"PartitionRecord\",\"topicId\":\"MvDxzVmcRsaTz33bUuRU6A\",\"partitionId\":0,"
            + "\"replicas\":[1,2],\"isr\":[1],\"leader\":1,\"leaderEpoch\":3,\"partitionEpoch\":4}";
    String change =
        "{\"type\":\"PartitionChangeRecord\",\"topicId\":\"MvDxzVmcRsaTz33bUuRU6A\","
            + "\"partitionId\":0,\"isr\":null,\"leader\":2,\"replicas\":[2,1]}";

    // When
    MetadataRecord oldPartition = RecordJson.fromJson(RecordJson.MAPPER.readTree(partition));
    MetadataRecord oldChange = RecordJson.fromJson(RecordJson.MAPPER.readTree(change));

    // Then absent means empty (a partition) or unchanged (a change), and re-encoding is identical
    assertThat(oldPartition)
        .isEqualTo(new PartitionRecord(ID, 0, List.of(1, 2), List.of(1), 1, 3, 4));
    assertThat(oldChange)
        .isEqualTo(
            new PartitionChangeRecord(
                ID, 0, Optional.empty(), Optional.of(2), Optional.of(List.of(2, 1))));
    assertThat(RecordJson.MAPPER.writeValueAsString(RecordJson.toJson(oldPartition)))
        .isEqualTo(partition);
    assertThat(RecordJson.MAPPER.writeValueAsString(RecordJson.toJson(oldChange)))
        .isEqualTo(change);
    String moving =
        RecordJson.MAPPER.writeValueAsString(
            RecordJson.toJson(
                new PartitionRecord(
                    ID, 0, List.of(3, 1), List.of(1), 1, 0, 0, List.of(3), List.of(1))));
    assertThat(moving).contains("\"addingReplicas\":[3]", "\"removingReplicas\":[1]");
  }

  @Test
  void unknownExtraFieldsAreIgnored() throws Exception {
    // Given
    JsonNode node =
        RecordJson.MAPPER.readTree(
            "{\"type\":\"RemoveTopicRecord\",\"topicId\":\"MvDxzVmcRsaTz33bUuRU6A\",\"new\":1}");

    // When
    MetadataRecord record = RecordJson.fromJson(node);

    // Then
    assertThat(record).isEqualTo(new RemoveTopicRecord(ID));
  }

  @Test
  void strictDecoding() {
    for (String json :
        List.of(
            "{\"type\":\"Nope\"}",
            "{\"topicId\":\"MvDxzVmcRsaTz33bUuRU6A\"}",
            "{\"type\":\"RemoveTopicRecord\"}",
            "{\"type\":\"RemoveTopicRecord\",\"topicId\":\"not a uuid\"}",
            "{\"type\":\"FenceBrokerRecord\",\"brokerId\":\"1\",\"brokerEpoch\":1}",
            "{\"type\":\"FenceBrokerRecord\",\"brokerId\":4294967296,\"brokerEpoch\":1}",
            "{\"type\":\"ConfigRecord\",\"resourceType\":\"NOPE\",\"resourceName\":\"\","
                + "\"name\":\"a\",\"value\":null}",
            "[]")) {
      // When / Then
      assertThatThrownBy(() -> RecordJson.fromJson(RecordJson.MAPPER.readTree(json)))
          .as(json)
          .isInstanceOf(RecordJson.RecordFormatException.class);
    }
  }
}
