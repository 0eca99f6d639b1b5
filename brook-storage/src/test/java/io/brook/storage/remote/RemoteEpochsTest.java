package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.epoch.EpochEntry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The leader-epoch checkpoint stored beside a remote segment, as a follower starting from remote
 * state reads it; and the manifest accepting a new leader's copy that overlaps the last segment.
 */
class RemoteEpochsTest {

  @Test
  void roundTripsAndRefusesWhatIsNotACheckpoint() {
    List<EpochEntry> entries = List.of(new EpochEntry(0, 0), new EpochEntry(3, 504));
    assertThat(RemoteEpochs.parse(RemoteEpochs.encode(entries))).isEqualTo(entries);
    assertThat(RemoteEpochs.parse(new byte[0])).isEmpty();
    assertThatThrownBy(() -> RemoteEpochs.parse(ascii("1\n0\n")))
        .isInstanceOf(IllegalArgumentException.class);
    // A count that does not match the lines is refused before anything is built from it.
    assertThatThrownBy(() -> RemoteEpochs.parse(ascii("0\n999999999\n0 0\n")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aCopyOverlappingTheLastSegmentIsAcceptedOneGoingBackIsNot() {
    RemoteSegment first = finished("a", 0, 199);
    RemoteLogManifest manifest = RemoteLogManifest.EMPTY.with(first).with(finished("b", 100, 299));
    assertThat(manifest.copiedEnd()).isEqualTo(300);
    assertThat(manifest.segmentFor(150).orElseThrow().id()).isEqualTo("a");
    assertThat(manifest.segmentFor(250).orElseThrow().id()).isEqualTo("b");
    assertThat(RemoteLogManifest.decode(manifest.encode())).isEqualTo(manifest);
    assertThatThrownBy(() -> RemoteLogManifest.EMPTY.with(first).with(finished("c", 50, 150)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static RemoteSegment finished(String id, long base, long end) {
    return new RemoteSegment(id, base, end, -1, 10, RemoteSegmentState.COPY_SEGMENT_FINISHED);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
