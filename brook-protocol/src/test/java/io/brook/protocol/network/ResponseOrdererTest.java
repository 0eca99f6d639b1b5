package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

class ResponseOrdererTest {
  private final ResponseOrderer<String> orderer = new ResponseOrderer<>();

  @Test
  void releasesResponsesOnlyInRequestOrder() {
    // Given
    long first = orderer.register();
    long second = orderer.register();
    long third = orderer.register();

    // When / Then
    assertThat(orderer.complete(third, "c")).isEmpty();
    assertThat(orderer.complete(second, "b")).isEmpty();
    assertThat(orderer.inFlight()).isEqualTo(3);
    assertThat(orderer.complete(first, "a")).containsExactly("a", "b", "c");
    assertThat(orderer.inFlight()).isZero();
  }

  @Test
  void aRequestWithoutResponseIsSkipped() {
    long first = orderer.register();
    long silent = orderer.register();
    long third = orderer.register();

    assertThat(orderer.complete(silent, null)).isEmpty();
    assertThat(orderer.complete(first, "a")).containsExactly("a");
    assertThat(orderer.inFlight()).isEqualTo(1);
    assertThat(orderer.complete(third, "c")).containsExactly("c");
  }

  @Test
  void refusesUnknownAndDuplicateCompletions() {
    long first = orderer.register();
    long second = orderer.register();
    orderer.complete(second, "b");

    assertThatThrownBy(() -> orderer.complete(second, "again"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> orderer.complete(7, "never registered"))
        .isInstanceOf(IllegalStateException.class);
    orderer.complete(first, "a");
    assertThatThrownBy(() -> orderer.complete(first, "already sent"))
        .isInstanceOf(IllegalStateException.class);
  }

  @RepeatedTest(20)
  void anyCompletionOrderYieldsRequestOrder(RepetitionInfo repetition) {
    long seed = 1000L + repetition.getCurrentRepetition();
    Random random = new Random(seed);
    int count = 1 + random.nextInt(50);
    List<Long> sequences = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long sequence = orderer.register();
      sequences.add(sequence);
      if (random.nextInt(5) != 0) {
        expected.add("r" + sequence);
      }
    }
    Collections.shuffle(sequences, random);

    List<String> written = new ArrayList<>();
    for (long sequence : sequences) {
      String response = expected.contains("r" + sequence) ? "r" + sequence : null;
      written.addAll(orderer.complete(sequence, response));
    }

    assertThat(written).as("seed %d", seed).isEqualTo(expected);
    assertThat(orderer.inFlight()).isZero();
  }
}
