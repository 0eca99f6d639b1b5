package io.brook.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.ClientRecords;
import io.brook.broker.api.InProcessApis;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.quorum.QuorumState;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.server.http.Forwarder;
import io.brook.server.http.KafkaRequests;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * The console's JSON endpoints under {@code /console/api}, showing the whole cluster whichever
 * broker serves them. Cluster state comes from the broker's own structures (the metadata image, the
 * throughput ring), paged and aggregated here; everything a Kafka client could do (create, delete
 * and grow topics, describe configs, list and describe groups, produce, fetch, list offsets) is a
 * request to the broker's own Kafka handlers ({@link InProcessApis}), as the HTTP API sends them,
 * so it is validated and authorized as the same Kafka request would be; what only another broker
 * knows (its groups, transactions, logs) is asked of it ({@link ConsoleCluster}).
 */
final class ConsoleApi {
  static final String CLIENT_ID = "brook-console";
  private static final int ADMIN_TIMEOUT_MS = 30_000;
  private static final int DEFAULT_PAGE = 50;

  /** Partitions on a topic's or a group's page unless the page asks for another number. */
  private static final int DEFAULT_PARTITIONS = 100;

  private static final int MAX_RECORDS = 200;
  private static final int FETCH_MAX_BYTES = 1024 * 1024;

  /**
   * Records a key-filtered page reads at the most before it answers with what it found and where to
   * continue: each fetch is at most {@link #FETCH_MAX_BYTES}, read and dropped before the next.
   */
  static final int MAX_SCANNED = 10_000;

  /** Partitions by topic, then partition. */
  static final java.util.Comparator<TopicPartition> TP_ORDER =
      java.util.Comparator.comparing(TopicPartition::topic)
          .thenComparingInt(TopicPartition::partition);

  /** Bytes of a key, value or header shown as hex at most; the rest is cut. */
  private static final int MAX_SHOWN_BYTES = 16 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the console reads and calls. */
  record Sources(
      Supplier<MetadataImage> image,
      ReplicaManager replicas,
      GroupCoordinator groups,
      IntSupplier activeController,
      Supplier<Optional<QuorumState>> quorum,
      InProcessApis apis,
      Throughput throughput,
      ClusterView.Defaults defaults,
      int nodeId,
      String clientListener,
      Forwarder forwarder,
      Function<List<GroupPositions>, CompletableFuture<PartitionEnds>> leaderEnds) {}

  private final Sources sources;
  private final ConsoleCluster cluster;
  private final ConsoleGroups groups;
  private final ConsoleLogs logs;
  private final ConsoleTransactions transactions;
  private final OffsetReset offsetReset;

  /**
   * Where answers are built when that may read the disk (a fetch's records): never an event loop.
   */
  private final Executor worker;

  /**
   * @param transactionMaxTimeoutMs {@code transaction.max.timeout.ms}: an open transaction older
   *     than this is shown as hung
   */
  ConsoleApi(Sources sources, Executor worker, long transactionMaxTimeoutMs) {
    this.sources = sources;
    this.worker = worker;
    // Without sources (a console that refuses every request, or a test of the HTTP layer) nothing
    // is ever routed here.
    this.cluster =
        sources == null
            ? null
            : new ConsoleCluster(
                sources.apis(), sources.forwarder(), sources.image(), sources.nodeId());
    this.groups =
        sources == null
            ? null
            : new ConsoleGroups(cluster, sources.groups(), sources.leaderEnds(), worker);
    this.logs = sources == null ? null : new ConsoleLogs(cluster, sources.replicas());
    this.transactions =
        sources == null ? null : new ConsoleTransactions(cluster, transactionMaxTimeoutMs);
    this.offsetReset = sources == null ? null : new OffsetReset(cluster);
  }

  /**
   * Dispatches one request.
   *
   * @param path the segments after {@code /console/api}
   */
  CompletableFuture<JsonNode> route(
      HttpMethod method,
      List<String> path,
      Map<String, List<String>> query,
      JsonNode body,
      InProcessApis.Caller caller) {
    int n = path.size();
    String first = n == 0 ? "" : path.get(0);
    boolean get = method.equals(HttpMethod.GET);
    boolean post = method.equals(HttpMethod.POST);
    if (first.equals("overview") && n == 1 && get) {
      return overview(caller);
    }
    if (first.equals("throughput") && n == 1 && get) {
      return CompletableFuture.completedFuture(throughput());
    }
    if (first.equals("topics")) {
      if (n == 1 && get) {
        return topics(query, caller);
      }
      if (n == 1 && post) {
        return createTopic(body, caller);
      }
      String topic = n > 1 ? path.get(1) : "";
      if (n == 2 && get) {
        return describeTopic(topic, query, caller);
      }
      if (n == 2 && method.equals(HttpMethod.DELETE)) {
        return deleteTopic(topic, caller);
      }
      if (n == 3 && path.get(2).equals("partitions") && post) {
        return addPartitions(topic, body, caller);
      }
      if (n == 3 && path.get(2).equals("records") && get) {
        return records(topic, query, caller);
      }
      if (n == 3 && path.get(2).equals("records") && post) {
        return produce(topic, body, caller);
      }
      if (n == 3 && path.get(2).equals("producers") && get) {
        return producers(topic, caller);
      }
    }
    if (first.equals("transactions") && n == 1 && get) {
      return transactions.transactions(
          search(query),
          (int) number(query, "offset", 0, 0, Integer.MAX_VALUE),
          (int) number(query, "limit", DEFAULT_PAGE, 1, ClusterView.MAX_PAGE),
          caller);
    }
    if (first.equals("groups") && n == 3 && path.get(2).equals("reset") && post) {
      return offsetReset.reset(path.get(1), body, caller);
    }
    if (first.equals("groups") && get) {
      if (n == 1) {
        return groups(query, caller);
      }
      if (n == 2) {
        return groups.group(
            path.get(1),
            (int) number(query, "offset", 0, 0, Integer.MAX_VALUE),
            (int) number(query, "limit", DEFAULT_PARTITIONS, 1, ClusterView.MAX_PAGE),
            caller);
      }
    }
    throw ConsoleException.notFound("no such console endpoint: " + method + " /" + path);
  }

  // ---- Overview -------------------------------------------------------------------------------

  /**
   * The overview: the cluster from this broker's metadata image, each broker's disk from its
   * DescribeLogDirs (when the caller may describe log directories), this node's rates.
   */
  private CompletableFuture<JsonNode> overview(InProcessApis.Caller caller) {
    return logs.disks(caller).thenApply(this::overview);
  }

  private JsonNode overview(Optional<List<ConsoleCluster.Reply<ConsoleLogs.Disk>>> disks) {
    Map<Integer, ConsoleCluster.Reply<ConsoleLogs.Disk>> disk = new HashMap<>();
    disks.ifPresent(replies -> replies.forEach(r -> disk.put(r.node(), r)));
    MetadataImage image = sources.image().get();
    ClusterView.Health health = ClusterView.health(image, sources.defaults());
    ObjectNode root = JSON.createObjectNode();
    root.put("cluster_id", image.clusterId().orElse(null));
    root.put("node_id", sources.nodeId());
    ObjectNode controller = root.putObject("controller");
    int active = sources.activeController().getAsInt();
    if (active >= 0) {
      controller.put("active", active);
    } else {
      controller.putNull("active");
    }
    Optional<QuorumState> quorum = sources.quorum().get();
    if (quorum.isPresent()) {
      controller.put("leader_epoch", quorum.get().leaderEpoch());
      controller.put("high_watermark", quorum.get().highWatermark());
      ArrayNode voters = controller.putArray("voters");
      quorum.get().voters().forEach(v -> voters.add(v.replicaId()));
    }
    Throughput.Sample latest = sources.throughput().latest();
    ArrayNode brokers = root.putArray("brokers");
    for (BrokerRegistration b : new TreeMap<>(image.brokers()).values()) {
      ObjectNode node = brokers.addObject();
      node.put("id", b.id());
      Optional<BrokerEndpoint> endpoint =
          b.endpoint(sources.clientListener()).or(() -> b.endpoints().stream().findFirst());
      node.put("address", endpoint.map(e -> e.host() + ":" + e.port()).orElse(null));
      node.put("rack", b.rack().orElse(null));
      node.put("fenced", b.fenced());
      node.put("leaders", health.leaders().getOrDefault(b.id(), 0));
      ConsoleCluster.Reply<ConsoleLogs.Disk> d = disk.get(b.id());
      if (d != null && d.answered()) {
        node.put("disk_total_bytes", d.value().totalBytes());
        node.put("disk_used_bytes", d.value().totalBytes() - d.value().usableBytes());
        node.put("offline_log_dirs", d.value().offlineDirs());
      } else if (d != null) {
        node.put("disk_error", d.failure());
      }
      // Rates are this node's own meters: other brokers' are on their consoles.
      if (b.id() == sources.nodeId() && latest != null) {
        node.put("bytes_in_per_sec", latest.bytesIn());
        node.put("bytes_out_per_sec", latest.bytesOut());
      } else {
        node.putNull("bytes_in_per_sec");
        node.putNull("bytes_out_per_sec");
      }
    }
    root.put("disk_shown", disks.isPresent());
    ObjectNode partitions = root.putObject("partitions");
    partitions.put("topics", health.topics());
    partitions.put("total", health.partitions());
    partitions.put("under_replicated", health.underReplicated());
    partitions.put("under_min_isr", health.underMinIsr());
    partitions.put("offline", health.offline());
    return root;
  }

  private JsonNode throughput() {
    ObjectNode root = JSON.createObjectNode();
    root.put("interval_ms", Throughput.INTERVAL_MS);
    root.put("window_ms", Throughput.WINDOW_MS);
    ArrayNode samples = root.putArray("samples");
    for (Throughput.Sample s : sources.throughput().samples()) {
      samples
          .addObject()
          .put("time", s.timeMs())
          .put("bytes_in", s.bytesIn())
          .put("bytes_out", s.bytesOut())
          .put("records_in", s.recordsIn());
    }
    return root;
  }

  // ---- Topics ---------------------------------------------------------------------------------

  /**
   * The topic list: the image's topics the caller may DESCRIBE (a Metadata request as the caller
   * names them, as a client's listing does), paged.
   */
  private CompletableFuture<JsonNode> topics(
      Map<String, List<String>> query, InProcessApis.Caller caller) {
    return describable(null, caller).thenApply(allowed -> topics(query, allowed));
  }

  private JsonNode topics(Map<String, List<String>> query, Set<String> allowed) {
    MetadataImage image = sources.image().get();
    ClusterView.Page<ClusterView.TopicRow> page =
        ClusterView.topics(
            image,
            allowed::contains,
            first(query, "q"),
            (int) number(query, "offset", 0, 0, Integer.MAX_VALUE),
            (int) number(query, "limit", DEFAULT_PAGE, 1, ClusterView.MAX_PAGE),
            sources.defaults());
    ObjectNode root = JSON.createObjectNode();
    root.put("total", page.total());
    root.put("offset", page.offset());
    root.put("limit", page.limit());
    ArrayNode rows = root.putArray("topics");
    for (ClusterView.TopicRow row : page.rows()) {
      ObjectNode node = rows.addObject();
      node.put("name", row.name());
      node.put("topic_id", row.topicId());
      node.put("partitions", row.partitions());
      node.put("replication_factor", row.replicationFactor());
      node.put("retention_ms", row.retentionMs());
      node.put("cleanup_policy", row.cleanupPolicy());
      node.put("local_size_bytes", localSize(image, row.name()));
    }
    return root;
  }

  /** Bytes of the topic's partitions this broker holds. */
  private long localSize(MetadataImage image, String topic) {
    long size = 0;
    TopicImage t = image.topic(topic).orElse(null);
    if (t == null) {
      return 0;
    }
    for (int p : t.partitions().keySet()) {
      Optional<Partition> local = sources.replicas().partition(new TopicPartition(topic, p));
      if (local.isPresent()) {
        size += local.get().log().sizeInBytes();
      }
    }
    return size;
  }

  /** The topics of {@code topics} (every topic when null) the caller may DESCRIBE. */
  private CompletableFuture<Set<String>> describable(
      List<String> topics, InProcessApis.Caller caller) {
    return cluster.describable(topics, caller);
  }

  /** Fails with 403 unless the caller may DESCRIBE {@code topic}. */
  private CompletableFuture<Void> requireDescribe(String topic, InProcessApis.Caller caller) {
    return describable(List.of(topic), caller)
        .thenAccept(
            allowed -> {
              if (!allowed.contains(topic)) {
                throw ConsoleException.of(
                    Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                    "not authorized to describe topic " + topic);
              }
            });
  }

  private CompletableFuture<JsonNode> describeTopic(
      String topic, Map<String, List<String>> query, InProcessApis.Caller caller) {
    return requireDescribe(topic, caller)
        .thenCompose(allowed -> describeAllowedTopic(topic, query, caller));
  }

  private CompletableFuture<JsonNode> describeAllowedTopic(
      String topic, Map<String, List<String>> query, InProcessApis.Caller caller) {
    MetadataImage image = sources.image().get();
    TopicImage t =
        image.topic(topic).orElseThrow(() -> ConsoleException.notFound("no topic named " + topic));
    int offset = (int) number(query, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", DEFAULT_PARTITIONS, 1, ClusterView.MAX_PAGE);
    List<Integer> ids = new ArrayList<>(t.partitions().keySet());
    ids.sort(null);
    ClusterView.Page<Integer> page = ClusterView.page(ids, offset, limit);
    ObjectNode root = JSON.createObjectNode();
    root.put("name", t.name());
    root.put("topic_id", t.id().toString());
    root.put("partition_count", t.numPartitions());
    root.put("offset", page.offset());
    root.put("limit", page.limit());
    root.put("local_size_bytes", localSize(image, topic));
    ArrayNode partitions = root.putArray("partitions");
    Map<Integer, ObjectNode> rows = new TreeMap<>();
    for (int id : page.rows()) {
      PartitionImage p = t.partitions().get(id);
      ObjectNode node = partitions.addObject();
      node.put("partition", id);
      node.put("leader", p.leader());
      node.put("leader_epoch", p.leaderEpoch());
      p.replicas().forEach(node.putArray("replicas")::add);
      p.isr().forEach(node.putArray("isr")::add);
      rows.put(id, node);
    }
    return logs.partitions(t, rows).thenCompose(figures -> configs(topic, root, caller));
  }

  private CompletableFuture<JsonNode> configs(
      String topic, ObjectNode root, InProcessApis.Caller caller) {
    DescribeConfigsRequestData request = KafkaRequests.describeTopicConfigs(topic);
    return sources
        .apis()
        .<DescribeConfigsResponseData>call(ApiKeys.DESCRIBE_CONFIGS, (short) 4, request, caller, 0)
        .thenApply(
            answer -> {
              ArrayNode configs = root.putArray("configs");
              for (DescribeConfigsResponseData.DescribeConfigsResult r :
                  answer.response().results()) {
                if (r.errorCode() != Errors.NONE.code()) {
                  root.put("configs_error", Errors.forCode(r.errorCode()).name());
                  continue;
                }
                for (DescribeConfigsResponseData.DescribeConfigsResourceResult c : r.configs()) {
                  configs
                      .addObject()
                      .put("name", c.name())
                      .put("value", c.isSensitive() ? null : c.value())
                      .put("source", source(c.configSource()))
                      .put("sensitive", c.isSensitive())
                      .put("read_only", c.readOnly());
                }
              }
              return root;
            });
  }

  /** DescribeConfigs' config source, by Kafka's id, as the page shows it. */
  static String source(byte id) {
    return switch (id) {
      case 1 -> "dynamic_topic_config";
      case 2 -> "dynamic_broker_config";
      case 3 -> "dynamic_default_broker_config";
      case 4 -> "static_broker_config";
      case 5 -> "default_config";
      case 6 -> "dynamic_broker_logger_config";
      case 7 -> "client_metrics_config";
      case 8 -> "group_config";
      default -> "unknown";
    };
  }

  private CompletableFuture<JsonNode> createTopic(JsonNode body, InProcessApis.Caller caller) {
    String name = text(body, "name", true);
    int partitions = (int) integer(body, "partitions", -1, -1, 1_000_000);
    short replication = (short) integer(body, "replication_factor", -1, -1, Short.MAX_VALUE);
    CreateTopicsRequestData.CreatableTopic topic =
        KafkaRequests.creatableTopic(name, partitions, replication);
    JsonNode configs = body.get("configs");
    if (configs != null && configs.isObject()) {
      for (Map.Entry<String, JsonNode> entry : configs.properties()) {
        topic
            .configs()
            .add(
                new CreateTopicsRequestData.CreatableTopicConfig()
                    .setName(entry.getKey())
                    .setValue(entry.getValue().asText()));
      }
    }
    CreateTopicsRequestData request = KafkaRequests.createTopic(topic, ADMIN_TIMEOUT_MS);
    return sources
        .apis()
        .<CreateTopicsResponseData>call(ApiKeys.CREATE_TOPICS, (short) 7, request, caller, 0)
        .thenApply(
            answer -> {
              CreateTopicsResponseData.CreatableTopicResult r =
                  answer.response().topics().find(name);
              if (r == null) {
                throw ConsoleException.of(Errors.UNKNOWN_SERVER_ERROR.code(), "no answer");
              }
              if (r.errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(r.errorCode(), r.errorMessage());
              }
              return JSON.createObjectNode()
                  .put("name", name)
                  .put("partitions", r.numPartitions())
                  .put("replication_factor", r.replicationFactor());
            });
  }

  private CompletableFuture<JsonNode> deleteTopic(String topic, InProcessApis.Caller caller) {
    DeleteTopicsRequestData request = KafkaRequests.deleteTopic(topic, ADMIN_TIMEOUT_MS);
    return sources
        .apis()
        .<DeleteTopicsResponseData>call(ApiKeys.DELETE_TOPICS, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              for (DeleteTopicsResponseData.DeletableTopicResult r :
                  answer.response().responses()) {
                if (r.errorCode() != Errors.NONE.code()) {
                  throw ConsoleException.of(r.errorCode(), r.errorMessage());
                }
              }
              return JSON.createObjectNode().put("name", topic);
            });
  }

  private CompletableFuture<JsonNode> addPartitions(
      String topic, JsonNode body, InProcessApis.Caller caller) {
    int count = (int) integer(body, "count", -1, 1, 1_000_000);
    if (count < 0) {
      throw ConsoleException.badRequest("\"count\" (the new partition count) is required");
    }
    CreatePartitionsRequestData request =
        new CreatePartitionsRequestData().setTimeoutMs(ADMIN_TIMEOUT_MS).setValidateOnly(false);
    request
        .topics()
        .add(
            new CreatePartitionsRequestData.CreatePartitionsTopic()
                .setName(topic)
                .setCount(count)
                .setAssignments(null));
    return sources
        .apis()
        .<CreatePartitionsResponseData>call(
            ApiKeys.CREATE_PARTITIONS, (short) 3, request, caller, 0)
        .thenApply(
            answer -> {
              for (CreatePartitionsResponseData.CreatePartitionsTopicResult r :
                  answer.response().results()) {
                if (r.errorCode() != Errors.NONE.code()) {
                  throw ConsoleException.of(r.errorCode(), r.errorMessage());
                }
              }
              return JSON.createObjectNode().put("name", topic).put("partitions", count);
            });
  }

  /** The topic in this broker's metadata image, or 404. */
  private TopicImage topicImage(String topic) {
    return sources
        .image()
        .get()
        .topic(topic)
        .orElseThrow(() -> ConsoleException.notFound("no topic named " + topic));
  }

  private CompletableFuture<JsonNode> producers(String topic, InProcessApis.Caller caller) {
    TopicImage t = topicImage(topic);
    return transactions.producers(t, caller);
  }

  // ---- Groups ---------------------------------------------------------------------------------

  private CompletableFuture<JsonNode> groups(
      Map<String, List<String>> query, InProcessApis.Caller caller) {
    String search = search(query);
    int offset = (int) number(query, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", DEFAULT_PAGE, 1, ClusterView.MAX_PAGE);
    return groups.list(search, offset, limit, caller);
  }

  // ---- Messages -------------------------------------------------------------------------------

  /**
   * A page of a partition's records from an offset or a time. With {@code key}, only the records
   * whose key is that text ({@code match=exact}, the default) or contains it ({@code
   * match=contains}): the partition is read fetch by fetch (each at most {@link #FETCH_MAX_BYTES},
   * dropped before the next) until the page is full, the high watermark is reached or {@link
   * #MAX_SCANNED} records were looked at; the answer says how many and where to continue.
   */
  private CompletableFuture<JsonNode> records(
      String topic, Map<String, List<String>> query, InProcessApis.Caller caller) {
    int partition = (int) number(query, "partition", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", 20, 1, MAX_RECORDS);
    long offset = number(query, "offset", -1, 0, Long.MAX_VALUE);
    long timestamp = number(query, "timestamp", -1, 0, Long.MAX_VALUE);
    KeyFilter filter = KeyFilter.of(first(query, "key"), first(query, "match"));
    CompletableFuture<Long> start =
        offset >= 0
            ? CompletableFuture.completedFuture(offset)
            // Kafka's EARLIEST (-2) when neither is given.
            : listOffset(topic, partition, timestamp >= 0 ? timestamp : -2, caller);
    return start
        .thenCompose(
            from -> {
              if (from < 0) {
                // No record at or after the timestamp: the page is empty at the end of the log.
                return listOffset(topic, partition, -1, caller);
              }
              return CompletableFuture.completedFuture(from);
            })
        .thenCompose(
            from -> {
              ObjectNode root = JSON.createObjectNode();
              root.put("topic", topic);
              root.put("partition", partition);
              root.put("offset", from);
              if (filter != null) {
                root.put("key_filter", filter.text());
                root.put("match", filter.contains() ? "contains" : "exact");
              }
              Scan scan = new Scan(root, root.putArray("records"), limit, filter, from);
              return fetch(topic, partition, scan, caller);
            });
  }

  private CompletableFuture<Long> listOffset(
      String topic, int partition, long timestamp, InProcessApis.Caller caller) {
    return listOffset(cluster, topic, partition, timestamp, caller);
  }

  /**
   * The offset ListOffsets answers for one partition, as the caller asks it: this broker's handler
   * checks the caller's rights, and the partition's leader answers.
   */
  static CompletableFuture<Long> listOffset(
      ConsoleCluster cluster,
      String topic,
      int partition,
      long timestamp,
      InProcessApis.Caller caller) {
    return cluster
        .<ListOffsetsResponseData>atOwner(
            ApiKeys.LIST_OFFSETS,
            (short) 7,
            () -> KafkaRequests.listOffsets(topic, partition, timestamp, false, ADMIN_TIMEOUT_MS),
            caller,
            answer ->
                answer.topics().stream()
                    .flatMap(t -> t.partitions().stream())
                    .anyMatch(p -> p.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()),
            () -> CompletableFuture.completedFuture(cluster.leader(topic, partition)))
        .thenApply(
            answer -> {
              for (ListOffsetsResponseData.ListOffsetsTopicResponse t : answer.topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : t.partitions()) {
                  if (p.errorCode() != Errors.NONE.code()) {
                    throw ConsoleException.of(p.errorCode(), refusal(p.errorCode(), topic));
                  }
                  return p.offset();
                }
              }
              throw ConsoleException.notFound("no such partition: " + topic + "-" + partition);
            });
  }

  /** The message for a refused read: which topic, and what the user lacks. */
  private static String refusal(short errorCode, String topic) {
    return errorCode == Errors.TOPIC_AUTHORIZATION_FAILED.code()
        ? "not authorized to read topic " + topic
        : "topic " + topic;
  }

  /** A key to look for: its UTF-8 bytes, matched whole or as a part of a record's key. */
  record KeyFilter(String text, byte[] bytes, boolean contains) {
    static KeyFilter of(String key, String match) {
      if (key == null) {
        return null;
      }
      boolean contains;
      if (match == null || match.equals("exact")) {
        contains = false;
      } else if (match.equals("contains")) {
        contains = true;
      } else {
        throw ConsoleException.badRequest("match must be exact or contains, not \"" + match + "\"");
      }
      return new KeyFilter(key, key.getBytes(StandardCharsets.UTF_8), contains);
    }

    /** Compares in place: the record's key is not copied. */
    boolean matches(ByteBuffer key) {
      if (key == null) {
        return false;
      }
      int length = key.remaining();
      if (!contains) {
        return length == bytes.length && at(key, key.position());
      }
      for (int from = key.position(); from + bytes.length <= key.position() + length; from++) {
        if (at(key, from)) {
          return true;
        }
      }
      return false;
    }

    private boolean at(ByteBuffer key, int from) {
      for (int i = 0; i < bytes.length; i++) {
        if (key.get(from + i) != bytes[i]) {
          return false;
        }
      }
      return true;
    }
  }

  /** A page being read: what it shows so far, how many records it looked at, where it is. */
  private static final class Scan {
    final ObjectNode root;
    final ArrayNode records;
    final int limit;
    final KeyFilter filter;
    long next;
    long scanned;

    Scan(ObjectNode root, ArrayNode records, int limit, KeyFilter filter, long from) {
      this.root = root;
      this.records = records;
      this.limit = limit;
      this.filter = filter;
      this.next = from;
    }

    boolean full() {
      return records.size() >= limit || scanned >= MAX_SCANNED;
    }

    JsonNode answer() {
      root.put("scanned", scanned);
      root.put("next_offset", next);
      return root;
    }
  }

  private CompletableFuture<JsonNode> fetch(
      String topic, int partition, Scan scan, InProcessApis.Caller caller) {
    long from = scan.next;
    // This broker's handler checks the caller may READ the topic; a partition another broker
    // leads is then read from its leader (by name and id: a newer version names topics by id).
    return cluster
        .<FetchResponseData>atOwner(
            ApiKeys.FETCH,
            (short) 12,
            () ->
                KafkaRequests.fetch(
                    topic, Uuid.ZERO_UUID, partition, from, 0, 0, FETCH_MAX_BYTES, false),
            () ->
                KafkaRequests.fetch(
                    topic, cluster.topicId(topic), partition, from, 0, 0, FETCH_MAX_BYTES, false),
            caller,
            answer ->
                answer.responses().stream()
                    .flatMap(t -> t.partitions().stream())
                    .anyMatch(p -> p.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()),
            () -> CompletableFuture.completedFuture(cluster.leader(topic, partition)))
        // Reading the answer may read the segment file: on the console's worker.
        .thenComposeAsync(
            answer -> {
              if (answer.errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(answer.errorCode(), null);
              }
              FetchResponseData.PartitionData data = answer.responses().get(0).partitions().get(0);
              if (data.errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(
                    data.errorCode(),
                    refusal(data.errorCode(), topic) + ", partition " + partition);
              }
              scan.root.put("log_start_offset", data.logStartOffset());
              scan.root.put("high_watermark", data.highWatermark());
              long before = scan.next;
              long[] last = {-1};
              long after =
                  ClientRecords.read(
                      data,
                      scan.next,
                      false,
                      (recordOffset, timestamp, key, value, headers) -> {
                        if (scan.full()) {
                          return;
                        }
                        scan.scanned++;
                        last[0] = recordOffset;
                        if (scan.filter == null || scan.filter.matches(key)) {
                          scan.records.add(record(recordOffset, timestamp, key, value, headers));
                        }
                      });
              // Where the next page starts: after the last record looked at, or past what the
              // fetch held when every record of it was looked at (control batches included).
              scan.next = scan.full() ? last[0] + 1 : Math.max(after, last[0] + 1);
              if (scan.next < before) {
                scan.next = before;
              }
              boolean more =
                  scan.filter != null
                      && !scan.full()
                      && scan.next > before
                      && scan.next < data.highWatermark();
              return more
                  ? fetch(topic, partition, scan, caller)
                  : CompletableFuture.completedFuture(scan.answer());
            },
            worker);
  }

  private static ObjectNode record(
      long offset, long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers) {
    ObjectNode r = JSON.createObjectNode();
    r.put("offset", offset);
    r.put("timestamp", timestamp);
    r.set("key", bytes(key));
    r.set("value", bytes(value));
    ArrayNode h = r.putArray("headers");
    for (Header header : headers) {
      h.addObject()
          .put("key", header.key())
          .set("value", bytes(header.value() == null ? null : ByteBuffer.wrap(header.value())));
    }
    return r;
  }

  /**
   * Bytes for the page: their size, their text when they are valid UTF-8, and hex (both cut at
   * {@link #MAX_SHOWN_BYTES}); null for null bytes. The page formats them (text, JSON, hex).
   */
  static JsonNode bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return JSON.nullNode();
    }
    ByteBuffer shown = buffer.duplicate();
    int size = shown.remaining();
    boolean truncated = size > MAX_SHOWN_BYTES;
    if (truncated) {
      shown.limit(shown.position() + MAX_SHOWN_BYTES);
    }
    ObjectNode node = JSON.createObjectNode();
    node.put("size", size);
    node.put("truncated", truncated);
    try {
      node.put(
          "text",
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(shown.duplicate())
              .toString());
    } catch (CharacterCodingException e) {
      node.putNull("text");
    }
    StringBuilder hex = new StringBuilder(shown.remaining() * 2);
    while (shown.hasRemaining()) {
      hex.append(String.format(Locale.ROOT, "%02x", shown.get()));
    }
    node.put("hex", hex.toString());
    return node;
  }

  private CompletableFuture<JsonNode> produce(
      String topic, JsonNode body, InProcessApis.Caller caller) {
    TopicImage t = topicImage(topic);
    String key = text(body, "key", false);
    String value = text(body, "value", false);
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    int partitions = t.numPartitions();
    int partition = (int) integer(body, "partition", -1, 0, partitions - 1L);
    if (partition < 0) {
      // Kafka's default partitioner for a keyed record; partition 0 for a keyless test record.
      partition = keyBytes == null ? 0 : Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
    }
    List<Header> headers = new ArrayList<>();
    JsonNode headerList = body.get("headers");
    if (headerList != null && headerList.isArray()) {
      for (JsonNode h : headerList) {
        String name = text(h, "key", true);
        String headerValue = text(h, "value", false);
        headers.add(
            new RecordHeader(
                name, headerValue == null ? null : headerValue.getBytes(StandardCharsets.UTF_8)));
      }
    }
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic);
    data.partitionData()
        .add(
            ClientRecords.partition(
                partition,
                List.of(
                    new ClientRecords.Produced(
                        System.currentTimeMillis(),
                        keyBytes,
                        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                        headers.toArray(Header[]::new)))));
    ProduceRequestData request =
        new ProduceRequestData()
            .setAcks((short) -1)
            .setTimeoutMs(ADMIN_TIMEOUT_MS)
            .setTransactionalId(null);
    request.topicData().add(data);
    int chosen = partition;
    return sources
        .apis()
        .<ProduceResponseData>call(ApiKeys.PRODUCE, (short) 12, request, caller, 0)
        .thenApply(
            answer -> {
              for (ProduceResponseData.TopicProduceResponse r : answer.response().responses()) {
                for (ProduceResponseData.PartitionProduceResponse p : r.partitionResponses()) {
                  if (p.errorCode() != Errors.NONE.code()) {
                    throw ConsoleException.of(p.errorCode(), p.errorMessage());
                  }
                  return JSON.createObjectNode()
                      .put("topic", topic)
                      .put("partition", chosen)
                      .put("offset", p.baseOffset());
                }
              }
              throw ConsoleException.of(Errors.UNKNOWN_SERVER_ERROR.code(), "no answer");
            });
  }

  // ---- Parameters -----------------------------------------------------------------------------

  /** The {@code q} parameter in lower case, empty when absent: ids containing it are listed. */
  private static String search(Map<String, List<String>> query) {
    return Optional.ofNullable(first(query, "q")).orElse("").toLowerCase(Locale.ROOT);
  }

  private static String first(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() || values.get(0).isEmpty() ? null : values.get(0);
  }

  private static long number(
      Map<String, List<String>> query, String name, long fallback, long min, long max) {
    String value = first(query, name);
    if (value == null) {
      return fallback;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw ConsoleException.badRequest(name + " must be an integer, not \"" + value + "\"");
    }
    if (parsed < min || parsed > max) {
      throw ConsoleException.badRequest(name + " must be between " + min + " and " + max);
    }
    return parsed;
  }

  static String text(JsonNode body, String field, boolean required) {
    JsonNode node = body == null ? null : body.get(field);
    if (node == null || node.isNull()) {
      if (required) {
        throw ConsoleException.badRequest("\"" + field + "\" is required");
      }
      return null;
    }
    if (!node.isValueNode()) {
      throw ConsoleException.badRequest("\"" + field + "\" must be a string");
    }
    return node.asText();
  }

  static long integer(JsonNode body, String field, long fallback, long min, long max) {
    JsonNode node = body == null ? null : body.get(field);
    if (node == null || node.isNull() || (node.isTextual() && node.asText().isBlank())) {
      return fallback;
    }
    long value;
    if (node.isIntegralNumber()) {
      value = node.longValue();
    } else if (node.isTextual()) {
      try {
        value = Long.parseLong(node.asText().trim());
      } catch (NumberFormatException e) {
        throw ConsoleException.badRequest("\"" + field + "\" must be an integer");
      }
    } else {
      throw ConsoleException.badRequest("\"" + field + "\" must be an integer");
    }
    if (value < min || value > max) {
      throw ConsoleException.badRequest(
          "\"" + field + "\" must be between " + min + " and " + max + ", not " + value);
    }
    return value;
  }
}
