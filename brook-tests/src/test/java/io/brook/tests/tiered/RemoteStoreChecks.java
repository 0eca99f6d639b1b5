package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.remote.RemoteFileType;
import io.brook.storage.remote.RemoteLogManifest;
import io.brook.storage.remote.RemoteSegment;
import io.brook.storage.remote.RemoteSegmentStore;
import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/** What the tiered ITs check in the remote store itself. */
final class RemoteStoreChecks {
  private RemoteStoreChecks() {}

  /**
   * Every object the store holds for the partition belongs to a finished segment its manifest names
   * (no orphans, nothing half-copied), and every such segment has all its objects.
   *
   * @return the manifest
   */
  static RemoteLogManifest storeHoldsExactlyTheManifest(
      RemoteSegmentStore store, TopicIdPartition tp, String keyPrefix) throws Exception {
    return storeHoldsExactlyTheManifest(store, tp, keyPrefix, 2);
  }

  /** As above, with at least {@code minSegments} segments (a compacted copy may shrink to one). */
  static RemoteLogManifest storeHoldsExactlyTheManifest(
      RemoteSegmentStore store, TopicIdPartition tp, String keyPrefix, int minSegments)
      throws Exception {
    RemoteLogManifest manifest = RemoteLogManifest.decode(store.readManifest(tp).orElseThrow());
    assertThat(manifest.readable())
        .hasSameSizeAs(manifest.segments())
        .hasSizeGreaterThanOrEqualTo(minSegments);
    String dir = keyPrefix + tp.topic() + "-" + tp.topicId() + "-" + tp.partition() + "/";
    TreeSet<String> expected = new TreeSet<>();
    for (RemoteSegment s : manifest.segments()) {
      String stem = dir + String.format("%020d", s.baseOffset()) + "-" + s.id();
      for (RemoteFileType type :
          List.of(
              RemoteFileType.LOG,
              RemoteFileType.OFFSET_INDEX,
              RemoteFileType.TIME_INDEX,
              RemoteFileType.PRODUCER_SNAPSHOT,
              RemoteFileType.LEADER_EPOCH)) {
        expected.add(stem + type.suffix());
      }
    }
    expected.add(dir + "manifest");
    assertThat(new TreeSet<>(store.listObjects(tp))).isEqualTo(expected);
    return manifest;
  }

  /**
   * As {@link #storeHoldsExactlyTheManifest}, and the manifest's segments cover the copied offsets
   * from 0 without a gap, none a re-upload of offsets already covered.
   */
  static List<RemoteSegment> storeHoldsContiguousSegmentsFromZero(
      RemoteSegmentStore store, TopicIdPartition tp, String keyPrefix) throws Exception {
    List<RemoteSegment> segments = storeHoldsExactlyTheManifest(store, tp, keyPrefix).segments();
    assertThat(segments.get(0).baseOffset()).isZero();
    for (int i = 1; i < segments.size(); i++) {
      assertThat(segments.get(i).baseOffset())
          .as("segment %d starts right after the one before it", i)
          .isEqualTo(segments.get(i - 1).nextOffset());
    }
    return segments;
  }

  /** The partition with its topic's id, under which its remote data is kept. */
  static TopicIdPartition withTopicId(Admin admin, TopicPartition tp) throws Exception {
    Uuid id =
        admin.describeTopics(List.of(tp.topic())).allTopicNames().get().get(tp.topic()).topicId();
    return new TopicIdPartition(id, tp);
  }
}
