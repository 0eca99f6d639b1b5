package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OffsetMapTest {
  private static ByteBuffer key(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void keepsTheLatestOffsetPerKeyAndAnswersMinusOneForUnknownKeys() {
    // Given
    OffsetMap map = new OffsetMap(OffsetMap.SLOT_BYTES * 1_000, 0.9);
    map.clear();

    // When
    for (int i = 0; i < 800; i++) {
      map.put(key("k" + (i % 400)), i);
    }

    // Then
    assertThat(map.size()).isEqualTo(400);
    for (int k = 0; k < 400; k++) {
      assertThat(map.get(key("k" + k))).isEqualTo(400 + k);
    }
    assertThat(map.get(key("absent"))).isEqualTo(-1);
    assertThat(map.latestOffset()).isEqualTo(799);
    assertThat(map.averageProbes()).isLessThan(3.0);
  }

  @Test
  void isFullAtItsLoadFactorAndClearsForTheNextPass() {
    // Given: 100 slots at 0.5
    OffsetMap map = new OffsetMap(OffsetMap.SLOT_BYTES * 100, 0.5);
    map.clear();

    // When
    for (int i = 0; i < 50; i++) {
      assertThat(map.isFull()).isFalse();
      map.put(key("k" + i), i);
    }

    // Then
    assertThat(map.isFull()).isTrue();
    assertThat(map.maxEntries()).isEqualTo(50);
    map.clear();
    assertThat(map.size()).isZero();
    assertThat(map.get(key("k1"))).isEqualTo(-1);
    assertThat(map.latestOffset()).isEqualTo(-1);
  }

  @Test
  void aFullTableStillAnswersLookupsForAbsentKeys() {
    // Given: load factor 1.0 keeps one slot free
    OffsetMap map = new OffsetMap(OffsetMap.SLOT_BYTES * 8, 1.0);
    map.clear();
    for (int i = 0; !map.isFull(); i++) {
      map.put(key("k" + i), i);
    }

    // Then
    assertThat(map.size()).isEqualTo(7);
    assertThat(map.get(key("never"))).isEqualTo(-1);
  }

  @Test
  void doesNotMoveTheCallersKeyBuffer() {
    OffsetMap map = new OffsetMap(1024, 0.9);
    map.clear();
    ByteBuffer k = key("abc");
    map.put(k, 5);
    assertThat(k.remaining()).isEqualTo(3);
    assertThat(map.get(k)).isEqualTo(5);
  }
}
