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
 * The clients: a producer sending one record at a time with acks=all, to each partition in turn, to
 * the partition's leader as the controller's latest image names it, recording every write
 * acknowledged with NONE and its offset; and a consumer per partition reading from the leader up to
 * the high watermark, recording what it read and the high watermarks it saw. They reach the brokers
 * only through the network.
 */
final class Workload {
  static final int PRODUCER_ID = 100;
  static final int CONSUMER_ID = 101;
  static final int PRODUCE_TIMEOUT_MS = 1_000;
  static final int CONSUMER_MAX_WAIT_MS = 100;

  /** A write the producer was told is committed, when it was sent and acknowledged. */
  record Acked(TopicPartition tp, long offset, String value, long sentMs, long ackedMs) {}

  private final Simulation simulation;
  private final Endpoint producer = new Client(PRODUCER_ID);
  private final Endpoint consumer = new Client(CONSUMER_ID);
  private final List<Acked> acked = new ArrayList<>();
  private final Map<TopicPartition, Reader> readers = new LinkedHashMap<>();
  private final long produceIntervalMs;
  private final long produceUntilMs;
  private int sent;

  /** The consumer of one partition. */
  private static final class Reader {
    long position;
    long inFlightSince = -1;
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

  private void produce() {
    if (simulation.nowMs() >= produceUntilMs) {
      return;
    }
    TopicPartition tp = Simulation.PARTITIONS.get(sent % Simulation.PARTITIONS.size());
    String value = "r" + sent++;
    Optional<BrokerProcess> leader = leader(tp);
    if (leader.isEmpty()) {
      return;
    }
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(PRODUCE_TIMEOUT_MS);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(tp.topic());
    data.partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(tp.partition())
                .setRecords(
                    MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                            simulation.time().milliseconds(),
                            value.getBytes(StandardCharsets.UTF_8)))));
    request.topicData().add(data);
    BrokerProcess to = leader.get();
    long sentMs = simulation.nowMs();
    simulation
        .network()
        .<ProduceResponseData>call(
            producer,
            to,
            "produce " + value + " to " + tp,
            reply -> to.handleProduce(request, reply),
            response -> onProduced(tp, value, sentMs, response));
  }

  private void onProduced(
      TopicPartition tp, String value, long sentMs, ProduceResponseData response) {
    ProduceResponseData.PartitionProduceResponse answer =
        response.responses().iterator().next().partitionResponses().get(0);
    if (answer.errorCode() == Errors.NONE.code()) {
      Acked write = new Acked(tp, answer.baseOffset(), value, sentMs, simulation.nowMs());
      acked.add(write);
      simulation.record("acked " + value + "@" + tp + ":" + answer.baseOffset());
      simulation.invariants().onAcked(write);
    }
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
