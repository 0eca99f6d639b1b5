package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Writable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every primitive is written byte for byte like kafka-clients' own {@link ByteBufferAccessor}. */
class ByteBufWritableTest {

  @ParameterizedTest
  @ValueSource(
      ints = {
        0,
        1,
        -1,
        63,
        -64,
        64,
        127,
        128,
        255,
        16383,
        16384,
        2097151,
        2097152,
        268435455,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE
      })
  void intEncodingsMatchKafkaClients(int value) {
    assertSameBytes(w -> w.writeUnsignedVarint(value));
    assertSameBytes(w -> w.writeVarint(value));
    assertSameBytes(w -> w.writeInt(value));
    assertSameBytes(w -> w.writeShort((short) value));
    assertSameBytes(w -> w.writeByte((byte) value));
  }

  @ParameterizedTest
  @ValueSource(
      longs = {
        0L,
        1L,
        -1L,
        63L,
        -64L,
        64L,
        1L << 35,
        -(1L << 35),
        1L << 62,
        Long.MAX_VALUE,
        Long.MIN_VALUE
      })
  void longEncodingsMatchKafkaClients(long value) {
    assertSameBytes(w -> w.writeVarlong(value));
    assertSameBytes(w -> w.writeLong(value));
    assertSameBytes(w -> w.writeDouble(Double.longBitsToDouble(value)));
    assertSameBytes(w -> w.writeUuid(new Uuid(value, ~value)));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 300})
  void bytesMatchKafkaClients(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31);
    }
    assertSameBytes(w -> w.writeByteArray(bytes));
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    assertSameBytes(w -> w.writeByteBuffer(buffer));
    assertThat(buffer.position()).as("source position untouched").isZero();
  }

  private static void assertSameBytes(Consumer<Writable> write) {
    ByteBuffer expected = ByteBuffer.allocate(1024);
    write.accept(new ByteBufferAccessor(expected));
    expected.flip();

    ByteBufWritable writable = new ByteBufWritable(Unpooled.buffer(16));
    write.accept(writable);
    List<Object> parts = writable.finish();
    ByteBuf actual = (ByteBuf) parts.get(0);
    try {
      assertThat(parts).hasSize(1);
      assertThat(Bytes.of(actual)).isEqualTo(Bytes.of(expected));
    } finally {
      actual.release();
    }
  }

  private static final class Bytes {
    static byte[] of(ByteBuf buf) {
      byte[] bytes = new byte[buf.readableBytes()];
      buf.getBytes(buf.readerIndex(), bytes);
      return bytes;
    }

    static byte[] of(ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return bytes;
    }
  }
}
