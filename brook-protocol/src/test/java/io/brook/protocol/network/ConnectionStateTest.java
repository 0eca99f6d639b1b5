package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectionStateTest {

  @Test
  void pausesOnEitherReasonAndResumesWhenBothClear() {
    ConnectionState state = ConnectionState.initial();
    assertThat(state.readsAllowed()).isTrue();

    state = state.onLoad(true, false);
    assertThat(state).isEqualTo(new ConnectionState.Paused(true, false));
    assertThat(state.readsAllowed()).isFalse();

    state = state.onLoad(false, true);
    assertThat(state).isEqualTo(new ConnectionState.Paused(false, true));

    state = state.onLoad(false, false);
    assertThat(state).isInstanceOf(ConnectionState.Reading.class);
  }

  @Test
  void aThrottledClientIsMutedUntilItsThrottleTimeIsOver() {
    ConnectionState state = ConnectionState.initial().onLoad(false, false, true);
    assertThat(state).isEqualTo(new ConnectionState.Paused(false, false, true));
    assertThat(state.readsAllowed()).isFalse();

    // Backpressure clearing does not end the mute
    state = state.onLoad(true, false, true).onLoad(false, false, true);
    assertThat(state.readsAllowed()).isFalse();

    state = state.onLoad(false, false, false);
    assertThat(state).isInstanceOf(ConnectionState.Reading.class);
  }

  @Test
  void drainingNeverReadsAgainButStillDispatches() {
    ConnectionState state = ConnectionState.initial().onLoad(true, true).onDrain();

    assertThat(state).isInstanceOf(ConnectionState.Draining.class);
    assertThat(state.onLoad(false, false)).isSameAs(state);
    assertThat(state.readsAllowed()).isFalse();
    assertThat(state.dispatches()).isTrue();
  }

  @Test
  void closedIsFinal() {
    ConnectionState closed = ConnectionState.initial().onClose("idle");

    assertThat(closed).isEqualTo(new ConnectionState.Closed("idle"));
    assertThat(closed.dispatches()).isFalse();
    assertThat(closed.onLoad(false, false)).isSameAs(closed);
    assertThat(closed.onDrain()).isSameAs(closed);
    assertThat(closed.onClose("again")).isSameAs(closed);
  }
}
