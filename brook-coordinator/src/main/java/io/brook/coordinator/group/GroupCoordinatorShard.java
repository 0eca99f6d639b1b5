package io.brook.coordinator.group;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.group.classic.ClassicGroupManager;
import io.brook.coordinator.group.consumer.ConsumerGroupManager;
import io.brook.coordinator.group.offsets.OffsetExpiry;
import io.brook.coordinator.group.offsets.OffsetRecords;
import io.brook.coordinator.group.offsets.OffsetService;
import io.brook.coordinator.group.offsets.OffsetStore;
import io.brook.coordinator.group.offsets.TransactionalOffsetCommits;
import io.brook.coordinator.group.share.ShareGroupManager;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorShard;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator's state for one {@code __consumer_offsets} partition: its groups, of either
 * protocol, and their committed offsets. Runs on the shard's thread.
 */
public final class GroupCoordinatorShard implements CoordinatorShard {
  private static final Logger log = LoggerFactory.getLogger(GroupCoordinatorShard.class);

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups = new Groups();
  private final OffsetStore offsets = new OffsetStore();
  private final OffsetService offsetService;
  private final TransactionalOffsetCommits transactionalOffsets;
  private final OffsetExpiry offsetExpiry;
  private final GroupListings listings;
  private final List<GroupTypeManager> managers = new ArrayList<>();
  private final ConsumerGroupManager consumer;
  private final ClassicGroupManager classic;
  private final ShareGroupManager share;

  public GroupCoordinatorShard(ShardContext context, GroupConfig config) {
    this.context = context;
    this.config = config;
    this.offsetService = new OffsetService(context, config, groups, offsets);
    this.transactionalOffsets = new TransactionalOffsetCommits(context, config, groups);
    this.offsetExpiry = new OffsetExpiry(context, config, groups, offsets);
    this.listings = new GroupListings(context, groups, offsets);
    this.consumer = new ConsumerGroupManager(context, config, groups);
    managers.add(consumer);
    this.classic = new ClassicGroupManager(context, config, groups, offsets);
    managers.add(classic);
    this.share = new ShareGroupManager(context, config, groups);
    managers.add(share);
  }

  public ShardContext context() {
    return context;
  }

  public GroupConfig config() {
    return config;
  }

  public Groups groups() {
    return groups;
  }

  public OffsetStore offsets() {
    return offsets;
  }

  /** OffsetCommit, OffsetFetch and OffsetDelete. */
  public OffsetService offsetService() {
    return offsetService;
  }

  /** TxnOffsetCommit: offsets pending until their transaction's marker. */
  public TransactionalOffsetCommits transactionalOffsets() {
    return transactionalOffsets;
  }

  /** KIP-848 consumer groups: ConsumerGroupHeartbeat and ConsumerGroupDescribe. */
  public ConsumerGroupManager consumer() {
    return consumer;
  }

  /** Share groups (KIP-932): ShareGroupHeartbeat and ShareGroupDescribe. */
  public ShareGroupManager share() {
    return share;
  }

  /** JoinGroup, SyncGroup, Heartbeat, LeaveGroup and DescribeGroups. */
  public ClassicGroupManager classic() {
    return classic;
  }

  /** ListGroups and DeleteGroups. */
  public GroupListings listings() {
    return listings;
  }

  @Override
  public void replay(CoordinatorRecord record, long offset) {
    replay(record, offset, CoordinatorLog.NO_PRODUCER_ID, CoordinatorLog.NO_PRODUCER_EPOCH);
  }

  /**
   * Offset records of a transaction stay pending until its marker; only offsets are ever written
   * transactionally (TxnOffsetCommit), so group records apply at once whatever their batch.
   */
  @Override
  public void replay(CoordinatorRecord record, long offset, long producerId, short producerEpoch) {
    boolean handled =
        MalformedRecordException.reading(
            record,
            () -> {
              if (OffsetRecords.handles(record.type())) {
                offsets.replay(record, offset, producerId);
                return true;
              }
              for (GroupTypeManager manager : managers) {
                if (manager.replay(record, offset)) {
                  return true;
                }
              }
              return false;
            });
    if (handled) {
      return;
    }
    log.debug(
        "Ignoring a record of unknown type partition={} type={} offset={}",
        context.partition(),
        record.type(),
        offset);
  }

  @Override
  public void replayEndTransactionMarker(long producerId, short producerEpoch, TxnResult result) {
    offsets.replayEndTransactionMarker(producerId, result);
  }

  @Override
  public void onLoaded() {
    managers.forEach(GroupTypeManager::onLoaded);
    offsetExpiry.start();
  }

  @Override
  public void onUnloaded() {
    managers.forEach(GroupTypeManager::onUnloaded);
  }

  @Override
  public void onMetadata(io.brook.metadata.image.MetadataImage image) {
    for (GroupTypeManager manager : managers) {
      manager.onMetadata(image);
    }
  }

  @Override
  public void onConnectionClosed(String connectionId) {
    for (GroupTypeManager manager : managers) {
      manager.onConnectionClosed(connectionId);
    }
  }
}
