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
import java.util.concurrent.TimeUnit;
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
 * a restart or leadership move) is looked for first, and written only if it is not there: the
 * partition is read (Fetch) from its log start for a record whose disposition headers name the same
 * group, source topic, partition and offset, up to the leader's log end as it was when the check
 * began (ListOffsets as the debugging replica -2, which answers the log end, not the high
 * watermark). An earlier attempt's record may sit above the high watermark: appended by the leader
 * but not yet on every in-sync replica, for instance while a killed follower is still in the ISR.
 * It will be committed with everything below the log end, so the check waits for the high watermark
 * to pass that log end (a fetch held until more is committed) rather than stop at the high
 * watermark and write a second copy. That read is the cost of exactly once after a failure; writes
 * that did not fail never read.
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

  /** How long one read of the check at the high watermark waits for more to be committed. */
  private static final int CHECK_MAX_WAIT_MS = 500;

  /** ListOffsets' replica id for a debugging client: it is answered the log end for LATEST. */
  private static final int DEBUGGING_REPLICA_ID = -2;

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
    Optional<PartitionImage> partition =
        current.partition(topic, target.partition()).filter(PartitionImage::hasLeader);
    Optional<Node> leader =
        partition.flatMap(p -> InterBrokerNodes.of(current, p.leader(), listener));
    if (leader.isEmpty()) {
      return CompletableFuture.completedFuture(Errors.LEADER_NOT_AVAILABLE);
    }
    CompletableFuture<Errors> present =
        letter.disposition().maybeWritten()
            ? check(
                new Check(
                    leader.get(),
                    t.get(),
                    target,
                    partition.get().leaderEpoch(),
                    letter,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)))
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

  /**
   * One look for a letter in its dead-letter partition, fenced by the leader epoch it began with: a
   * leadership move fails it (FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER) and it starts over.
   */
  private record Check(
      Node leader,
      TopicImage topic,
      TopicPartition target,
      int leaderEpoch,
      Letter letter,
      long deadlineNanos) {}

  /**
   * Looks for the letter from the log start up to the leader's log end now.
   *
   * @return NONE if found, UNKNOWN_TOPIC_OR_PARTITION if not, else the error that stopped the look
   */
  private CompletableFuture<Errors> check(Check check) {
    return listOffset(check, ListOffsetsRequest.LATEST_TIMESTAMP, DEBUGGING_REPLICA_ID)
        .thenCompose(
            end ->
                end.error() != Errors.NONE
                    ? CompletableFuture.completedFuture(end.error())
                    : listOffset(
                            check,
                            ListOffsetsRequest.EARLIEST_TIMESTAMP,
                            ListOffsetsRequest.CONSUMER_REPLICA_ID)
                        .thenCompose(
                            start ->
                                start.error() != Errors.NONE
                                    ? CompletableFuture.completedFuture(start.error())
                                    : find(check, start.offset(), end.offset())));
  }

  /**
   * The partition's offset for {@code timestamp}: as a consumer sees it, or, as the debugging
   * replica, the log end for LATEST.
   */
  private CompletableFuture<Offset> listOffset(Check check, long timestamp, int replicaId) {
    ListOffsetsRequestData request =
        new ListOffsetsRequestData()
            .setReplicaId(replicaId)
            .setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id());
    request
        .topics()
        .add(
            new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(check.target().topic())
                .setPartitions(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(check.target().partition())
                            .setCurrentLeaderEpoch(check.leaderEpoch())
                            .setTimestamp(timestamp))));
    return client
        .send(check.leader(), ApiKeys.LIST_OFFSETS, version -> request, timeoutMs)
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
   * Reads the partition from {@code offset} until {@code logEnd} for the letter. Below the high
   * watermark a fetch answers at once; at it, the fetch is held until more is committed (or its
   * wait ends), so the read follows the high watermark up to {@code logEnd}.
   *
   * @return NONE if found, UNKNOWN_TOPIC_OR_PARTITION if not, REQUEST_TIMED_OUT if the high
   *     watermark did not reach {@code logEnd} in time, else the error that stopped the read
   */
  private CompletableFuture<Errors> find(Check check, long offset, long logEnd) {
    if (offset >= logEnd) {
      return CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    long remainingMs = TimeUnit.NANOSECONDS.toMillis(check.deadlineNanos() - System.nanoTime());
    if (remainingMs <= 0) {
      return CompletableFuture.completedFuture(Errors.REQUEST_TIMED_OUT);
    }
    int maxWaitMs = (int) Math.min(remainingMs, CHECK_MAX_WAIT_MS);
    FetchRequestData request =
        new FetchRequestData()
            .setReplicaId(-1)
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(1)
            .setMaxBytes(CHECK_FETCH_BYTES)
            .setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id())
            .setSessionId(0)
            .setSessionEpoch(-1)
            .setRackId("");
    request
        .topics()
        .add(
            new FetchRequestData.FetchTopic()
                .setTopic(check.topic().name())
                .setTopicId(check.topic().id())
                .setPartitions(
                    List.of(
                        new FetchRequestData.FetchPartition()
                            .setPartition(check.target().partition())
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(check.leaderEpoch())
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(CHECK_FETCH_BYTES))));
    return client
        .send(check.leader(), ApiKeys.FETCH, version -> request, timeoutMs + maxWaitMs)
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
                return find(check, p.logStartOffset(), logEnd);
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
                        if (!found.get() && names(check.letter(), headers)) {
                          found.set(true);
                        }
                      });
              if (found.get()) {
                return CompletableFuture.completedFuture(Errors.NONE);
              }
              if (next <= offset && offset < p.highWatermark()) {
                // Committed records were there to read and none came: the read cannot go on.
                return CompletableFuture.completedFuture(Errors.UNKNOWN_SERVER_ERROR);
              }
              // Further on, or (at the high watermark) after waiting for more to be committed.
              return find(check, Math.max(next, offset), logEnd);
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
