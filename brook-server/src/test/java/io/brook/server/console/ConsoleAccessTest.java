package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Who may use the console, by where the admin listener binds and how Kafka clients log in. */
class ConsoleAccessTest {
  @Test
  void loopbackIsOpenWhateverTheKafkaListenersDo() {
    assertThat(ConsoleAccess.decide("127.0.0.1", true, false).mode())
        .isEqualTo(ConsoleAccess.Mode.LOOPBACK);
    assertThat(ConsoleAccess.decide("localhost", true, false).mode())
        .isEqualTo(ConsoleAccess.Mode.LOOPBACK);
    assertThat(ConsoleAccess.decide("[::1]", true, true).mode())
        .isEqualTo(ConsoleAccess.Mode.LOOPBACK);
  }

  @Test
  void elsewhereItNeedsALoginWhenKafkaDoesAndIsRefusedWithoutOne() {
    assertThat(ConsoleAccess.decide("0.0.0.0", false, false).mode())
        .isEqualTo(ConsoleAccess.Mode.OPEN);
    assertThat(ConsoleAccess.decide("0.0.0.0", true, true).mode())
        .isEqualTo(ConsoleAccess.Mode.LOGIN);
    ConsoleAccess refused = ConsoleAccess.decide("0.0.0.0", true, false);
    assertThat(refused.mode()).isEqualTo(ConsoleAccess.Mode.REFUSED);
    assertThat(refused.reason()).contains("brook.http.authentication.listener");
  }

  @Test
  void onlyLoopbackNamesPassTheHostCheck() {
    assertThat(ConsoleAccess.isLoopbackHostHeader("localhost:9644")).isTrue();
    assertThat(ConsoleAccess.isLoopbackHostHeader("127.0.0.1:9644")).isTrue();
    assertThat(ConsoleAccess.isLoopbackHostHeader("[::1]:9644")).isTrue();
    assertThat(ConsoleAccess.isLoopbackHostHeader("attacker.example:9644")).isFalse();
    assertThat(ConsoleAccess.isLoopbackHostHeader("127.0.0.1.attacker.example")).isFalse();
    assertThat(ConsoleAccess.isLoopbackHostHeader(null)).isFalse();
  }
}
