package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The message browser's key filter, on keys as a fetch hands them over (a view of a batch). */
class KeyFilterTest {
  /** The key inside a larger buffer, as a fetched batch holds it: position and limit matter. */
  private static ByteBuffer inside(String text) {
    byte[] bytes = ("xx" + text + "yy").getBytes(StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    buffer.position(2).limit(bytes.length - 2);
    return buffer;
  }

  @Test
  void exactMatchesTheWholeKeyOnly() {
    ConsoleApi.KeyFilter filter = ConsoleApi.KeyFilter.of("order-4", null);
    assertThat(filter.matches(inside("order-4"))).isTrue();
    assertThat(filter.matches(inside("order-42"))).isFalse();
    assertThat(filter.matches(inside("border-4"))).isFalse();
    assertThat(filter.matches(ByteBuffer.wrap("order-4".getBytes(StandardCharsets.UTF_8))))
        .isTrue();
    assertThat(filter.matches(null)).isFalse();
  }

  @Test
  void containsMatchesAnywhereWithinTheKeysBounds() {
    ConsoleApi.KeyFilter filter = ConsoleApi.KeyFilter.of("needle", "contains");
    assertThat(filter.matches(inside("needle"))).isTrue();
    assertThat(filter.matches(inside("a-needle"))).isTrue();
    assertThat(filter.matches(inside("needle-b"))).isTrue();
    assertThat(filter.matches(inside("needl"))).isFalse();
    // The bytes around the key ("xx", "yy") are not part of it.
    assertThat(ConsoleApi.KeyFilter.of("xneedle", "contains").matches(inside("needle"))).isFalse();
    assertThat(ConsoleApi.KeyFilter.of("eyy", "contains").matches(inside("needle"))).isFalse();
  }

  @Test
  void noKeyNoFilterAndAnUnknownMatchIsRefused() {
    assertThat(ConsoleApi.KeyFilter.of(null, "contains")).isNull();
    assertThatThrownBy(() -> ConsoleApi.KeyFilter.of("k", "regex"))
        .isInstanceOf(ConsoleException.class)
        .hasMessageContaining("exact or contains");
  }
}
