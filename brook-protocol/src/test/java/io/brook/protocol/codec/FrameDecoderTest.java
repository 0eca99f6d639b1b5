package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
  private static final int MAX = 64;

  private final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(MAX));

  @AfterEach
  void release() {
    channel.finishAndReleaseAll();
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
        .isInstanceOf(DecoderException.class)
        .cause()
        .isInstanceOfSatisfying(
            FrameTooLargeException.class,
            e -> {
              assertThat(e.max()).isEqualTo(MAX);
              assertThat(e.received()).isEqualTo(1 << 30);
            });
    assertThat(prefix.refCnt()).isZero();
  }

  @Test
  void refusesOneByteAboveTheMaximum() {
    assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer(4).writeInt(MAX + 1)))
        .cause()
        .isInstanceOf(FrameTooLargeException.class);
  }

  @Test
  void refusesNegativeAndTooSmallLengths() {
    for (int length : new int[] {-1, Integer.MIN_VALUE, 0, FrameDecoder.MIN_FRAME_BYTES - 1}) {
      EmbeddedChannel fresh = new EmbeddedChannel(new FrameDecoder(MAX));
      assertThatThrownBy(() -> fresh.writeInbound(Unpooled.buffer(4).writeInt(length)))
          .cause()
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
        .isInstanceOf(DecoderException.class);

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

  private void assertNextFrame(byte[] expected) {
    ByteBuf frame = channel.readInbound();
    try {
      byte[] actual = new byte[frame.readableBytes()];
      frame.readBytes(actual);
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
