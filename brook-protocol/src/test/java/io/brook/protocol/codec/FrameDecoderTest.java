package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.memory.RequestMemoryPool;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
  private static final int MAX = 64;
  private static final long BUDGET = 1024;
  private static final long TIMEOUT_MS = 60_000;

  private final RequestMemoryPool pool = new RequestMemoryPool(BUDGET);
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final ReadGate gate = new ReadGate(channel);

  FrameDecoderTest() {
    channel.pipeline().addLast(new FrameDecoder(MAX, TIMEOUT_MS, pool, gate));
  }

  @AfterEach
  void release() {
    channel.finishAndReleaseAll();
    assertThat(pool.used()).as("request memory left reserved").isZero();
  }

  @Test
  void reassemblesFramesArrivingByteByByte() {
    // Given
    byte[] payload = payload(20, 1);
    byte[] wire = frame(payload);

    // When
    for (byte b : wire) {
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }

    // Then
    assertNextFrame(payload);
    Object next = channel.readInbound();
    assertThat(next).isNull();
  }

  @Test
  void splitsSeveralFramesInOneRead() {
    // Given
    byte[] first = payload(10, 2);
    byte[] second = payload(MAX, 3);

    // When
    channel.writeInbound(Unpooled.wrappedBuffer(frame(first), frame(second)));

    // Then
    assertNextFrame(first);
    assertNextFrame(second);
  }

  @Test
  void refusesATooLargeLengthBeforeAnyOfTheFrameArrives() {
    // When: only the length prefix, 2^30
    ByteBuf prefix = Unpooled.buffer(4).writeInt(1 << 30);

    // Then: refused at once, not after waiting for a gigabyte
    assertThatThrownBy(() -> channel.writeInbound(prefix))
        .isInstanceOfSatisfying(
            FrameTooLargeException.class,
            e -> {
              assertThat(e.max()).isEqualTo(MAX);
              assertThat(e.limit()).isEqualTo("socket.request.max.bytes");
              assertThat(e.received()).isEqualTo(1 << 30);
            });
    assertThat(prefix.refCnt()).isZero();
    assertThat(pool.used()).isZero();
  }

  @Test
  void refusesOneByteAboveTheMaximum() {
    assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer(4).writeInt(MAX + 1)))
        .isInstanceOf(FrameTooLargeException.class);
  }

  @Test
  void refusesNegativeAndTooSmallLengths() {
    for (int length : new int[] {-1, Integer.MIN_VALUE, 0, FrameDecoder.MIN_FRAME_BYTES - 1}) {
      EmbeddedChannel fresh = new EmbeddedChannel();
      fresh.pipeline().addLast(new FrameDecoder(MAX, TIMEOUT_MS, pool, new ReadGate(fresh)));
      assertThatThrownBy(() -> fresh.writeInbound(Unpooled.buffer(4).writeInt(length)))
          .isInstanceOfSatisfying(
              FrameTooSmallException.class,
              e -> {
                assertThat(e.min()).isEqualTo(FrameDecoder.MIN_FRAME_BYTES);
                assertThat(e.received()).isEqualTo(length);
              });
      fresh.finishAndReleaseAll();
    }
  }

  @Test
  void discardsEverythingAfterARefusal() {
    // Given
    assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer(4).writeInt(-1)))
        .isInstanceOf(FrameTooSmallException.class);

    // When: a valid frame follows
    ByteBuf valid = Unpooled.wrappedBuffer(frame(payload(12, 4)));
    channel.writeInbound(valid);

    // Then: no second error, no frame, nothing retained
    Object next = channel.readInbound();
    assertThat(next).isNull();
    assertThat(valid.refCnt()).isZero();
  }

  @Test
  void acceptsTheSmallestAndTheLargestFrame() {
    byte[] smallest = payload(FrameDecoder.MIN_FRAME_BYTES, 5);
    byte[] largest = payload(MAX, 6);

    channel.writeInbound(Unpooled.wrappedBuffer(frame(smallest)));
    channel.writeInbound(Unpooled.wrappedBuffer(frame(largest)));

    assertNextFrame(smallest);
    assertNextFrame(largest);
  }

  @Test
  void aPartialFrameAtCloseIsDroppedQuietly() {
    // Given
    channel.writeInbound(Unpooled.buffer(8).writeInt(30).writeInt(7));

    // When
    boolean produced = channel.finish();

    // Then
    assertThat(produced).isFalse();
  }

  @Test
  void reservesTheWholeFrameWhenItsLengthArrivesAndReleasesItWithTheFrame() {
    // When: the prefix and 6 of the frame's 40 bytes
    byte[] payload = payload(40, 7);
    byte[] wire = frame(payload);
    channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10));

    // Then
    assertThat(pool.used()).isEqualTo(40);

    // And when the rest arrives and the frame is released
    channel.writeInbound(Unpooled.wrappedBuffer(wire, 10, wire.length - 10));
    assertNextFrame(payload);
    assertThat(pool.used()).isZero();
  }

  @Test
  void waitsForMemoryWithReadingOffHoldingNothingAndResumesWhenGranted() {
    // Given: someone else holds all but 30 bytes
    assertThat(pool.reserveOrWait(BUDGET - 30, () -> {})).isTrue();
    byte[] payload = payload(40, 8);

    // When
    channel.writeInbound(Unpooled.wrappedBuffer(frame(payload)));

    // Then: waiting, reading off, nothing reserved for it
    Object nothing = channel.readInbound();
    assertThat(nothing).isNull();
    assertThat(channel.config().isAutoRead()).isFalse();
    assertThat(pool.used()).isEqualTo(BUDGET - 30);
    assertThat(pool.waiters()).isEqualTo(1);

    // And when the memory comes back
    pool.release(BUDGET - 30);
    channel.runPendingTasks();
    assertThat(channel.config().isAutoRead()).isTrue();
    assertNextFrame(payload);
  }

  @Test
  void refusesAFrameLargerThanTheWholeBudget() {
    // Given: a budget below socket.request.max.bytes
    EmbeddedChannel small = new EmbeddedChannel();
    RequestMemoryPool tiny = new RequestMemoryPool(32);
    small.pipeline().addLast(new FrameDecoder(MAX, TIMEOUT_MS, tiny, new ReadGate(small)));

    // Then: 33 bytes can never fit, so the frame is refused rather than waited for forever
    assertThatThrownBy(() -> small.writeInbound(Unpooled.buffer(4).writeInt(33)))
        .isInstanceOfSatisfying(
            FrameTooLargeException.class,
            e -> {
              assertThat(e.limit()).isEqualTo("queued.max.request.bytes");
              assertThat(e.max()).isEqualTo(32);
            });
    assertThat(tiny.used()).isZero();
    small.finishAndReleaseAll();
  }

  @Test
  void closingMidFrameReleasesTheReservation() {
    // Given
    channel.writeInbound(Unpooled.buffer(14).writeInt(40).writeBytes(new byte[10]));
    assertThat(pool.used()).isEqualTo(40);

    // When
    channel.close();

    // Then
    assertThat(pool.used()).isZero();
  }

  @Test
  void closingWhileWaitingWithdrawsTheWait() {
    // Given
    assertThat(pool.reserveOrWait(BUDGET, () -> {})).isTrue();
    channel.writeInbound(Unpooled.wrappedBuffer(frame(payload(20, 9))));
    assertThat(pool.waiters()).isEqualTo(1);

    // When
    channel.close();
    pool.release(BUDGET);
    channel.runPendingTasks();

    // Then
    assertThat(pool.waiters()).isZero();
  }

  @Test
  void aStartedFrameIsReadToItsEndWhileTheConnectionIsPausedButNoNewOneStarts() {
    // Given: a frame started
    byte[] first = payload(30, 10);
    byte[] second = payload(12, 11);
    byte[] wire = frame(first);
    channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10));

    // When: the connection pauses (too much in flight)
    gate.connectionReads(false);

    // Then: still reading to finish the frame
    assertThat(channel.config().isAutoRead()).isTrue();

    // And when the rest arrives with the next frame behind it
    channel.writeInbound(
        Unpooled.wrappedBuffer(
            Unpooled.wrappedBuffer(wire, 10, wire.length - 10),
            Unpooled.wrappedBuffer(frame(second))));
    assertNextFrame(first);
    Object held = channel.readInbound();
    assertThat(held).isNull();
    assertThat(pool.used()).as("the held frame reserves nothing").isZero();
    assertThat(channel.config().isAutoRead()).isFalse();

    // And when the connection resumes
    gate.connectionReads(true);
    channel.runPendingTasks();
    assertNextFrame(second);
  }

  @Test
  void aFrameNotReceivedWholeInTimeClosesTheConnectionAndReleasesItsMemory() {
    // Given: a frame started, its memory reserved, then the client goes quiet
    channel.writeInbound(Unpooled.buffer(14).writeInt(40).writeBytes(new byte[10]));
    assertThat(pool.used()).isEqualTo(40);

    // When
    channel.advanceTimeBy(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    // Then
    assertThatThrownBy(channel::checkException)
        .isInstanceOfSatisfying(
            FrameReceiveTimeoutException.class,
            e -> {
              assertThat(e.frameBytes()).isEqualTo(40);
              assertThat(e.receivedBytes()).isEqualTo(10);
            });
    assertThat(pool.used()).isZero();
  }

  @Test
  void aFrameReceivedInTimeCancelsItsDeadline() {
    // Given
    byte[] payload = payload(40, 12);
    byte[] wire = frame(payload);
    channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10));

    // When
    channel.writeInbound(Unpooled.wrappedBuffer(wire, 10, wire.length - 10));
    channel.advanceTimeBy(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    // Then
    channel.checkException();
    assertNextFrame(payload);
  }

  private void assertNextFrame(byte[] expected) {
    RequestFrame frame = channel.readInbound();
    assertThat(frame).isNotNull();
    try {
      assertThat(frame.size()).isEqualTo(expected.length);
      ByteBuf content = frame.content();
      byte[] actual = new byte[content.readableBytes()];
      content.readBytes(actual);
      assertThat(actual).isEqualTo(expected);
    } finally {
      frame.release();
    }
  }

  private static byte[] payload(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] frame(byte[] payload) {
    return Unpooled.buffer(4 + payload.length).writeInt(payload.length).writeBytes(payload).array();
  }
}
