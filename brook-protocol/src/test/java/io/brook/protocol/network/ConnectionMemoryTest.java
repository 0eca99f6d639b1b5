package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.codec.FrameDecoder;
import io.brook.protocol.codec.ReadGate;
import io.brook.protocol.codec.RequestDecoder;
import io.brook.protocol.codec.RequestParser;
import io.brook.protocol.memory.RequestMemoryPool;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.WireClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request-memory budget through a connection's real pipeline (frame decoder, request decoder,
 * connection handler) on embedded channels sharing one pool: the per-connection byte bound, waiting
 * for memory another connection holds, and no reservation outliving its request.
 */
class ConnectionMemoryTest {
  private static final byte[] DESCRIBE_CLUSTER =
      WireClient.encodeRequest(new DescribeClusterRequestData(), (short) 1, 7, "c");
  private static final int FRAME = DESCRIBE_CLUSTER.length - 4;

  private final HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
  private final ApiRegistry registry =
      new ApiRegistry(
          List.of(
              held,
              TestHandlers.failing(ApiKeys.METADATA, () -> new NotControllerException("no")),
              TestHandlers.throwing(ApiKeys.LIST_GROUPS, () -> new IllegalStateException("bug"))));
  private final RequestDecoder requestDecoder = new RequestDecoder(new RequestParser(registry));
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  @AfterEach
  void closeAll() {
    for (EmbeddedChannel channel : channels) {
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void aConnectionStopsReadingOnceItsRequestsHoldTheByteBoundAndResumesWhenOneIsAnswered() {
    // Given: room for one request's bytes per connection
    RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
    EmbeddedChannel channel = connection(pool, FRAME);

    // When
    send(channel, DESCRIBE_CLUSTER);

    // Then
    assertThat(channel.config().isAutoRead()).isFalse();
    assertThat(pool.used()).isEqualTo(FRAME);

    // And when it is answered
    held.awaitHeld(1).get(0).response().complete(new DescribeClusterResponseData());
    channel.runPendingTasks();
    assertThat(channel.config().isAutoRead()).isTrue();
    assertThat(pool.used()).isZero();
  }

  @Test
  void aConnectionWaitsForMemoryAnotherHoldsAndProceedsWhenItIsReleased() {
    // Given: a budget of two requests, both held by the first connection
    RequestMemoryPool pool = new RequestMemoryPool(2L * FRAME);
    EmbeddedChannel first = connection(pool, Long.MAX_VALUE);
    EmbeddedChannel second = connection(pool, Long.MAX_VALUE);
    send(first, DESCRIBE_CLUSTER);
    send(first, DESCRIBE_CLUSTER);
    assertThat(pool.available()).isZero();

    // When
    send(second, DESCRIBE_CLUSTER);

    // Then: the second waits without reading
    assertThat(held.size()).isEqualTo(2);
    assertThat(second.config().isAutoRead()).isFalse();
    assertThat(first.config().isAutoRead()).isTrue();

    // And when the first connection's first request is answered
    held.awaitHeld(2).get(0).response().complete(new DescribeClusterResponseData());
    first.runPendingTasks();
    second.runPendingTasks();
    assertThat(held.size()).isEqualTo(3);
    assertThat(second.config().isAutoRead()).isTrue();
    assertThat(pool.used()).isEqualTo(2L * FRAME);

    // And its answer goes out
    held.awaitHeld(3).get(2).response().complete(new DescribeClusterResponseData());
    second.runPendingTasks();
    assertThat(responses(second)).isEqualTo(1);
  }

  @Test
  void aHandlerDoneWithTheRequestBytesGivesTheirMemoryBackBeforeItAnswers() {
    // Given: room for one request's bytes per connection, held by a request still unanswered
    RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
    EmbeddedChannel channel = connection(pool, FRAME);
    send(channel, DESCRIBE_CLUSTER);
    HeldRequests.Held request = held.awaitHeld(1).get(0);
    assertThat(pool.used()).isEqualTo(FRAME);
    assertThat(channel.config().isAutoRead()).isFalse();

    // When: the handler says it will not read the bytes again (as an acks=all produce does once
    // its appends are done), from another thread, twice
    Thread releaser =
        new Thread(
            () -> {
              request.context().releaseRequestBytes();
              request.context().releaseRequestBytes();
            });
    releaser.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> !releaser.isAlive());
    channel.runPendingTasks();

    // Then: the memory is back and the connection reads again, before any answer
    assertThat(pool.used()).isZero();
    assertThat(channel.config().isAutoRead()).isTrue();
    assertThat(responses(channel)).isZero();

    // And the answer releases nothing twice
    request.response().complete(new DescribeClusterResponseData());
    channel.runPendingTasks();
    assertThat(responses(channel)).isEqualTo(1);
    assertThat(pool.used()).isZero();
    send(channel, DESCRIBE_CLUSTER);
    assertThat(pool.used()).isEqualTo(FRAME);
    held.awaitHeld(2).get(1).response().complete(new DescribeClusterResponseData());
    channel.runPendingTasks();
    assertThat(pool.used()).isZero();
  }

  @Test
  void aFailingOrThrowingHandlerReleasesTheRequestsMemory() {
    // Given
    RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
    EmbeddedChannel channel = connection(pool, Long.MAX_VALUE);

    // When
    send(channel, WireClient.encodeRequest(new MetadataRequestData(), (short) 12, 1, "c"));
    send(channel, WireClient.encodeRequest(new ListGroupsRequestData(), (short) 4, 2, "c"));
    channel.runPendingTasks();

    // Then: both answered with errors, nothing left reserved
    assertThat(responses(channel)).isEqualTo(2);
    assertThat(channel.isOpen()).isTrue();
    assertThat(pool.used()).isZero();
  }

  @Test
  void closingWithRequestsInFlightReleasesTheirMemoryOnce() {
    // Given
    RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
    EmbeddedChannel channel = connection(pool, Long.MAX_VALUE);
    send(channel, DESCRIBE_CLUSTER);
    send(channel, DESCRIBE_CLUSTER);
    assertThat(pool.used()).isEqualTo(2L * FRAME);

    // When
    channel.close();

    // Then
    assertThat(pool.used()).isZero();

    // And a late answer changes nothing
    held.awaitHeld(2).get(0).response().complete(new DescribeClusterResponseData());
    channel.runPendingTasks();
    assertThat(pool.used()).isZero();
  }

  private EmbeddedChannel connection(RequestMemoryPool pool, long maxInFlightBytes) {
    EmbeddedChannel channel = new EmbeddedChannel();
    ReadGate gate = new ReadGate(channel);
    channel
        .pipeline()
        .addLast(new FrameDecoder(1 << 20, 60_000, pool, gate))
        .addLast(requestDecoder)
        .addLast(
            new ConnectionHandler(
                registry,
                "PLAINTEXT",
                "test-" + channels.size(),
                InetAddress.getLoopbackAddress(),
                100,
                maxInFlightBytes,
                gate));
    channels.add(channel);
    return channel;
  }

  private static void send(EmbeddedChannel channel, byte[] frame) {
    channel.writeInbound(Unpooled.wrappedBuffer(frame));
  }

  private static int responses(EmbeddedChannel channel) {
    int count = 0;
    ByteBuf part;
    while ((part = channel.readOutbound()) != null) {
      if (part.isReadable()) {
        count++;
      }
      part.release();
    }
    return count;
  }
}
