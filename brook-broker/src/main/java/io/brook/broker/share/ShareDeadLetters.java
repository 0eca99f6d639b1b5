package io.brook.broker.share;

import io.brook.broker.api.ClientRecords;
import io.brook.broker.txn.InterBrokerNodes;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.client.InterNodeClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records to share groups' dead-letter topics ({@code brook.share.dlq.topic}): a Produce
 * with acks=all to the leader of the dead-letter partition, over the inter-broker listener (this
 * broker's own when it leads it), appended by that broker's ordinary produce path. The partition is
 * the source partition's index modulo the topic's partitions, so a record always goes to the same
 * one and a check for it reads one partition.
 *
 * <p>A record that may have been written by an earlier attempt (one that failed, or one from before
 * a restart or leadership move) is looked for first: the partition is read (ListOffsets for its log
 * start, then Fetch) from its log start up to its high watermark for a record whose disposition
 * headers name the same group, source topic, partition and offset, and written only if there is
 * none. That read is the cost of exactly once after a failure; writes that did not fail never read.
 *
 * <p>The futures never fail: an error is answered as its code and the caller tries again later.
 */
public final class ShareDeadLetters implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShareDeadLetters.class);

  public static final String SOURCE_TOPIC = "brook.dlq.source.topic";
  public static final String SOURCE_PARTITION = "brook.dlq.source.partition";
  public static final String SOURCE_OFFSET = "brook.dlq.source.offset";
  public static final String SOURCE_TIMESTAMP = "brook.dlq.source.timestamp";
  public static final String GROUP = "brook.dlq.group";
  public static final String DELIVERY_COUNT = "brook.dlq.delivery.count";
  public static final String REASON = "brook.dlq.reason";
  public static final String TIMESTAMP = "brook.dlq.timestamp";

  /** How long past the acks=all timeout the answer to a produce is waited for. */
  private static final int PRODUCE_ANSWER_MARGIN_MS = 5_000;

  /** How much one read of the check asks for. */
  private static final int CHECK_FETCH_BYTES = 1 << 20;

  private final Supplier<MetadataImage> image;
  private final String listener;
  private final InterNodeClient client;
  private final int timeoutMs;

  /**
   * @param client the writer's own client (closed with it)
   * @param timeoutMs the produce's acks=all timeout and each request's
   */
  public ShareDeadLetters(
      Supplier<MetadataImage> image, String listener, InterNodeClient client, int timeoutMs) {
    this.image = image;
    this.listener = listener;
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  /** A record of a source partition as it was produced. */
  @SuppressWarnings("ArrayRecordComponent") // read once from the log and never changed
  public record SourceRecord(long timestamp, byte[] key, byte[] value, Header[] headers) {}

  /** One record owed to a dead-letter topic, and why. */
  public record Letter(
      String groupId,
      TopicPartition source,
      SharePartition.DeadLetter disposition,
      SourceRecord record) {}

  /** The dead-letter partition a source partition's records go to. */
  static int partitionFor(TopicPartition source, int partitions) {
    return source.partition() % partitions;
  }

  /**
   * Writes {@code letter} to {@code topic}, unless it may have been written already and is there.
   *
   * @return NONE once it is in the topic (written now or found), else the error
   */
  public CompletableFuture<Errors> write(String topic, Letter letter, long nowMs) {
    MetadataImage current = image.get();
    Optional<TopicImage> t = current.topic(topic);
    if (t.isEmpty() || t.get().numPartitions() == 0) {
      return CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    TopicPartition target =
        new TopicPartition(topic, partitionFor(letter.source(), t.get().numPartitions()));
    Optional<Node> leader =
        current
            .partition(topic, target.partition())
            .filter(PartitionImage::hasLeader)
            .flatMap(p -> InterBrokerNodes.of(current, p.leader(), listener));
    if (leader.isEmpty()) {
      return CompletableFuture.completedFuture(Errors.LEADER_NOT_AVAILABLE);
    }
    CompletableFuture<Errors> present =
        letter.disposition().maybeWritten()
            ? logStart(leader.get(), target)
                .thenCompose(
                    start ->
                        start.error() != Errors.NONE
                            ? CompletableFuture.completedFuture(start.error())
                            : find(leader.get(), t.get(), target, letter, start.offset()))
            : CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    return present.thenCompose(
        found -> {
          if (found == Errors.NONE) {
            log.info(
                "Dead letter already in its topic groupId={} source={} offset={} topic={}",
                letter.groupId(),
                letter.source(),
                letter.disposition().offset(),
                target);
            return CompletableFuture.completedFuture(Errors.NONE);
          }
          if (found != Errors.UNKNOWN_TOPIC_OR_PARTITION) {
            return CompletableFuture.completedFuture(found); // the check itself failed
          }
          return produce(leader.get(), t.get(), target, letter, nowMs);
        });
  }

  /** The disposition headers after the record's own. */
  static Header[] headers(Letter letter, long nowMs) {
    SharePartition.DeadLetter d = letter.disposition();
    Header[] own = letter.record().headers();
    List<Header> all = new ArrayList<>(Arrays.asList(own == null ? new Header[0] : own));
    all.add(header(SOURCE_TOPIC, letter.source().topic()));
    all.add(header(SOURCE_PARTITION, Integer.toString(letter.source().partition())));
    all.add(header(SOURCE_OFFSET, Long.toString(d.offset())));
    all.add(header(SOURCE_TIMESTAMP, Long.toString(letter.record().timestamp())));
    all.add(header(GROUP, letter.groupId()));
    all.add(header(DELIVERY_COUNT, Integer.toString(d.deliveryCount())));
    all.add(header(REASON, d.reason().header()));
    all.add(header(TIMESTAMP, Long.toString(nowMs)));
    return all.toArray(Header[]::new);
  }

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }

  private CompletableFuture<Errors> produce(
      Node leader, TopicImage topic, TopicPartition target, Letter letter, long nowMs) {
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(timeoutMs);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic.name()).setTopicId(topic.id());
    data.partitionData()
        .add(
            ClientRecords.partition(
                target.partition(),
                List.of(
                    new ClientRecords.Produced(
                        nowMs,
                        letter.record().key(),
                        letter.record().value(),
                        headers(letter, nowMs)))));
    request.topicData().add(data);
    return client
        .send(leader, ApiKeys.PRODUCE, version -> request, timeoutMs + PRODUCE_ANSWER_MARGIN_MS)
        .handle(
            (response, failure) -> {
              if (failure != null) {
                log.debug("Dead letter produce to {} failed: {}", target, failure.toString());
                return Errors.NETWORK_EXCEPTION;
              }
              for (ProduceResponseData.TopicProduceResponse t :
                  response.body(ProduceResponseData.class).responses()) {
                for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
                  return Errors.forCode(p.errorCode());
                }
              }
              return Errors.UNKNOWN_SERVER_ERROR;
            });
  }

  /** An offset, or the error that stopped finding it. */
  private record Offset(Errors error, long offset) {}

  /** The dead-letter partition's log start offset (ListOffsets, earliest). */
  private CompletableFuture<Offset> logStart(Node leader, TopicPartition target) {
    ListOffsetsRequestData request =
        new ListOffsetsRequestData()
            .setReplicaId(-1)
            .setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id());
    request
        .topics()
        .add(
            new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(target.topic())
                .setPartitions(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(target.partition())
                            .setCurrentLeaderEpoch(-1)
                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP))));
    return client
        .send(leader, ApiKeys.LIST_OFFSETS, version -> request, timeoutMs)
        .handle(
            (response, failure) -> {
              if (failure != null) {
                return new Offset(Errors.NETWORK_EXCEPTION, -1);
              }
              for (ListOffsetsResponseData.ListOffsetsTopicResponse t :
                  response.body(ListOffsetsResponseData.class).topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : t.partitions()) {
                  Errors error = Errors.forCode(p.errorCode());
                  return error != Errors.NONE || p.offset() < 0
                      ? new Offset(error == Errors.NONE ? Errors.UNKNOWN_SERVER_ERROR : error, -1)
                      : new Offset(Errors.NONE, p.offset());
                }
              }
              return new Offset(Errors.UNKNOWN_SERVER_ERROR, -1);
            });
  }

  /**
   * Reads {@code target} from {@code offset} to its high watermark for the letter.
   *
   * @return NONE if found, UNKNOWN_TOPIC_OR_PARTITION if not, else the error that stopped the read
   */
  private CompletableFuture<Errors> find(
      Node leader, TopicImage topic, TopicPartition target, Letter letter, long offset) {
    FetchRequestData request =
        new FetchRequestData()
            .setReplicaId(-1)
            .setMaxWaitMs(0)
            .setMinBytes(0)
            .setMaxBytes(CHECK_FETCH_BYTES)
            .setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id())
            .setSessionId(0)
            .setSessionEpoch(-1)
            .setRackId("");
    request
        .topics()
        .add(
            new FetchRequestData.FetchTopic()
                .setTopic(topic.name())
                .setTopicId(topic.id())
                .setPartitions(
                    List.of(
                        new FetchRequestData.FetchPartition()
                            .setPartition(target.partition())
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(CHECK_FETCH_BYTES))));
    return client
        .send(leader, ApiKeys.FETCH, version -> request, timeoutMs)
        .handle(
            (response, failure) -> {
              if (failure != null) {
                return CompletableFuture.completedFuture(Errors.NETWORK_EXCEPTION);
              }
              FetchResponseData.PartitionData p =
                  onlyPartition(response.body(FetchResponseData.class));
              if (p == null) {
                return CompletableFuture.completedFuture(Errors.UNKNOWN_SERVER_ERROR);
              }
              Errors error = Errors.forCode(p.errorCode());
              if (error == Errors.OFFSET_OUT_OF_RANGE && p.logStartOffset() > offset) {
                return find(leader, topic, target, letter, p.logStartOffset());
              }
              if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(error);
              }
              AtomicBoolean found = new AtomicBoolean();
              long next =
                  ClientRecords.read(
                      p,
                      offset,
                      false,
                      (o, timestamp, key, value, headers) -> {
                        if (!found.get() && names(letter, headers)) {
                          found.set(true);
                        }
                      });
              if (found.get()) {
                return CompletableFuture.completedFuture(Errors.NONE);
              }
              if (next <= offset || next >= p.highWatermark()) {
                // Read to the high watermark (or nothing more came): it is not there.
                return CompletableFuture.completedFuture(
                    next <= offset && offset < p.highWatermark()
                        ? Errors.UNKNOWN_SERVER_ERROR
                        : Errors.UNKNOWN_TOPIC_OR_PARTITION);
              }
              return find(leader, topic, target, letter, next);
            })
        .thenCompose(f -> f);
  }

  private static FetchResponseData.PartitionData onlyPartition(FetchResponseData body) {
    for (FetchResponseData.FetchableTopicResponse t : body.responses()) {
      for (FetchResponseData.PartitionData p : t.partitions()) {
        return p;
      }
    }
    return null;
  }

  /** Whether a dead-letter record's headers name the letter's group, source and offset. */
  static boolean names(Letter letter, Header[] headers) {
    String group = null;
    String topic = null;
    String partition = null;
    String offset = null;
    for (Header h : headers) {
      switch (h.key()) {
        case GROUP -> group = text(h);
        case SOURCE_TOPIC -> topic = text(h);
        case SOURCE_PARTITION -> partition = text(h);
        case SOURCE_OFFSET -> offset = text(h);
        default -> {}
      }
    }
    return letter.groupId().equals(group)
        && letter.source().topic().equals(topic)
        && Integer.toString(letter.source().partition()).equals(partition)
        && Long.toString(letter.disposition().offset()).equals(offset);
  }

  private static String text(Header h) {
    return h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    client.close();
  }
}
