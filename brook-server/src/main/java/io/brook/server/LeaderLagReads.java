package io.brook.server;

import io.brook.broker.api.ClientRecords;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lag view's reads of the partitions other brokers lead, asked of their leaders over the
 * inter-broker listener as this broker (its TLS and SASL identity), the way a consumer would:
 *
 * <ol>
 *   <li>one Fetch per leader and round, naming every partition of it some group committed an offset
 *       for ({@code max_wait_ms} 0, {@code partition_max_bytes} 1): each partition's answer carries
 *       its high watermark and log start offset (also when the offset is out of range), and the
 *       first partition's the one batch at its offset (a fetch always returns its first batch
 *       whole, KIP-74; any later one is cut to nothing, as Kafka drops an incomplete first batch);
 *   <li>then, one at a time, a single-partition Fetch for each other committed position whose batch
 *       timestamp is not known yet: it returns that one batch, of which only the header's newest
 *       timestamp is read. A position's timestamp is kept while a group stays there, so a group
 *       that does not move costs no lookup in later rounds.
 * </ol>
 *
 * Everything of a round must answer before its deadline; a partition whose leader did not has no
 * figures that round (its series are absent, never stale or zero), a position whose lookup did not
 * has no lag in time. At most {@link #MAX_LOOKUPS_PER_LEADER} lookups go to a leader per round. The
 * broker's principal needs READ on the topics (as any consumer's fetch; brokers are usually {@code
 * super.users}).
 */
final class LeaderLagReads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderLagReads.class);

  /** Timestamp lookups per leader and round; the positions beyond wait for the next round. */
  static final int MAX_LOOKUPS_PER_LEADER = 256;

  /**
   * The smallest partition limit: a fetch returns its first batch whole whatever the limit, and
   * nothing of any other partition.
   */
  private static final int PARTITION_MAX_BYTES = 1;

  private final InterNodeClient client;
  private final Supplier<MetadataImage> image;
  private final String listener;
  private final int nodeId;
  private final LogConfig defaults;
  private final long roundTimeoutMs;
  private final Time time;

  /** Batch timestamps of the positions looked up in the last round, to reuse in the next. */
  private volatile Map<Position, Long> known = Map.of();

  /**
   * @param roundTimeoutMs how long a round may wait for the leaders
   */
  LeaderLagReads(
      InterNodeClient client,
      Supplier<MetadataImage> image,
      String listener,
      int nodeId,
      LogConfig defaults,
      long roundTimeoutMs,
      Time time) {
    this.client = client;
    this.image = image;
    this.listener = listener;
    this.nodeId = nodeId;
    this.defaults = defaults;
    this.roundTimeoutMs = roundTimeoutMs;
    this.time = time;
  }

  /** A partition's position some group committed, in a topic (by id: a recreated topic differs). */
  private record Position(Uuid topicId, int partition, long offset) {}

  /**
   * The ends and batch timestamps of the partitions of {@code groups} that other brokers lead.
   * Completes on an inter-node event loop, within the round's timeout; never fails.
   */
  CompletableFuture<PartitionEnds> read(List<GroupPositions> groups) {
    MetadataImage metadata = image.get();
    Map<Integer, Map<TopicPartition, TreeSet<Long>>> byLeader = new HashMap<>();
    for (GroupPositions group : groups) {
      for (GroupPositions.Position p : group.positions()) {
        TopicPartition tp = p.topicPartition();
        Optional<PartitionImage> partition = metadata.partition(tp.topic(), tp.partition());
        if (partition.isEmpty() || !partition.get().hasLeader()) {
          continue;
        }
        int leader = partition.get().leader();
        if (leader == nodeId) {
          continue; // read locally
        }
        byLeader
            .computeIfAbsent(leader, l -> new LinkedHashMap<>())
            .computeIfAbsent(tp, t -> new TreeSet<>())
            .add(p.committed().offset());
      }
    }
    Round round = new Round(metadata, time.hiResClockMs() + roundTimeoutMs);
    List<CompletableFuture<Void>> leaders = new ArrayList<>(byLeader.size());
    byLeader.forEach((leader, partitions) -> leaders.add(round.ask(leader, partitions)));
    return CompletableFuture.allOf(leaders.toArray(CompletableFuture[]::new))
        .handle(
            (done, error) -> {
              known = Collections.unmodifiableMap(new HashMap<>(round.timestamps));
              return round.measured();
            });
  }

  /** One round's answers; written on event loops, read once every leader is done. */
  private final class Round {
    private final MetadataImage metadata;

    /** The round's end on the clock's monotonic milliseconds, as a timeout is measured. */
    private final long deadlineMs;

    private final Map<TopicPartition, PartitionEnds.Ends> ends = new ConcurrentHashMap<>();
    private final Map<Position, Long> timestamps = new ConcurrentHashMap<>();

    /**
     * Each topic's retention, worked out once per round: building a topic's effective config is far
     * dearer than the rest of a partition's answer, and a topic has many partitions.
     */
    private final Map<String, Long> retentions = new ConcurrentHashMap<>();

    Round(MetadataImage metadata, long deadlineMs) {
      this.metadata = metadata;
      this.deadlineMs = deadlineMs;
    }

    /** The leader's ends of {@code partitions}, then the timestamps of their positions. */
    CompletableFuture<Void> ask(int leader, Map<TopicPartition, TreeSet<Long>> partitions) {
      Optional<Node> node =
          metadata
              .broker(leader)
              .flatMap(b -> b.endpoint(listener))
              .map(e -> new Node(leader, e.host(), e.port()));
      if (node.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      Map<TopicPartition, Long> first = new LinkedHashMap<>();
      // A position to look up goes first: the one partition whose batch the answer carries.
      partitions.forEach(
          (tp, offsets) -> {
            if (first.isEmpty() && !isKnown(tp, offsets.first())) {
              first.put(tp, offsets.first());
            }
          });
      partitions.forEach((tp, offsets) -> first.putIfAbsent(tp, offsets.first()));
      return fetch(node.get(), first, true)
          .thenCompose(
              answered -> {
                List<Map.Entry<TopicPartition, Long>> lookups = lookups(partitions);
                return lookUp(node.get(), lookups, 0);
              });
    }

    /** The positions whose batch timestamp is still unknown, up to the bound. */
    private List<Map.Entry<TopicPartition, Long>> lookups(
        Map<TopicPartition, TreeSet<Long>> partitions) {
      List<Map.Entry<TopicPartition, Long>> lookups = new ArrayList<>();
      partitions.forEach(
          (tp, offsets) -> {
            PartitionEnds.Ends e = ends.get(tp);
            if (e == null) {
              return;
            }
            TreeSet<Long> positions = new TreeSet<>();
            for (long offset : offsets) {
              positions.add(Math.max(offset, e.logStartOffset()));
            }
            for (long position : positions) {
              if (position < e.highWatermark()
                  && !isKnown(tp, position)
                  && lookups.size() < MAX_LOOKUPS_PER_LEADER) {
                lookups.add(Map.entry(tp, position));
              }
            }
          });
      return lookups;
    }

    /** Looks the positions up one after the other, each fetching the single batch holding it. */
    private CompletableFuture<Void> lookUp(
        Node node, List<Map.Entry<TopicPartition, Long>> lookups, int next) {
      if (next >= lookups.size()) {
        return CompletableFuture.completedFuture(null);
      }
      Map.Entry<TopicPartition, Long> lookup = lookups.get(next);
      return fetch(node, Map.of(lookup.getKey(), lookup.getValue()), false)
          .thenCompose(answered -> answered ? lookUp(node, lookups, next + 1) : done());
    }

    /**
     * One Fetch of {@code offsets} (partition to fetch offset); true when the leader answered in
     * time.
     */
    private CompletableFuture<Boolean> fetch(
        Node node, Map<TopicPartition, Long> offsets, boolean recordEnds) {
      int timeoutMs = (int) Math.min(Integer.MAX_VALUE, deadlineMs - time.hiResClockMs());
      if (timeoutMs <= 0) {
        return CompletableFuture.completedFuture(false);
      }
      Map<Uuid, String> names = new HashMap<>();
      FetchRequestData request =
          new FetchRequestData()
              .setReplicaId(-1)
              .setMaxWaitMs(0)
              .setMinBytes(0)
              .setMaxBytes(Integer.MAX_VALUE)
              .setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id())
              .setSessionId(0)
              .setSessionEpoch(-1)
              .setRackId("");
      Map<String, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
      offsets.forEach(
          (tp, offset) -> {
            Uuid id = metadata.topic(tp.topic()).map(TopicImage::id).orElse(Uuid.ZERO_UUID);
            names.put(id, tp.topic());
            topics
                .computeIfAbsent(
                    tp.topic(),
                    t -> {
                      FetchRequestData.FetchTopic topic =
                          new FetchRequestData.FetchTopic().setTopic(t).setTopicId(id);
                      request.topics().add(topic);
                      return topic;
                    })
                .partitions()
                .add(
                    new FetchRequestData.FetchPartition()
                        .setPartition(tp.partition())
                        .setFetchOffset(offset)
                        .setCurrentLeaderEpoch(-1)
                        .setLogStartOffset(-1)
                        .setPartitionMaxBytes(PARTITION_MAX_BYTES));
          });
      return client
          .send(node, ApiKeys.FETCH, v -> request, timeoutMs)
          .handle(
              (response, error) -> {
                if (error != null) {
                  LOG.debug(
                      "Broker {} did not answer the lag view's fetch: {}",
                      node.id(),
                      error.toString());
                  return false;
                }
                FetchResponseData body = response.body(FetchResponseData.class);
                for (FetchResponseData.FetchableTopicResponse topic : body.responses()) {
                  String name =
                      topic.topic() == null || topic.topic().isEmpty()
                          ? names.get(topic.topicId())
                          : topic.topic();
                  for (FetchResponseData.PartitionData p : topic.partitions()) {
                    TopicPartition tp = new TopicPartition(name, p.partitionIndex());
                    Long offset = offsets.get(tp);
                    if (offset != null) {
                      answered(tp, offset, p, recordEnds);
                    }
                  }
                }
                return true;
              });
    }

    private void answered(
        TopicPartition tp, long offset, FetchResponseData.PartitionData p, boolean recordEnds) {
      Errors error = Errors.forCode(p.errorCode());
      if (error != Errors.NONE && error != Errors.OFFSET_OUT_OF_RANGE) {
        return; // not the leader any more, not allowed, ...: no figures this round
      }
      if (recordEnds && p.highWatermark() >= 0 && p.logStartOffset() >= 0) {
        ends.put(
            tp, new PartitionEnds.Ends(p.logStartOffset(), p.highWatermark(), retentionMs(tp)));
      }
      OptionalLong timestamp = ClientRecords.newestTimestamp(p);
      Uuid id = metadata.topic(tp.topic()).map(TopicImage::id).orElse(Uuid.ZERO_UUID);
      if (timestamp.isPresent()) {
        timestamps.put(new Position(id, tp.partition(), offset), timestamp.getAsLong());
      }
    }

    private boolean isKnown(TopicPartition tp, long offset) {
      Uuid id = metadata.topic(tp.topic()).map(TopicImage::id).orElse(Uuid.ZERO_UUID);
      Position position = new Position(id, tp.partition(), offset);
      Long previous = known.get(position);
      if (previous != null) {
        timestamps.putIfAbsent(position, previous);
        return true;
      }
      return timestamps.containsKey(position);
    }

    private long retentionMs(TopicPartition tp) {
      return retentions.computeIfAbsent(tp.topic(), this::topicRetentionMs);
    }

    private long topicRetentionMs(String topic) {
      try {
        return ReplicaPartitionEnds.deleteRetentionMs(
            TopicConfigs.fromOverrides(
                metadata.configs(ConfigResource.Type.TOPIC, topic), defaults));
      } catch (RuntimeException e) {
        return -1;
      }
    }

    /** What the round measured, as the lag view reads it. */
    PartitionEnds measured() {
      // Hash maps, not Map.copyOf: the immutable maps probe linearly, and the close hash codes of
      // partitions of similarly named topics made building and reading one of 16,000 partitions
      // most of a page's time.
      Map<TopicPartition, PartitionEnds.Ends> allEnds = new HashMap<>(ends);
      Map<Position, Long> allTimestamps = new HashMap<>(timestamps);
      return new PartitionEnds() {
        @Override
        public Optional<Ends> leaderEnds(TopicPartition tp) {
          return Optional.ofNullable(allEnds.get(tp));
        }

        @Override
        public OptionalLong batchTimestamp(TopicPartition tp, long offset, long maxOffset) {
          Uuid id = metadata.topic(tp.topic()).map(TopicImage::id).orElse(Uuid.ZERO_UUID);
          Long timestamp = allTimestamps.get(new Position(id, tp.partition(), offset));
          return timestamp == null ? OptionalLong.empty() : OptionalLong.of(timestamp);
        }
      };
    }
  }

  /** Closes the connections to the leaders, failing what is in flight. */
  @Override
  public void close() {
    client.close();
  }

  private static CompletableFuture<Void> done() {
    return CompletableFuture.completedFuture(null);
  }
}
