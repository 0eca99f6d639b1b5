package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** DescribeTopicPartitions over a real image: ELR fields, errors and the pagination cursor. */
class DescribeTopicPartitionsHandlerTest {
  /** Topic "a" with 3 partitions (partition 1 leaderless, ELR [2], last known leader 1), "b" 2. */
  private static MetadataImage image() {
    List<MetadataRecord> records = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      records.add(
          new RegisterBrokerRecord(
              id,
              Uuid.randomUuid(),
              id,
              List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9090 + id, "PLAINTEXT")),
              Optional.empty(),
              id == 1));
    }
    Uuid a = Uuid.randomUuid();
    Uuid b = Uuid.randomUuid();
    records.add(new TopicRecord("a", a));
    records.add(new PartitionRecord(a, 0, List.of(2, 3), List.of(2, 3), 2, 0, 0));
    records.add(
        new PartitionRecord(
            a,
            1,
            List.of(1, 2, 3),
            List.of(),
            -1,
            3,
            5,
            List.of(),
            List.of(),
            List.of(2),
            List.of(1)));
    records.add(new PartitionRecord(a, 2, List.of(3), List.of(3), 3, 0, 0));
    records.add(new TopicRecord("b", b));
    records.add(new PartitionRecord(b, 0, List.of(2), List.of(2), 2, 0, 0));
    records.add(new PartitionRecord(b, 1, List.of(3), List.of(3), 3, 0, 0));
    return MetadataImage.EMPTY.apply(records, records.size());
  }

  private static DescribeTopicPartitionsRequestData request(int limit, String... topics) {
    DescribeTopicPartitionsRequestData request =
        new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(limit);
    for (String topic : topics) {
      request.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName(topic));
    }
    return request;
  }

  @Test
  void aPartitionShowsItsElrLastKnownElrAndOfflineReplicas() {
    // When
    DescribeTopicPartitionsResponseData response =
        DescribeTopicPartitionsHandler.describe(image(), request(100, "a"));

    // Then
    DescribeTopicPartitionsResponsePartition p = response.topics().find("a").partitions().get(1);
    assertThat(p.errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
    assertThat(p.leaderId()).isEqualTo(-1);
    assertThat(p.isrNodes()).isEmpty();
    assertThat(p.eligibleLeaderReplicas()).containsExactly(2);
    assertThat(p.lastKnownElr()).containsExactly(1);
    assertThat(p.offlineReplicas()).containsExactly(1);
    assertThat(response.nextCursor()).isNull();
  }

  @Test
  void theCursorWalksEveryPartitionOfEveryTopicInNameOrder() {
    // Given every topic, two partitions per response
    List<String> seen = new ArrayList<>();
    DescribeTopicPartitionsRequestData request = request(2);
    int responses = 0;

    // When following the cursor to the end
    while (true) {
      DescribeTopicPartitionsResponseData response =
          DescribeTopicPartitionsHandler.describe(image(), request);
      responses++;
      for (DescribeTopicPartitionsResponseTopic topic : response.topics()) {
        for (DescribeTopicPartitionsResponsePartition p : topic.partitions()) {
          seen.add(topic.name() + "-" + p.partitionIndex());
        }
      }
      if (response.nextCursor() == null) {
        break;
      }
      request.setCursor(
          new DescribeTopicPartitionsRequestData.Cursor()
              .setTopicName(response.nextCursor().topicName())
              .setPartitionIndex(response.nextCursor().partitionIndex()));
    }

    // Then
    assertThat(seen).containsExactly("a-0", "a-1", "a-2", "b-0", "b-1");
    assertThat(responses).isEqualTo(3);
  }

  @Test
  void anUnknownTopicIsAnErrorAndCostsNoPartitions() {
    // When
    DescribeTopicPartitionsResponseData response =
        DescribeTopicPartitionsHandler.describe(image(), request(1, "b", "aa"));

    // Then
    assertThat(response.topics().find("b").partitions()).hasSize(1);
    assertThat(response.nextCursor().topicName()).isEqualTo("b");
    assertThat(response.nextCursor().partitionIndex()).isEqualTo(1);
    assertThat(response.topics().find("aa").errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }
}
