package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.codec.ReadGate;
import io.brook.protocol.codec.RequestParser;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.WireClient;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The connection handler on an embedded channel: backpressure, idleness, drain. */
class ConnectionHandlerTest {
  private static final short VERSION = 1;

  private final HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
  private final ApiRegistry registry = ApiRegistry.of(held);
  private final RequestParser parser = new RequestParser(registry);
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final ConnectionHandler handler =
      new ConnectionHandler(
          registry,
          "PLAINTEXT",
          "test-0",
          InetAddress.getLoopbackAddress(),
          2,
          Long.MAX_VALUE,
          new ReadGate(channel));

  ConnectionHandlerTest() {
    channel.pipeline().addLast(handler);
  }

  private int nextCorrelationId = 1;

  @AfterEach
  void release() {
    channel.finishAndReleaseAll();
  }

  @Test
  void stopsReadingAtQueuedMaxRequestsAndResumesWhenOneIsAnswered() {
    // Given
    receiveRequest();
    assertThat(channel.config().isAutoRead()).isTrue();

    // When: the second request reaches queued.max.requests = 2
    receiveRequest();

    // Then
    assertThat(channel.config().isAutoRead()).isFalse();

    // And when the first is answered
    held.awaitHeld(2).get(0).response().complete(new DescribeClusterResponseData());
    assertThat(channel.config().isAutoRead()).isTrue();
    assertThat(sentCorrelationIds()).containsExactly(1);
  }

  @Test
  void idlenessClosesOnlyAConnectionWithNothingInFlight() {
    // Given
    receiveRequest();

    // When
    channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);

    // Then
    assertThat(channel.isOpen()).isTrue();

    // And when answered and idle again
    held.awaitHeld(1).get(0).response().complete(new DescribeClusterResponseData());
    channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void drainingStopsReadingAndCompletesAfterTheLastResponse() {
    // Given
    receiveRequest();

    // When
    CompletableFuture<Void> drained = handler.drain();

    // Then
    assertThat(channel.config().isAutoRead()).isFalse();
    assertThat(drained).isNotDone();
    held.awaitHeld(1).get(0).response().complete(new DescribeClusterResponseData());
    channel.runPendingTasks();
    assertThat(drained).isDone();
    assertThat(sentCorrelationIds()).containsExactly(1);
  }

  @Test
  void aCompletionAfterCloseIsDropped() {
    // Given
    receiveRequest();
    channel.close();

    // When
    held.awaitHeld(1).get(0).response().complete(new DescribeClusterResponseData());

    // Then
    assertThat(sentCorrelationIds()).isEmpty();
  }

  private void receiveRequest() {
    byte[] frame =
        WireClient.encodeRequest(
            new DescribeClusterRequestData(), VERSION, nextCorrelationId++, "c");
    channel.writeInbound(
        parser.parse(ByteBuffer.wrap(Arrays.copyOfRange(frame, 4, frame.length)), 0));
  }

  private List<Integer> sentCorrelationIds() {
    List<Integer> ids = new ArrayList<>();
    ByteBuf part;
    while ((part = channel.readOutbound()) != null) {
      try {
        if (!part.isReadable()) {
          continue;
        }
        ByteBuffer frame = part.nioBuffer();
        frame.getInt();
        ids.add(
            new ResponseHeaderData(
                    new ByteBufferAccessor(frame),
                    ApiKeys.DESCRIBE_CLUSTER.responseHeaderVersion(VERSION))
                .correlationId());
      } finally {
        part.release();
      }
    }
    return ids;
  }
}
