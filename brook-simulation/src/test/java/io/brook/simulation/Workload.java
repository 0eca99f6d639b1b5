package io.brook.simulation;

import io.brook.metadata.image.PartitionImage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * The clients: a producer sending one record at a time with acks=all to the partition's leader as
 * the controller's latest image names it, recording every write acknowledged with NONE and its
 * offset; and a consumer reading from the leader up to the high watermark, recording what it read
 * and the high watermarks it saw. Both reach the brokers only through the network.
 */
final class Workload {
  static final int PRODUCER_ID = 100;
  static final int CONSUMER_ID = 101;
  static final int PRODUCE_TIMEOUT_MS = 1_000;
  static final int CONSUMER_MAX_WAIT_MS = 100;

  /** A write the producer was told is committed. */
  record Acked(long offset, String value) {}

  private final Simulation simulation;
  private final Endpoint producer = new Client(PRODUCER_ID);
  private final Endpoint consumer = new Client(CONSUMER_ID);
  private final List<Acked> acked = new ArrayList<>();
  private final long produceIntervalMs;
  private final long produceUntilMs;
  private int sent;
  private long consumerPosition;
  private long consumerInFlightSince = -1;

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
    return consumerPosition;
  }

  private Optional<BrokerProcess> leader() {
    return simulation
        .controller()
        .image()
        .partition(Simulation.TOPIC, 0)
        .filter(PartitionImage::hasLeader)
        .flatMap(p -> simulation.broker(p.leader()).process());
  }

  private void produce() {
    if (simulation.nowMs() >= produceUntilMs) {
      return;
    }
    Optional<BrokerProcess> leader = leader();
    if (leader.isEmpty()) {
      return;
    }
    String value = "r" + sent++;
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(PRODUCE_TIMEOUT_MS);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(Simulation.TOPIC);
    data.partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(0)
                .setRecords(
                    MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                            simulation.time().milliseconds(),
                            value.getBytes(StandardCharsets.UTF_8)))));
    request.topicData().add(data);
    BrokerProcess to = leader.get();
    simulation
        .network()
        .<ProduceResponseData>call(
            producer,
            to,
            "produce " + value,
            reply -> to.handleProduce(request, reply),
            response -> onProduced(value, response));
  }

  private void onProduced(String value, ProduceResponseData response) {
    ProduceResponseData.PartitionProduceResponse answer =
        response.responses().iterator().next().partitionResponses().get(0);
    if (answer.errorCode() == Errors.NONE.code()) {
      Acked write = new Acked(answer.baseOffset(), value);
      acked.add(write);
      simulation.record("acked " + value + "@" + answer.baseOffset());
      simulation.invariants().onAcked(write);
    }
  }

  private void consume() {
    long now = simulation.nowMs();
    if (consumerInFlightSince >= 0 && now - consumerInFlightSince < 1_000) {
      return;
    }
    Optional<BrokerProcess> leader = leader();
    if (leader.isEmpty()) {
      return;
    }
    int leaderEpoch =
        simulation.controller().image().partition(Simulation.TOPIC, 0).orElseThrow().leaderEpoch();
    long position = consumerPosition;
    FetchRequestData request =
        new FetchRequestData()
            .setMaxWaitMs(CONSUMER_MAX_WAIT_MS)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .setReplicaId(-1);
    FetchRequestData.FetchTopic topic =
        new FetchRequestData.FetchTopic()
            .setTopic(Simulation.TOPIC)
            .setTopicId(simulation.topicId());
    topic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(0)
                .setFetchOffset(position)
                .setCurrentLeaderEpoch(leaderEpoch)
                .setPartitionMaxBytes(1 << 20));
    request.topics().add(topic);
    consumerInFlightSince = now;
    long started = now;
    BrokerProcess to = leader.get();
    simulation
        .network()
        .<FetchResponseData>call(
            consumer,
            to,
            "consume@" + position,
            reply -> to.handleFetch(request, reply),
            response -> onConsumed(started, position, leaderEpoch, response));
  }

  private void onConsumed(
      long started, long position, int leaderEpoch, FetchResponseData response) {
    if (consumerInFlightSince != started) {
      return;
    }
    consumerInFlightSince = -1;
    if (position != consumerPosition || response.errorCode() != Errors.NONE.code()) {
      return;
    }
    FetchResponseData.PartitionData data = response.responses().get(0).partitions().get(0);
    if (data.errorCode() != Errors.NONE.code()) {
      return;
    }
    simulation.invariants().onConsumerHighWatermark(leaderEpoch, data.highWatermark());
    MemoryRecords records = (MemoryRecords) data.records();
    if (records == null) {
      return;
    }
    for (RecordBatch batch : records.batches()) {
      for (Record record : batch) {
        if (record.offset() < consumerPosition) {
          continue;
        }
        if (record.offset() >= data.highWatermark()) {
          simulation
              .invariants()
              .fail(
                  "consumer got offset "
                      + record.offset()
                      + " at or above the high watermark "
                      + data.highWatermark());
          return;
        }
        simulation.invariants().onConsumed(record.offset(), value(record.value()));
        consumerPosition = record.offset() + 1;
      }
    }
  }

  static String value(ByteBuffer bytes) {
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    return new String(array, StandardCharsets.UTF_8);
  }
}
