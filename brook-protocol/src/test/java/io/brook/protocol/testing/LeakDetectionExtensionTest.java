package io.brook.protocol.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check itself notices an unreleased buffer (and this test then clears the report). */
class LeakDetectionExtensionTest {

  @Test
  void anUnreleasedBufferIsReported() {
    // Given: a buffer dropped without release
    leakOneBuffer();
    List<String> reported = new ArrayList<>();

    // When
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              LeakDetectionExtension.collectAndProbe();
              reported.addAll(LeakDetectionExtension.drainLeaks());
              return !reported.isEmpty();
            });

    // Then
    assertThat(reported).anySatisfy(leak -> assertThat(leak).contains("LEAK"));
  }

  private static void leakOneBuffer() {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
    leaked.writeInt(1);
  }
}
