package io.brook.coordinator.share;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.coordinator.share.generated.CoordinatorRecordType;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotKey;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotValue;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateValue;

/**
 * {@code __share_group_state} records, written and read with Kafka's generated classes: type 0
 * {@code ShareSnapshotKey}/{@code ShareSnapshotValue} (a share-partition's whole state) and type 1
 * {@code ShareUpdateKey}/{@code ShareUpdateValue} (a leader's update on top of the last snapshot),
 * both keyed by group id, topic id and partition, values at version 0.
 *
 * <p>Brook writes only snapshots: a leader's window is bounded ({@code
 * group.share.partition.max.record.locks}), so a whole state stays small, and with {@code
 * cleanup.policy=compact} the latest snapshot per share-partition is all the topic keeps, with no
 * pruning of older records needed (Kafka writes updates and deletes the records before each
 * share-partition's last snapshot instead). Loading applies updates too, so a partition Kafka wrote
 * loads. Deleting a share-partition's state writes tombstones for both keys.
 */
public final class ShareStateRecords {
  public static final short SNAPSHOT = CoordinatorRecordType.SHARE_SNAPSHOT.id();
  public static final short UPDATE = CoordinatorRecordType.SHARE_UPDATE.id();
  private static final short VALUE_VERSION = 0;

  private ShareStateRecords() {}

  public static boolean handles(short type) {
    return type == SNAPSHOT || type == UPDATE;
  }

  public static CoordinatorRecord snapshot(ShareStateKey key, ShareState state) {
    List<ShareSnapshotValue.StateBatch> batches = new ArrayList<>(state.batches().size());
    for (StateBatch b : state.batches()) {
      batches.add(
          new ShareSnapshotValue.StateBatch()
              .setFirstOffset(b.firstOffset())
              .setLastOffset(b.lastOffset())
              .setDeliveryState(b.deliveryState())
              .setDeliveryCount(b.deliveryCount()));
    }
    return GeneratedRecords.record(
        snapshotKey(key),
        VALUE_VERSION,
        new ShareSnapshotValue()
            .setSnapshotEpoch(state.snapshotEpoch())
            .setStateEpoch(state.stateEpoch())
            .setLeaderEpoch(state.leaderEpoch())
            .setStartOffset(state.startOffset())
            .setDeliveryCompleteCount(state.deliveryCompleteCount())
            .setCreateTimestamp(state.createTimestamp())
            .setWriteTimestamp(state.writeTimestamp())
            .setStateBatches(batches));
  }

  /** The tombstones removing every record of the share-partition. */
  public static List<CoordinatorRecord> tombstones(ShareStateKey key) {
    return List.of(
        GeneratedRecords.tombstone(snapshotKey(key)),
        GeneratedRecords.tombstone(
            new ShareUpdateKey()
                .setGroupId(key.groupId())
                .setTopicId(key.topicId())
                .setPartition(key.partition())));
  }

  private static ShareSnapshotKey snapshotKey(ShareStateKey key) {
    return new ShareSnapshotKey()
        .setGroupId(key.groupId())
        .setTopicId(key.topicId())
        .setPartition(key.partition());
  }

  /** The share-partition a record is about. */
  public static ShareStateKey key(CoordinatorRecord record) {
    if (record.type() == SNAPSHOT) {
      ShareSnapshotKey k = GeneratedRecords.readKey(record, ShareSnapshotKey::new);
      return new ShareStateKey(k.groupId(), k.topicId(), k.partition());
    }
    ShareUpdateKey k = GeneratedRecords.readKey(record, ShareUpdateKey::new);
    return new ShareStateKey(k.groupId(), k.topicId(), k.partition());
  }

  /** A snapshot record's state. */
  public static ShareState readSnapshot(CoordinatorRecord record) {
    ShareSnapshotValue v =
        GeneratedRecords.readValue(record, VALUE_VERSION, VALUE_VERSION, ShareSnapshotValue::new);
    List<StateBatch> batches = new ArrayList<>(v.stateBatches().size());
    for (ShareSnapshotValue.StateBatch b : v.stateBatches()) {
      batches.add(
          new StateBatch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
    }
    return new ShareState(
        v.snapshotEpoch(),
        v.stateEpoch(),
        v.leaderEpoch(),
        v.startOffset(),
        v.createTimestamp(),
        v.writeTimestamp(),
        batches);
  }

  /** An update record applied to {@code current}, the state its snapshot epoch refers to. */
  public static ShareState applyUpdate(CoordinatorRecord record, ShareState current) {
    ShareUpdateValue v =
        GeneratedRecords.readValue(record, VALUE_VERSION, VALUE_VERSION, ShareUpdateValue::new);
    List<StateBatch> batches = new ArrayList<>(v.stateBatches().size());
    for (ShareUpdateValue.StateBatch b : v.stateBatches()) {
      batches.add(
          new StateBatch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
    }
    ShareState merged =
        current.merge(v.leaderEpoch(), v.startOffset(), batches, current.writeTimestamp());
    // An update does not start a new snapshot.
    return new ShareState(
        current.snapshotEpoch(),
        merged.stateEpoch(),
        merged.leaderEpoch(),
        merged.startOffset(),
        merged.createTimestamp(),
        merged.writeTimestamp(),
        merged.batches());
  }
}
