package io.brook.simulation;

import io.brook.broker.replica.Partition;
import io.brook.metadata.image.PartitionImage;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The properties every run must keep, checked after every event:
 *
 * <ul>
 *   <li>No acknowledged write is lost: each is in the log of the current leader (once it acts in
 *       the controller's leader epoch) and of every live ISR member, at its offset.
 *   <li>No offset is reused: every replica's log below its high watermark, every acknowledged write
 *       and every record a consumer read agree with one history (offset to record).
 *   <li>The high watermark a consumer sees never moves back within a leader epoch, and a consumer
 *       never gets a record at or above the high watermark.
 *   <li>At most one leader per leader epoch (by the controller's images and by every broker's own
 *       view), and leader epochs only increase (in the controller's image and on each broker).
 * </ul>
 *
 * The first violation is kept; the runner stops the run and reports it with the seed.
 */
final class Invariants {
  private final Simulation simulation;
  private final TopicPartition tp;

  /** The one history: offset to record value, as committed. */
  private final Map<Long, String> committed = new HashMap<>();

  private final List<Workload.Acked> acked = new ArrayList<>();
  private final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
  private final Map<Integer, Integer> highestEpochSeen = new HashMap<>();
  private final Map<Integer, Long> consumerHighWatermark = new HashMap<>();
  private final Map<ReplicaLog, LogView> views = new IdentityHashMap<>();
  private int controllerEpoch = -1;
  private String failure;

  /** A replica's log as read so far, offset by offset (the simulation's logs start at 0). */
  private static final class LogView {
    final List<String> values = new ArrayList<>();
    int committedChecked;
    int ackedChecked;
  }

  Invariants(Simulation simulation, TopicPartition tp) {
    this.simulation = simulation;
    this.tp = tp;
  }

  String failure() {
    return failure;
  }

  void fail(String message) {
    if (failure == null) {
      failure = message;
    }
  }

  void onAcked(Workload.Acked write) {
    acked.add(write);
    agree(write.offset(), write.value(), "acknowledged write");
  }

  void onConsumed(long offset, String value) {
    agree(offset, value, "consumed record");
  }

  void onConsumerHighWatermark(int leaderEpoch, long highWatermark) {
    Long previous = consumerHighWatermark.put(leaderEpoch, highWatermark);
    if (previous != null && highWatermark < previous) {
      consumerHighWatermark.put(leaderEpoch, previous);
      fail(
          "the consumer saw the high watermark move back from "
              + previous
              + " to "
              + highWatermark
              + " in leader epoch "
              + leaderEpoch);
    }
  }

  private void agree(long offset, String value, String what) {
    String known = committed.putIfAbsent(offset, value);
    if (known != null && !known.equals(value)) {
      fail(
          what
              + " at offset "
              + offset
              + " is "
              + value
              + " but "
              + known
              + " was committed there");
    }
  }

  void check() {
    if (failure != null) {
      return;
    }
    Optional<PartitionImage> image = simulation.controller().image().partition(tp.topic(), 0);
    image.ifPresent(this::checkControllerEpochs);
    Map<ReplicaLog, LogView> live = new IdentityHashMap<>();
    for (SimulatedBroker broker : simulation.brokers()) {
      Optional<Partition> partition = broker.process().flatMap(process -> process.partition(tp));
      if (partition.isEmpty() || partition.get().log().isOffline()) {
        continue;
      }
      Partition p = partition.get();
      checkBrokerEpochs(broker.nodeId(), p);
      ReplicaLog log = p.log();
      LogView view = views.computeIfAbsent(log, l -> new LogView());
      live.put(log, view);
      read(log, view);
      checkCommitted(broker.nodeId(), log, view);
      if (image.isPresent() && mustHoldAcked(broker.nodeId(), p, image.get())) {
        checkAcked(broker.nodeId(), view);
      }
    }
    views.keySet().retainAll(live.keySet());
  }

  private void checkControllerEpochs(PartitionImage p) {
    if (p.leaderEpoch() < controllerEpoch) {
      fail(
          "the controller's leader epoch went back from "
              + controllerEpoch
              + " to "
              + p.leaderEpoch());
    }
    controllerEpoch = Math.max(controllerEpoch, p.leaderEpoch());
    if (p.hasLeader()) {
      leader(p.leaderEpoch(), p.leader(), "the controller");
    }
  }

  private void checkBrokerEpochs(int nodeId, Partition p) {
    int epoch = p.state().leaderEpoch();
    if (epoch < 0) {
      return;
    }
    Integer highest = highestEpochSeen.get(nodeId);
    if (highest != null && epoch < highest) {
      fail("broker " + nodeId + " went back from leader epoch " + highest + " to " + epoch);
    }
    highestEpochSeen.merge(nodeId, epoch, Math::max);
    if (p.isLeader()) {
      leader(epoch, nodeId, "broker " + nodeId);
    }
  }

  private void leader(int epoch, int leaderId, String who) {
    Integer known = leaderOfEpoch.putIfAbsent(epoch, leaderId);
    if (known != null && known != leaderId) {
      fail(who + " says broker " + leaderId + " leads epoch " + epoch + ", led by broker " + known);
    }
  }

  /**
   * The leader once it acts in the controller's epoch, and every ISR member: an ISR member had
   * every write up to the leader's high watermark when it joined, and never truncates below it.
   */
  private static boolean mustHoldAcked(int nodeId, Partition p, PartitionImage image) {
    if (image.leader() == nodeId) {
      return p.isLeader() && p.state().leaderEpoch() == image.leaderEpoch();
    }
    return image.isr().contains(nodeId);
  }

  private void checkCommitted(int nodeId, ReplicaLog log, LogView view) {
    long highWatermark = Math.min(log.highWatermark(), view.values.size());
    for (int offset = view.committedChecked; offset < highWatermark; offset++) {
      String value = view.values.get(offset);
      String known = committed.putIfAbsent((long) offset, value);
      if (known != null && !known.equals(value)) {
        fail(
            "broker "
                + nodeId
                + " holds "
                + value
                + " at offset "
                + offset
                + " below its high watermark "
                + log.highWatermark()
                + ", but "
                + known
                + " was committed there");
        return;
      }
    }
    view.committedChecked = (int) Math.max(view.committedChecked, highWatermark);
  }

  private void checkAcked(int nodeId, LogView view) {
    for (int i = view.ackedChecked; i < acked.size(); i++) {
      Workload.Acked write = acked.get(i);
      String held =
          write.offset() < view.values.size() ? view.values.get((int) write.offset()) : null;
      if (!write.value().equals(held)) {
        fail(
            "acknowledged write "
                + write.value()
                + " at offset "
                + write.offset()
                + " is missing from broker "
                + nodeId
                + " (holds "
                + held
                + ", log end "
                + view.values.size()
                + ")");
        return;
      }
    }
    view.ackedChecked = acked.size();
  }

  /** Brings {@code view} up to the log's end, dropping what a truncation removed. */
  private static void read(ReplicaLog log, LogView view) {
    long end = log.logEndOffset();
    if (end < view.values.size()) {
      view.values.subList((int) end, view.values.size()).clear();
      view.committedChecked = Math.min(view.committedChecked, (int) end);
      view.ackedChecked = 0;
    }
    while (view.values.size() < end) {
      LogReadResult result = log.read(view.values.size(), 1 << 20, end, true);
      MemoryRecords records = result.slice().copyToMemory();
      int before = view.values.size();
      for (RecordBatch batch : records.batches()) {
        for (Record record : batch) {
          if (record.offset() == view.values.size()) {
            view.values.add(Workload.value(record.value()));
          }
        }
      }
      if (view.values.size() == before) {
        throw new IllegalStateException("no record at offset " + before + " below log end " + end);
      }
    }
  }
}
