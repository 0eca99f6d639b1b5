package io.brook.protocol.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Response framing on an embedded channel: any split of the bytes, and the size bound. */
class ResponseFrameDecoderTest {
  private static byte[] frames(byte[]... bodies) {
    ByteBuffer out = ByteBuffer.allocate(1_024);
    for (byte[] body : bodies) {
      out.putInt(body.length).put(body);
    }
    byte[] bytes = new byte[out.position()];
    out.flip().get(bytes);
    return bytes;
  }

  private static List<byte[]> decode(EmbeddedChannel channel) {
    List<byte[]> frames = new ArrayList<>();
    for (Object msg = channel.readInbound(); msg != null; msg = channel.readInbound()) {
      ByteBuffer frame = (ByteBuffer) msg;
      byte[] bytes = new byte[frame.remaining()];
      frame.get(bytes);
      frames.add(bytes);
    }
    return frames;
  }

  @Test
  void framesSplitAtEveryPointComeOutWhole() {
    byte[] first = {1, 2, 3, 4, 5};
    byte[] second = {6, 7, 8, 9};
    byte[] wire = frames(first, second);
    for (int cut = 0; cut <= wire.length; cut++) {
      EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(64));
      channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, cut));
      channel.writeInbound(Unpooled.wrappedBuffer(wire, cut, wire.length - cut));
      assertThat(decode(channel)).as("cut at %d", cut).containsExactly(first, second);
      assertThat(channel.finish()).isFalse();
    }
  }

  @Test
  void oneByteAtATime() {
    byte[] body = {9, 8, 7, 6, 5, 4};
    byte[] wire = frames(body, body);
    EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(64));
    for (byte b : wire) {
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }
    assertThat(decode(channel)).containsExactly(body, body);
  }

  @Test
  void aSizeBeyondTheBoundOrBelowACorrelationIdIsRefusedAndTheInputReleased() {
    for (int size : new int[] {65, Integer.MAX_VALUE, 3, -1}) {
      EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(64));
      ByteBuf in = Unpooled.buffer().writeInt(size).writeInt(0);
      assertThatThrownBy(() -> channel.writeInbound(in))
          .isInstanceOf(CorruptedFrameException.class)
          .hasMessageContaining("response size " + size);
      assertThat(in.refCnt()).isZero();
    }
  }
}
