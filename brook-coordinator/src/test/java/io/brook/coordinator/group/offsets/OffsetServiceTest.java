package io.brook.coordinator.group.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.group.offsets.OffsetService.CommitRequest;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.testing.FakeShardContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OffsetServiceTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final TopicPartition Q0 = new TopicPartition("refunds", 0);

  /** A record type no manager claims, so the test sees the tombstone without side effects. */
  private static final short GROUP_TOMBSTONE_TYPE = 99;

  private static final long RETENTION_MS = 7L * 24 * 3600 * 1000;

  private final FakeShardContext context = new FakeShardContext(3, 1_000_000L);
  private GroupCoordinatorShard shard;

  /** A group with one member subscribed to some topics, or empty since a given time. */
  static final class TestGroup implements Group {
    final String id;
    final Set<String> topics;
    final long emptySinceMs;

    TestGroup(String id, Set<String> topics, long emptySinceMs) {
      this.id = id;
      this.topics = topics;
      this.emptySinceMs = emptySinceMs;
    }

    @Override
    public String groupId() {
      return id;
    }

    @Override
    public GroupType type() {
      return GroupType.CLASSIC;
    }

    @Override
    public String stateName() {
      return topics.isEmpty() ? "Empty" : "Stable";
    }

    @Override
    public String protocolType() {
      return "consumer";
    }

    @Override
    public boolean isEmpty() {
      return topics.isEmpty();
    }

    @Override
    public long stateTimestampMs() {
      return emptySinceMs;
    }

    @Override
    public boolean isSubscribedTo(String topic) {
      return topics.contains(topic);
    }

    @Override
    public void validateOffsetCommit(
        String memberId, String instanceId, int generation, short apiVersion) {
      if (generation != 4) {
        throw new IllegalGenerationException("generation " + generation);
      }
    }

    @Override
    public void validateOffsetFetch(String memberId, int memberEpoch) {}

    @Override
    public void validateOffsetDelete() {}

    @Override
    public void validateDeleteGroup() {}

    @Override
    public List<CoordinatorRecord> tombstones() {
      return List.of(
          CoordinatorRecord.tombstone(
              GROUP_TOMBSTONE_TYPE,
              java.nio.ByteBuffer.wrap(id.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }
  }

  @BeforeEach
  void setUp() {
    shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);
    shard.onLoaded();
  }

  private Map<TopicPartition, Errors> commit(
      String group, int generation, short version, Map<TopicPartition, PartitionCommit> offsets) {
    return shard
        .offsetService()
        .commit(
            new CommitRequest(
                group, generation < 0 ? "" : "m-1", null, generation, version, offsets))
        .join();
  }

  private static Map<TopicPartition, PartitionCommit> offsets(Object... pairs) {
    Map<TopicPartition, PartitionCommit> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((TopicPartition) pairs[i], new PartitionCommit((Long) pairs[i + 1], 3, "m"));
    }
    return out;
  }

  private Optional<CommittedOffset> fetch(String group, TopicPartition tp) {
    return shard.offsetService().fetch(group, null, -1, List.of(tp)).get(tp);
  }

  @Test
  void aSimpleGroupCommitsAndReadsBack() {
    assertThat(commit("g", -1, (short) 9, offsets(P0, 10L, P1, 20L)))
        .containsExactly(Map.entry(P0, Errors.NONE), Map.entry(P1, Errors.NONE));
    assertThat(fetch("g", P0)).contains(new CommittedOffset(10, 3, "m", 1_000_000L));
    assertThat(fetch("g", Q0)).isEmpty();
    assertThat(shard.offsetService().fetch("g", null, -1, null)).containsOnlyKeys(P0, P1);
  }

  @Test
  void replayingTheRecordsRebuildsTheSameOffsets() {
    commit("g", -1, (short) 9, offsets(P0, 10L, P1, 20L));
    commit("g", -1, (short) 9, offsets(P0, 15L));
    shard.offsetService().delete("g", List.of(P1)).join();
    GroupCoordinatorShard fresh = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.replayInto(fresh);
    assertThat(fresh.offsets().committed("g")).isEqualTo(shard.offsets().committed("g"));
    assertThat(fresh.offsets().committed("g")).containsOnlyKeys(P0);
    assertThat(fresh.offsets().committed("g", P0).orElseThrow().offset()).isEqualTo(15);
  }

  @Test
  void aMemberOfAMissingGroupIsToldByVersion() {
    assertThat(commit("gone", 5, (short) 8, offsets(P0, 1L)).get(P0))
        .isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(commit("gone", 5, (short) 9, offsets(P0, 1L)).get(P0))
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    assertThat(context.records()).isEmpty();
  }

  @Test
  void theGroupValidatesItsMembersCommits() {
    shard.groups().put(new TestGroup("live", Set.of("orders"), 0));
    assertThat(commit("live", 3, (short) 9, offsets(P0, 1L)).get(P0))
        .isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(commit("live", 4, (short) 9, offsets(P0, 1L)).get(P0)).isEqualTo(Errors.NONE);
  }

  @Test
  void oversizedMetadataIsRefusedPerPartition() {
    Map<TopicPartition, PartitionCommit> request = new LinkedHashMap<>();
    request.put(P0, new PartitionCommit(1, -1, "x".repeat(4097)));
    request.put(P1, new PartitionCommit(2, -1, "ok"));
    assertThat(commit("g", -1, (short) 9, request))
        .containsExactly(
            Map.entry(P0, Errors.OFFSET_METADATA_TOO_LARGE), Map.entry(P1, Errors.NONE));
    assertThat(fetch("g", P0)).isEmpty();
  }

  @Test
  void aFailedWriteIsReportedAsKafkaDoes() {
    context.failWrites(new CoordinatorNotAvailableException("disk"));
    assertThat(commit("g", -1, (short) 9, offsets(P0, 1L)).get(P0))
        .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    context.failWrites(new RecordTooLargeException("big"));
    assertThat(commit("g", -1, (short) 9, offsets(P0, 1L)).get(P0))
        .isEqualTo(Errors.INVALID_COMMIT_OFFSET_SIZE);
  }

  @Test
  void theCommitIsAcknowledgedOnlyOnceDurable() {
    context.holdCommits(true);
    var pending =
        shard
            .offsetService()
            .commit(new CommitRequest("g", "", null, -1, (short) 9, offsets(P0, 1L)));
    assertThat(pending).isNotDone();
    context.releaseCommits();
    assertThat(pending.join().get(P0)).isEqualTo(Errors.NONE);
  }

  @Test
  void offsetsOfSubscribedTopicsCannotBeDeleted() {
    commit("live", -1, (short) 9, offsets(P0, 1L, Q0, 2L));
    shard.groups().put(new TestGroup("live", Set.of("orders"), 0));
    OffsetService.DeleteResult result =
        shard.offsetService().delete("live", List.of(P0, Q0)).join();
    assertThat(result.groupError()).isEqualTo(Errors.NONE);
    assertThat(result.partitions())
        .containsEntry(P0, Errors.GROUP_SUBSCRIBED_TO_TOPIC)
        .containsEntry(Q0, Errors.NONE);
    assertThat(shard.offsets().committed("live")).containsOnlyKeys(P0);
    assertThat(shard.offsetService().delete("nobody", List.of(P0)).join().groupError())
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
  }

  @Test
  void offsetsExpireByGroupKind() {
    commit("simple", -1, (short) 9, offsets(P0, 1L));
    commit("empty", -1, (short) 9, offsets(P0, 1L));
    commit("live", -1, (short) 9, offsets(P0, 1L, Q0, 1L));
    long emptySince = context.nowMs() + RETENTION_MS / 2;
    shard.groups().put(new TestGroup("empty", Set.of(), emptySince));
    shard.groups().put(new TestGroup("live", Set.of("orders"), 0));

    context.advance(RETENTION_MS + 1);
    assertThat(shard.offsets().hasOffsets("simple")).isFalse();
    assertThat(shard.offsets().hasOffsets("empty")).isTrue();
    assertThat(shard.offsets().committed("live")).containsOnlyKeys(P0);

    context.advance(RETENTION_MS / 2 + 600_000);
    assertThat(shard.offsets().hasOffsets("empty")).isFalse();
    assertThat(shard.offsets().committed("live")).containsOnlyKeys(P0);
  }

  @Test
  void emptyGroupsWithoutOffsetsAreDeletedByTheExpiryCheck() {
    commit("empty-with-offsets", -1, (short) 9, offsets(P0, 1L));
    shard.groups().put(new TestGroup("empty-with-offsets", Set.of(), context.nowMs()));
    shard.groups().put(new TestGroup("empty-no-offsets", Set.of(), context.nowMs()));
    shard.groups().put(new TestGroup("live-no-offsets", Set.of("orders"), 0));

    context.advance(600_000);
    assertThat(deletedGroups()).containsExactly("empty-no-offsets");

    context.advance(RETENTION_MS);
    assertThat(deletedGroups()).containsExactly("empty-no-offsets", "empty-with-offsets");
  }

  private List<String> deletedGroups() {
    return context.records().stream()
        .filter(r -> r.type() == GROUP_TOMBSTONE_TYPE)
        .map(r -> java.nio.charset.StandardCharsets.UTF_8.decode(r.key().duplicate()).toString())
        .distinct()
        .toList();
  }

  @Test
  void groupsAreListedAndDeleted() {
    commit("simple", -1, (short) 9, offsets(P0, 1L));
    shard.groups().put(new TestGroup("live", Set.of("orders"), 0));
    assertThat(shard.listings().list(Set.of(), Set.of()))
        .extracting(l -> l.groupId() + ":" + l.state())
        .containsExactlyInAnyOrder("simple:Empty", "live:Stable");
    assertThat(shard.listings().list(Set.of("empty"), Set.of("classic")))
        .extracting(l -> l.groupId())
        .containsExactly("simple");
    assertThat(shard.listings().delete("simple").join()).isEqualTo(Errors.NONE);
    assertThat(shard.listings().delete("simple").join()).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    assertThat(shard.listings().list(Set.of(), Set.of()))
        .extracting(l -> l.groupId())
        .containsExactly("live");
  }
}
