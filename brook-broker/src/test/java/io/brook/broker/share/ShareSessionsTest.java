package io.brook.broker.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidShareSessionEpochException;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;
import org.junit.jupiter.api.Test;

/** Share sessions: epochs, partition changes, the bound, and removal. */
class ShareSessionsTest {
  private static final Uuid TOPIC = Uuid.randomUuid();
  private static final ShareSessions.SessionPartition P0 =
      new ShareSessions.SessionPartition(TOPIC, 0);
  private static final ShareSessions.SessionPartition P1 =
      new ShareSessions.SessionPartition(TOPIC, 1);
  private static final ShareSessions.Key A = new ShareSessions.Key("g", "a");
  private static final ShareSessions.Key B = new ShareSessions.Key("g", "b");

  @Test
  void epochsAdvanceThroughNextAndPartitionsChange() {
    ShareSessions sessions = new ShareSessions(10);
    assertThat(sessions.open(A, List.of(P0), "c1", 0, new ArrayList<>())).containsExactly(P0);

    assertThat(sessions.next(A, 1, List.of(P1), List.of(), "c1", 1)).containsExactly(P0, P1);
    assertThat(sessions.next(A, 2, List.of(), List.of(P0), "c1", 2)).containsExactly(P1);
    assertThatThrownBy(() -> sessions.next(A, 2, List.of(), List.of(), "c1", 3))
        .isInstanceOf(InvalidShareSessionEpochException.class);
    assertThatThrownBy(() -> sessions.next(B, 1, List.of(), List.of(), "c1", 3))
        .isInstanceOf(ShareSessionNotFoundException.class);
    assertThat(sessions.close(A)).containsExactly(P1);
    assertThatThrownBy(() -> sessions.close(A)).isInstanceOf(ShareSessionNotFoundException.class);
  }

  @Test
  void reopeningReplacesTheOldSessionAndTheCacheIsBounded() {
    ShareSessions sessions = new ShareSessions(1);
    sessions.open(A, List.of(P0, P1), "c1", 0, new ArrayList<>());
    List<ShareSessions.SessionPartition> replaced = new ArrayList<>();

    sessions.open(A, List.of(P0), "c2", 0, replaced);
    assertThat(replaced).containsExactly(P0, P1);
    assertThatThrownBy(() -> sessions.open(B, List.of(P0), "c3", 0, new ArrayList<>()))
        .isInstanceOf(ShareSessionLimitReachedException.class);
    assertThat(sessions.size()).isEqualTo(1);
  }

  @Test
  void sessionsGoWithTheirConnectionOrWhenIdle() {
    ShareSessions sessions = new ShareSessions(10);
    sessions.open(A, List.of(P0), "c1", 0, new ArrayList<>());
    sessions.open(B, List.of(P1), "c2", 0, new ArrayList<>());
    sessions.next(B, 1, List.of(), List.of(), "c2", 5_000);

    assertThat(sessions.removeConnection("c1"))
        .extracting(ShareSessions.Session::key)
        .containsExactly(A);
    assertThat(sessions.removeIdle(10_000, 6_000)).isEmpty();
    assertThat(sessions.removeIdle(11_001, 6_000))
        .extracting(ShareSessions.Session::key)
        .containsExactly(B);
    assertThat(sessions.size()).isZero();
  }
}
