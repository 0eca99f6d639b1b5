package io.brook.coordinator.group.offsets;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.Groups;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes offsets nobody will read again, every {@code offsets.retention.check.interval.ms}: those
 * of a group that has been empty for {@code offsets.retention.minutes}, of a simple group whose
 * last commit is that old, and of topics a live group stopped consuming. An empty group left with
 * no offsets is deleted too, as Kafka does, so abandoned groups do not pile up. Pending
 * transactional offsets hold both back: their partition's offset does not expire and their group is
 * not deleted until the transaction ends.
 */
public final class OffsetExpiry {
  private static final Logger log = LoggerFactory.getLogger(OffsetExpiry.class);
  private static final String TIMER_KEY = "offsets-expiry";

  private final ShardContext context;
  private final GroupConfig config;
  private final Groups groups;
  private final OffsetStore offsets;

  public OffsetExpiry(
      ShardContext context, GroupConfig config, Groups groups, OffsetStore offsets) {
    this.context = context;
    this.config = config;
    this.groups = groups;
    this.offsets = offsets;
  }

  public void start() {
    context.timer().schedule(TIMER_KEY, config.offsetsRetentionCheckIntervalMs(), this::runOnce);
  }

  /** Expires what is due now and schedules the next check. */
  void runOnce() {
    try {
      List<CoordinatorRecord> tombstones = expiredNow();
      if (!tombstones.isEmpty()) {
        context.write(tombstones);
        log.info(
            "Expired committed offsets partition={} count={}",
            context.partition(),
            tombstones.size());
      }
    } catch (RuntimeException e) {
      log.warn("Offset expiry failed partition={}", context.partition(), e);
    }
    start();
  }

  /** Tombstones for every offset that has expired and every empty group left without offsets. */
  public List<CoordinatorRecord> expiredNow() {
    long now = context.nowMs();
    List<CoordinatorRecord> tombstones = new ArrayList<>();
    for (String groupId : List.copyOf(offsets.groupIds())) {
      List<CoordinatorRecord> expired = expiredOffsets(groupId, now);
      tombstones.addAll(expired);
      Optional<Group> group = groups.get(groupId);
      if (group.isPresent()
          && group.get().isEmpty()
          && expired.size() == offsets.committed(groupId).size()
          && !offsets.pending().hasPending(groupId)) {
        tombstones.addAll(group.get().tombstones());
      }
    }
    for (Group group : List.copyOf(groups.all())) {
      if (group.isEmpty() && !offsets.hasOffsetsOrPending(group.groupId())) {
        tombstones.addAll(group.tombstones());
      }
    }
    return tombstones;
  }

  private List<CoordinatorRecord> expiredOffsets(String groupId, long now) {
    long retention = config.offsetsRetentionMs();
    Optional<Group> group = groups.get(groupId);
    if (group.isEmpty()) {
      return offsets.expire(groupId, (tp, c) -> now - c.commitTimestampMs() >= retention);
    }
    if (group.get().isEmpty()) {
      long emptySince = group.get().stateTimestampMs();
      return offsets.expire(
          groupId, (tp, c) -> now - Math.max(emptySince, c.commitTimestampMs()) >= retention);
    }
    Group live = group.get();
    return offsets.expire(
        groupId,
        (tp, c) -> !live.isSubscribedTo(tp.topic()) && now - c.commitTimestampMs() >= retention);
  }
}
