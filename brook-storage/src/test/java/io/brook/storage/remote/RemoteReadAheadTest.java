package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The read-ahead's bounds: bytes and partitions held, least recently kept out first. */
class RemoteReadAheadTest {
  private static final Uuid TOPIC = Uuid.fromString("Ia9tBxWQQjWbsYn0Vw3Tqg");

  private static TopicIdPartition tp(int partition) {
    return new TopicIdPartition(TOPIC, partition, "t");
  }

  /** What a read left: {@code length} bytes viewing a backing array of {@code arrayBytes}. */
  private static RemoteReadAhead.Held held(long nextOffset, int arrayBytes, int length) {
    ByteBuffer bytes = ByteBuffer.wrap(new byte[arrayBytes], arrayBytes - length, length).slice();
    return new RemoteReadAhead.Held("segment", nextOffset, 1_000, bytes);
  }

  @Test
  void onlyTheReadContinuingTheLastOneTakesItsBytes() {
    RemoteReadAhead ahead = new RemoteReadAhead(100, 1_000, 10);
    ahead.keep(tp(0), held(50, 200, 30));

    assertThat(ahead.take(tp(0), "segment", 49)).isNull();
    assertThat(ahead.take(tp(0), "another-segment", 50)).isNull();
    assertThat(ahead.take(tp(1), "segment", 50)).isNull();
    assertThat(ahead.heldBytes()).as("counted as the whole backing array").isEqualTo(200);

    RemoteReadAhead.Held taken = ahead.take(tp(0), "segment", 50);
    assertThat(taken.bytes().remaining()).isEqualTo(30);
    assertThat(ahead.heldBytes()).isZero();
    assertThat(ahead.take(tp(0), "segment", 50)).as("taken once").isNull();
  }

  @Test
  void theLeastRecentlyKeptGoFirstPastTheByteCapacity() {
    RemoteReadAhead ahead = new RemoteReadAhead(100, 1_000, 10);
    ahead.keep(tp(0), held(10, 400, 10));
    ahead.keep(tp(1), held(20, 400, 10));
    ahead.keep(tp(0), held(11, 400, 10)); // kept again: now the most recent
    ahead.keep(tp(2), held(30, 400, 10));

    assertThat(ahead.heldBytes()).isEqualTo(800);
    assertThat(ahead.take(tp(1), "segment", 20)).isNull();
    assertThat(ahead.take(tp(0), "segment", 11)).isNotNull();
    assertThat(ahead.take(tp(2), "segment", 30)).isNotNull();
  }

  @Test
  void partitionsAreBoundedAndAnOversizedRemainderKeepsOnlyItsPosition() {
    RemoteReadAhead ahead = new RemoteReadAhead(100, 1_000, 2);
    ahead.keep(tp(0), held(10, 0, 0));
    ahead.keep(tp(1), held(20, 0, 0));
    ahead.keep(tp(2), held(30, 0, 0));
    assertThat(ahead.take(tp(0), "segment", 10)).as("past the partition bound").isNull();

    ahead.keep(tp(3), held(40, 5_000, 100));
    assertThat(ahead.heldBytes()).isZero();
    RemoteReadAhead.Held position = ahead.take(tp(3), "segment", 40);
    assertThat(position.bytes().remaining()).isZero();
    assertThat(position.position()).isEqualTo(1_000);
  }

  @Test
  void noneKeepsNothing() {
    RemoteReadAhead.NONE.keep(tp(0), held(10, 100, 10));
    assertThat(RemoteReadAhead.NONE.take(tp(0), "segment", 10)).isNull();
    assertThat(RemoteReadAhead.NONE.bytes()).isZero();
  }
}
