package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A produce whose response was lost is retried by the idempotent producer with the same producer id
 * and sequence; the broker must answer with the original offsets and store it once.
 */
class IdempotentRetryIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  @Test
  void aRetriedBatchIsStoredOnceAndAnsweredWithItsOriginalOffset() throws Exception {
    // Given
    String topic = "retried";
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    short produceVersion = ApiKeys.PRODUCE.latestVersion();
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      ByteBuffer initBody =
          client.send(
              new InitProducerIdRequestData()
                  .setTransactionalId(null)
                  .setTransactionTimeoutMs(60_000)
                  .setProducerId(-1)
                  .setProducerEpoch((short) -1),
              (short) 4);
      InitProducerIdResponseData init =
          new InitProducerIdResponseData(new ByteBufferAccessor(initBody), (short) 4);
      assertThat(init.errorCode()).isEqualTo(Errors.NONE.code());

      // When: the same batch sent twice (the producer never saw the first answer)
      long[] baseOffsets = new long[2];
      for (int attempt = 0; attempt < 2; attempt++) {
        MemoryRecords batch =
            MemoryRecords.withIdempotentRecords(
                Compression.NONE,
                init.producerId(),
                init.producerEpoch(),
                0,
                new SimpleRecord("a".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord("b".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord("c".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData request =
            new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceData topicData =
            new ProduceRequestData.TopicProduceData().setName(topic);
        topicData.setTopicId(topicId(topic));
        topicData
            .partitionData()
            .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch));
        request.topicData().add(topicData);
        ByteBuffer body = client.send(request, produceVersion);
        ProduceResponseData response =
            new ProduceResponseData(new ByteBufferAccessor(body), produceVersion);
        ProduceResponseData.PartitionProduceResponse partition =
            response.responses().iterator().next().partitionResponses().get(0);
        assertThat(partition.errorCode()).isEqualTo(Errors.NONE.code());
        baseOffsets[attempt] = partition.baseOffset();
      }

      // Then
      assertThat(baseOffsets[1]).isEqualTo(baseOffsets[0]).isZero();
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
        long end =
            admin
                .listOffsets(Map.of(new TopicPartition(topic, 0), OffsetSpec.latest()))
                .all()
                .get()
                .get(new TopicPartition(topic, 0))
                .offset();
        assertThat(end).isEqualTo(3);
      }
    }
  }

  private static org.apache.kafka.common.Uuid topicId(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }
}
