package io.brook.simulation;

import io.brook.metadata.image.PartitionImage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The clients: an idempotent producer sending one record at a time with acks=all, to each partition
 * in turn, to the partition's leader as the controller's latest image names it, recording every
 * write acknowledged with NONE and its offset; and a consumer per partition reading from the leader
 * up to the high watermark, recording what it read and the high watermarks it saw. They reach the
 * brokers only through the network.
 *
 * <p>The producer keeps one write in flight per partition and sends it again, with the same
 * sequence number, until a leader acknowledges it: after a retriable error, when the partition's
 * leader changes (a real client's connection to a dead or deposed leader fails and it looks up the
 * new one), or after {@link #REQUEST_TIMEOUT_MS} without an answer. A retry can therefore reach a
 * leader that already holds the first attempt, appended or still waiting for its replicas, and the
 * leader must answer it from its producer state: with the first attempt's offset once it is
 * committed, never with a second copy. An answer that refuses the producer's sequence or id (which
 * a real client turns into a new epoch, and so a duplicate) breaks the run.
 */
final class Workload {
  static final int PRODUCER_ID = 100;
  static final int CONSUMER_ID = 101;
  static final int PRODUCE_TIMEOUT_MS = 1_000;

  /** How long the producer waits for an answer before sending the write again. */
  static final int REQUEST_TIMEOUT_MS = 1_500;

  static final long IDEMPOTENT_PRODUCER_ID = 4_000;
  static final int CONSUMER_MAX_WAIT_MS = 100;

  /** A write the producer was told is committed, when it was sent and acknowledged. */
  record Acked(TopicPartition tp, long offset, String value, long sentMs, long ackedMs) {}

  private final Simulation simulation;
  private final Endpoint producer = new Client(PRODUCER_ID);
  private final Endpoint consumer = new Client(CONSUMER_ID);
  private final List<Acked> acked = new ArrayList<>();
  private final Map<TopicPartition, Reader> readers = new LinkedHashMap<>();
  private final Map<TopicPartition, Sender> senders = new LinkedHashMap<>();
  private final long produceIntervalMs;
  private final long produceUntilMs;
  private int sent;
  private int turn;
  private int retries;

  /** The consumer of one partition. */
  private static final class Reader {
    long position;
    long inFlightSince = -1;
  }

  /** The producer's state for one partition: the next sequence number and the write in flight. */
  private static final class Sender {
    int nextSequence;
    InFlight inFlight;
  }

  /** A write until it is acknowledged: its attempts share its value and sequence number. */
  private static final class InFlight {
    final String value;
    final int sequence;
    final long firstSentMs;
    int attempts;

    /** The leader of the current attempt, or -1 when none is awaiting an answer. */
    int awaitedFrom = -1;

    long attemptSentMs;

    InFlight(String value, int sequence, long firstSentMs) {
      this.value = value;
      this.sequence = sequence;
      this.firstSentMs = firstSentMs;
    }
  }

  private record Client(int nodeId) implements Endpoint {
    @Override
    public boolean alive() {
      return true;
    }
  }

  Workload(Simulation simulation, long produceIntervalMs, long produceUntilMs) {
    this.simulation = simulation;
    this.produceIntervalMs = produceIntervalMs;
    this.produceUntilMs = produceUntilMs;
    for (TopicPartition tp : Simulation.PARTITIONS) {
      readers.put(tp, new Reader());
      senders.put(tp, new Sender());
    }
  }

  void start() {
    simulation.scheduler().schedulePeriodic("produce", this::produce, 0, produceIntervalMs);
    simulation.scheduler().schedulePeriodic("consume", this::consume, 0, 200);
  }

  List<Acked> acked() {
    return acked;
  }

  int sent() {
    return sent;
  }

  /** Writes sent again (the same sequence number) after a failed or unanswered attempt. */
  int retries() {
    return retries;
  }

  long consumed() {
    return readers.values().stream().mapToLong(r -> r.position).sum();
  }

  private Optional<PartitionImage> image(TopicPartition tp) {
    return simulation.controllers().image().partition(tp.topic(), tp.partition());
  }

  private Optional<BrokerProcess> leader(TopicPartition tp) {
    return image(tp)
        .filter(PartitionImage::hasLeader)
        .flatMap(p -> simulation.broker(p.leader()).process());
  }

  /**
   * The partition whose turn it is: sends its write in flight again if that needs it, else, until
   * {@code produceUntilMs}, a new one. Retries go on after that, so that no write is left
   * half-sent.
   */
  private void produce() {
    TopicPartition tp = Simulation.PARTITIONS.get(turn++ % Simulation.PARTITIONS.size());
    Sender sender = senders.get(tp);
    InFlight write = sender.inFlight;
    long now = simulation.nowMs();
    Optional<BrokerProcess> leader = leader(tp);
    if (write == null) {
      if (now >= produceUntilMs || leader.isEmpty()) {
        return;
      }
      write = new InFlight("r" + sent++, sender.nextSequence++, now);
      sender.inFlight = write;
    } else if (write.awaitedFrom >= 0
        && now - write.attemptSentMs < REQUEST_TIMEOUT_MS
        && leader.map(BrokerProcess::nodeId).orElse(-1) == write.awaitedFrom) {
      return; // the current attempt may still be answered
    } else {
      write.awaitedFrom = -1;
    }
    if (leader.isEmpty() || !leader.get().accepting()) {
      return; // no leader known, or it refuses connections (not yet unfenced): the next turn
    }
    if (write.attempts > 0) {
      retries++;
    }
    send(tp, write, leader.get());
  }

  private void send(TopicPartition tp, InFlight write, BrokerProcess to) {
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(PRODUCE_TIMEOUT_MS);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(tp.topic());
    data.partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(tp.partition())
                .setRecords(
                    MemoryRecords.withIdempotentRecords(
                        Compression.NONE,
                        IDEMPOTENT_PRODUCER_ID,
                        (short) 0,
                        write.sequence,
                        new SimpleRecord(
                            simulation.time().milliseconds(),
                            write.value.getBytes(StandardCharsets.UTF_8)))));
    request.topicData().add(data);
    int attempt = ++write.attempts;
    write.awaitedFrom = to.nodeId();
    write.attemptSentMs = simulation.nowMs();
    simulation
        .network()
        .<ProduceResponseData>call(
            producer,
            to,
            "produce "
                + write.value
                + " (seq "
                + write.sequence
                + ", attempt "
                + attempt
                + ") to "
                + tp,
            reply -> to.handleProduce(request, reply),
            response -> onProduced(tp, write, attempt, response));
  }

  private void onProduced(
      TopicPartition tp, InFlight write, int attempt, ProduceResponseData response) {
    Sender sender = senders.get(tp);
    if (sender.inFlight != write || write.attempts != attempt) {
      return; // an attempt given up: a real client's connection to it is closed
    }
    write.awaitedFrom = -1;
    ProduceResponseData.PartitionProduceResponse answer =
        response.responses().iterator().next().partitionResponses().get(0);
    Errors error = Errors.forCode(answer.errorCode());
    if (error == Errors.NONE) {
      sender.inFlight = null;
      Acked done =
          new Acked(tp, answer.baseOffset(), write.value, write.firstSentMs, simulation.nowMs());
      acked.add(done);
      simulation.record(
          "acked " + write.value + "@" + tp + ":" + answer.baseOffset() + " attempt " + attempt);
      simulation.invariants().onAcked(done);
    } else if (error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
        || error == Errors.UNKNOWN_PRODUCER_ID
        || error == Errors.INVALID_PRODUCER_EPOCH
        || error == Errors.DUPLICATE_SEQUENCE_NUMBER) {
      simulation
          .invariants()
          .fail(
              "the idempotent producer's write "
                  + write.value
                  + " (sequence "
                  + write.sequence
                  + ", attempt "
                  + attempt
                  + ") to "
                  + tp
                  + " was answered "
                  + error
                  + ": a client would start a new epoch and could write it twice");
    }
    // Any other error is retriable: the write goes again at the partition's next turn.
  }

  private void consume() {
    readers.forEach(this::consume);
  }

  private void consume(TopicPartition tp, Reader reader) {
    long now = simulation.nowMs();
    if (reader.inFlightSince >= 0 && now - reader.inFlightSince < 1_000) {
      return;
    }
    Optional<BrokerProcess> leader = leader(tp);
    if (leader.isEmpty()) {
      return;
    }
    int leaderEpoch = image(tp).orElseThrow().leaderEpoch();
    long position = reader.position;
    FetchRequestData request =
        new FetchRequestData()
            .setMaxWaitMs(CONSUMER_MAX_WAIT_MS)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .setReplicaId(-1);
    FetchRequestData.FetchTopic topic =
        new FetchRequestData.FetchTopic()
            .setTopic(tp.topic())
            .setTopicId(simulation.topicId(tp.topic()));
    topic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(tp.partition())
                .setFetchOffset(position)
                .setCurrentLeaderEpoch(leaderEpoch)
                .setPartitionMaxBytes(1 << 20));
    request.topics().add(topic);
    reader.inFlightSince = now;
    long started = now;
    BrokerProcess to = leader.get();
    simulation
        .network()
        .<FetchResponseData>call(
            consumer,
            to,
            "consume " + tp + "@" + position,
            reply -> to.handleFetch(request, reply),
            response -> onConsumed(tp, reader, started, position, leaderEpoch, response));
  }

  private void onConsumed(
      TopicPartition tp,
      Reader reader,
      long started,
      long position,
      int leaderEpoch,
      FetchResponseData response) {
    if (reader.inFlightSince != started) {
      return;
    }
    reader.inFlightSince = -1;
    if (position != reader.position || response.errorCode() != Errors.NONE.code()) {
      return;
    }
    FetchResponseData.PartitionData data = response.responses().get(0).partitions().get(0);
    if (data.errorCode() != Errors.NONE.code()) {
      return;
    }
    Invariants invariants = simulation.invariants();
    invariants.onConsumerHighWatermark(tp, leaderEpoch, data.highWatermark());
    MemoryRecords records = (MemoryRecords) data.records();
    if (records == null) {
      return;
    }
    for (RecordBatch batch : records.batches()) {
      for (Record record : batch) {
        if (record.offset() < reader.position) {
          continue;
        }
        if (record.offset() >= data.highWatermark()) {
          invariants.fail(
              "consumer of "
                  + tp
                  + " got offset "
                  + record.offset()
                  + " at or above the high watermark "
                  + data.highWatermark());
          return;
        }
        invariants.onConsumed(tp, record.offset(), value(record.value()));
        reader.position = record.offset() + 1;
      }
    }
  }

  static String value(ByteBuffer bytes) {
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    return new String(array, StandardCharsets.UTF_8);
  }
}
