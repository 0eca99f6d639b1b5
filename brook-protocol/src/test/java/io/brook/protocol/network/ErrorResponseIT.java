package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** A failing handler is answered with the API's generic error response. */
class ErrorResponseIT {

  @Test
  void exceptionalCompletionGivesEveryPartitionTheErrorCode() throws Exception {
    // Given
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.failing(ApiKeys.PRODUCE, () -> new NotLeaderOrFollowerException("x")));
    short version = 9;
    ProduceRequestData request = produceRequest((short) -1);

    try (TestServer server = TestServer.start(registry);
        WireClient client = server.connect()) {
      // When
      ProduceResponseData response =
          client.roundTrip(request, version).as(ProduceResponseData.class);

      // Then
      assertThat(response.responses()).hasSize(1);
      assertThat(response.responses().iterator().next().partitionResponses())
          .extracting(PartitionProduceResponse::index, p -> Errors.forCode(p.errorCode()))
          .containsExactly(
              tuple(0, Errors.NOT_LEADER_OR_FOLLOWER), tuple(1, Errors.NOT_LEADER_OR_FOLLOWER));
      server.assertStillServes();
    }
  }

  @Test
  void handlerThrowingGivesUnknownServerError() throws Exception {
    // Given
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.throwing(
                ApiKeys.LIST_GROUPS, () -> new IllegalStateException("bug in handler")));

    try (TestServer server = TestServer.start(registry);
        WireClient client = server.connect()) {
      // When
      ListGroupsResponseData response =
          client.roundTrip(new ListGroupsRequestData(), (short) 4).as(ListGroupsResponseData.class);

      // Then
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
    }
  }

  @Test
  void handlerAnsweringWithAnotherApisResponseGivesUnknownServerError() throws Exception {
    // Given
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.answering(ApiKeys.DESCRIBE_CLUSTER, (c, r) -> new MetadataResponseData()));

    try (TestServer server = TestServer.start(registry);
        WireClient client = server.connect()) {
      // When
      DescribeClusterResponseData response =
          client
              .roundTrip(new DescribeClusterRequestData(), (short) 1)
              .as(DescribeClusterResponseData.class);

      // Then
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
    }
  }

  @Test
  void aFailedRequestThatTakesNoResponseClosesTheConnection() throws Exception {
    // Given: Produce with acks=0 gets no response, not even an error one
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.failing(ApiKeys.PRODUCE, () -> new NotLeaderOrFollowerException("x")));

    try (TestServer server = TestServer.start(registry);
        WireClient client = server.connect()) {
      // When
      client.send(produceRequest((short) 0), (short) 9);

      // Then: closing is the only way to tell the client (as Kafka does)
      client.assertClosedByServer();
      server.assertStillServes();
    }
  }

  @Test
  void aRequestAnsweredWithNullGetsNoResponse() throws Exception {
    // Given
    ApiRegistry registry = ApiRegistry.of(TestHandlers.answering(ApiKeys.PRODUCE, (c, r) -> null));

    try (TestServer server = TestServer.start(registry);
        WireClient client = server.connect()) {
      // When
      client.send(produceRequest((short) 0), (short) 9);

      // Then: the next response on the connection is the next request's
      WireClient.Response next = client.roundTrip(new ApiVersionsRequestData(), (short) 0);
      assertThat(next.correlationId()).isEqualTo(2);
    }
  }

  private static ProduceRequestData produceRequest(short acks) {
    return new ProduceRequestData()
        .setAcks(acks)
        .setTimeoutMs(1000)
        .setTopicData(
            new TopicProduceDataCollection(
                List.of(
                        new TopicProduceData()
                            .setName("orders")
                            .setPartitionData(List.of(partition(0), partition(1))))
                    .iterator()));
  }

  private static PartitionProduceData partition(int index) {
    return new PartitionProduceData()
        .setIndex(index)
        .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes())));
  }
}
