package io.brook.simulation;

import io.brook.broker.replica.Partition;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.ReplicaLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The properties every run must keep, per partition, checked after every event:
 *
 * <ul>
 *   <li>No acknowledged write is lost: each is in the log of the current leader (once it serves
 *       requests in the controller's leader epoch) and of every live ISR member whose current life
 *       the controller has registered, at its offset.
 *   <li>No offset is reused: every replica's log below its high watermark, every acknowledged write
 *       and every record a consumer read agree with one history (offset to record).
 *   <li>Nothing is written twice: a record (the producer sends each value once, and again only as a
 *       retry of the same idempotent write) is at one offset of that history, never at two.
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
  private final Map<TopicPartition, PartitionChecks> partitions = new LinkedHashMap<>();
  private String failure;

  Invariants(Simulation simulation, List<TopicPartition> tps) {
    this.simulation = simulation;
    for (TopicPartition tp : tps) {
      partitions.put(tp, new PartitionChecks(tp));
    }
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
    PartitionChecks checks = partitions.get(write.tp());
    checks.acked.add(write);
    checks.agree(write.offset(), write.value(), "acknowledged write");
  }

  void onConsumed(TopicPartition tp, long offset, String value) {
    partitions.get(tp).agree(offset, value, "consumed record");
  }

  void onConsumerHighWatermark(TopicPartition tp, int leaderEpoch, long highWatermark) {
    PartitionChecks checks = partitions.get(tp);
    Long previous = checks.consumerHighWatermark.put(leaderEpoch, highWatermark);
    if (previous != null && highWatermark < previous) {
      checks.consumerHighWatermark.put(leaderEpoch, previous);
      fail(
          "the consumer of "
              + tp
              + " saw the high watermark move back from "
              + previous
              + " to "
              + highWatermark
              + " in leader epoch "
              + leaderEpoch);
    }
  }

  void check() {
    if (failure != null) {
      return;
    }
    MetadataImage image = simulation.controllers().image();
    for (PartitionChecks checks : partitions.values()) {
      checks.check(image);
      if (failure != null) {
        return;
      }
    }
  }

  /** A replica's log as read so far, offset by offset (the simulation's logs start at 0). */
  private static final class LogView {
    final List<String> values = new ArrayList<>();
    int committedChecked;
    int ackedChecked;
  }

  /** The state and checks of one partition. */
  private final class PartitionChecks {
    final TopicPartition tp;

    /** The one history: offset to record value, as committed. */
    final Map<Long, String> committed = new HashMap<>();

    /** The same history the other way: each value to the one offset it may have. */
    final Map<String, Long> offsetOf = new HashMap<>();

    final List<Workload.Acked> acked = new ArrayList<>();
    final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
    final Map<Integer, Integer> highestEpochSeen = new HashMap<>();
    final Map<Integer, Long> consumerHighWatermark = new HashMap<>();
    final Map<ReplicaLog, LogView> views = new IdentityHashMap<>();
    int controllerEpoch = -1;

    PartitionChecks(TopicPartition tp) {
      this.tp = tp;
    }

    void agree(long offset, String value, String what) {
      String known = committed.putIfAbsent(offset, value);
      if (known == null) {
        once(offset, value, what);
      } else if (!known.equals(value)) {
        fail(
            what
                + " at "
                + tp
                + " offset "
                + offset
                + " is "
                + value
                + " but "
                + known
                + " was committed there");
      }
    }

    /** Records that {@code value} is committed at {@code offset}; fails if it is at another. */
    private void once(long offset, String value, String where) {
      Long other = offsetOf.putIfAbsent(value, offset);
      if (other != null && other != offset) {
        fail(
            value
                + " is written twice at "
                + tp
                + ": at offset "
                + other
                + " and, in "
                + where
                + ", at offset "
                + offset);
      }
    }

    void check(MetadataImage metadata) {
      Optional<PartitionImage> image = metadata.partition(tp.topic(), tp.partition());
      image.ifPresent(this::checkControllerEpochs);
      Map<ReplicaLog, LogView> live = new IdentityHashMap<>();
      for (SimulatedBroker broker : simulation.brokers()) {
        Optional<BrokerProcess> process = broker.process();
        Optional<Partition> partition = process.flatMap(p -> p.partition(tp));
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
        if (image.isPresent() && mustHoldAcked(process.get(), p, image.get(), metadata)) {
          checkAcked(broker.nodeId(), view);
        }
      }
      views.keySet().retainAll(live.keySet());
    }

    private void checkControllerEpochs(PartitionImage p) {
      if (p.leaderEpoch() < controllerEpoch) {
        fail(
            "the controller's leader epoch of "
                + tp
                + " went back from "
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
        fail(
            "broker "
                + nodeId
                + " went back from leader epoch "
                + highest
                + " to "
                + epoch
                + " of "
                + tp);
      }
      highestEpochSeen.merge(nodeId, epoch, Math::max);
      if (p.isLeader()) {
        leader(epoch, nodeId, "broker " + nodeId);
      }
    }

    private void leader(int epoch, int leaderId, String who) {
      Integer known = leaderOfEpoch.putIfAbsent(epoch, leaderId);
      if (known != null && known != leaderId) {
        fail(
            who
                + " says broker "
                + leaderId
                + " leads epoch "
                + epoch
                + " of "
                + tp
                + ", led by broker "
                + known);
      }
    }

    /**
     * The leader once it serves in the controller's epoch, and every ISR member: an ISR member had
     * every write up to the leader's high watermark when it joined, and never truncates below it. A
     * member counts only once the controller has registered its current life: a life that restarted
     * after losing its page cache is in the ISR only until the controller learns of the restart,
     * which takes it out of every ISR.
     */
    private boolean mustHoldAcked(
        BrokerProcess process, Partition p, PartitionImage image, MetadataImage metadata) {
      if (image.leader() == process.nodeId()) {
        return process.accepting()
            && p.isLeader()
            && p.state().leaderEpoch() == image.leaderEpoch();
      }
      return image.isr().contains(process.nodeId())
          && metadata
              .broker(process.nodeId())
              .map(BrokerRegistration::incarnationId)
              .filter(process.incarnationId()::equals)
              .isPresent();
    }

    private void checkCommitted(int nodeId, ReplicaLog log, LogView view) {
      long highWatermark = Math.min(log.highWatermark(), view.values.size());
      for (int offset = view.committedChecked; offset < highWatermark; offset++) {
        String value = view.values.get(offset);
        String known = committed.putIfAbsent((long) offset, value);
        if (known == null) {
          once(offset, value, "broker " + nodeId + "'s log below its high watermark");
        } else if (!known.equals(value)) {
          fail(
              "broker "
                  + nodeId
                  + " holds "
                  + value
                  + " at "
                  + tp
                  + " offset "
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
                  + " at "
                  + tp
                  + " offset "
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
