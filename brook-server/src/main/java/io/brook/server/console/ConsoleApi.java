package io.brook.server.console;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.ClientRecords;
import io.brook.broker.api.InProcessApis;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.lag.GroupLag;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.group.lag.PartitionLag;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.quorum.QuorumState;
import io.brook.metadata.record.BrokerEndpoint;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
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
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * The console's JSON endpoints under {@code /console/api}. Reads of cluster state come from the
 * broker's own structures (the metadata image, the replica manager's local logs, the group
 * coordinator's lag view, the throughput ring), paged and aggregated here; everything a Kafka
 * client could do (create, delete and grow topics, describe configs, list and describe groups,
 * produce, fetch, list offsets) is one request to the broker's own Kafka handlers ({@link
 * InProcessApis}), as the HTTP API sends them, so it is validated and authorized as the same Kafka
 * request would be. Log figures (start, end, high watermark, size) are this broker's replicas'; a
 * partition it does not host shows none.
 */
final class ConsoleApi {
  static final String CLIENT_ID = "brook-console";
  private static final int ADMIN_TIMEOUT_MS = 30_000;
  private static final int DEFAULT_PAGE = 50;
  private static final int MAX_RECORDS = 200;
  private static final int FETCH_MAX_BYTES = 1024 * 1024;

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
      String clientListener) {}

  private final Sources sources;

  /**
   * Where answers are built when that may read the disk (a fetch's records): never an event loop.
   */
  private final Executor worker;

  ConsoleApi(Sources sources, Executor worker) {
    this.sources = sources;
    this.worker = worker;
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
      return CompletableFuture.completedFuture(overview());
    }
    if (first.equals("throughput") && n == 1 && get) {
      return CompletableFuture.completedFuture(throughput());
    }
    if (first.equals("topics")) {
      if (n == 1 && get) {
        return CompletableFuture.completedFuture(topics(query));
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
    }
    if (first.equals("groups") && get) {
      if (n == 1) {
        return groups(query, caller);
      }
      if (n == 2) {
        return group(path.get(1), caller);
      }
    }
    throw ConsoleException.notFound("no such console endpoint: " + method + " /" + path);
  }

  // ---- Overview -------------------------------------------------------------------------------

  private JsonNode overview() {
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
      // Rates are this node's own meters: other brokers' are on their consoles.
      if (b.id() == sources.nodeId() && latest != null) {
        node.put("bytes_in_per_sec", latest.bytesIn());
        node.put("bytes_out_per_sec", latest.bytesOut());
      } else {
        node.putNull("bytes_in_per_sec");
        node.putNull("bytes_out_per_sec");
      }
    }
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

  private JsonNode topics(Map<String, List<String>> query) {
    MetadataImage image = sources.image().get();
    ClusterView.Page<ClusterView.TopicRow> page =
        ClusterView.topics(
            image,
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

  private CompletableFuture<JsonNode> describeTopic(
      String topic, Map<String, List<String>> query, InProcessApis.Caller caller) {
    MetadataImage image = sources.image().get();
    TopicImage t =
        image.topic(topic).orElseThrow(() -> ConsoleException.notFound("no topic named " + topic));
    int offset = (int) number(query, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", 100, 1, ClusterView.MAX_PAGE);
    ObjectNode root = JSON.createObjectNode();
    root.put("name", t.name());
    root.put("topic_id", t.id().toString());
    root.put("partition_count", t.numPartitions());
    root.put("offset", offset);
    root.put("local_size_bytes", localSize(image, topic));
    ArrayNode partitions = root.putArray("partitions");
    List<Integer> ids = new ArrayList<>(t.partitions().keySet());
    ids.sort(null);
    for (int id : ids.subList(Math.min(offset, ids.size()), Math.min(offset + limit, ids.size()))) {
      PartitionImage p = t.partitions().get(id);
      ObjectNode node = partitions.addObject();
      node.put("partition", id);
      node.put("leader", p.leader());
      node.put("leader_epoch", p.leaderEpoch());
      p.replicas().forEach(node.putArray("replicas")::add);
      p.isr().forEach(node.putArray("isr")::add);
      Optional<Partition> local = sources.replicas().partition(new TopicPartition(topic, id));
      if (local.isPresent()) {
        var log = local.get().log();
        node.put("log_start_offset", log.logStartOffset());
        node.put("log_end_offset", log.logEndOffset());
        node.put("high_watermark", log.highWatermark());
        node.put("size_bytes", log.sizeInBytes());
      }
    }
    DescribeConfigsRequestData request =
        new DescribeConfigsRequestData()
            .setIncludeSynonyms(false)
            .setIncludeDocumentation(false)
            .setResources(
                mutable(
                    new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id())
                        .setResourceName(topic)
                        .setConfigurationKeys(null)));
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
        new CreateTopicsRequestData.CreatableTopic()
            .setName(name)
            .setNumPartitions(partitions)
            .setReplicationFactor(replication);
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
    CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(ADMIN_TIMEOUT_MS);
    request.topics().add(topic);
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
    DeleteTopicsRequestData request =
        new DeleteTopicsRequestData()
            .setTimeoutMs(ADMIN_TIMEOUT_MS)
            .setTopics(
                mutable(
                    new DeleteTopicsRequestData.DeleteTopicState()
                        .setName(topic)
                        .setTopicId(Uuid.ZERO_UUID)));
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

  // ---- Groups ---------------------------------------------------------------------------------

  private CompletableFuture<JsonNode> groups(
      Map<String, List<String>> query, InProcessApis.Caller caller) {
    String search = Optional.ofNullable(first(query, "q")).orElse("").toLowerCase(Locale.ROOT);
    int offset = (int) number(query, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", DEFAULT_PAGE, 1, ClusterView.MAX_PAGE);
    ListGroupsRequestData request =
        new ListGroupsRequestData()
            .setStatesFilter(new ArrayList<>())
            .setTypesFilter(new ArrayList<>());
    return sources
        .apis()
        .<ListGroupsResponseData>call(ApiKeys.LIST_GROUPS, (short) 5, request, caller, 0)
        .thenCompose(
            answer -> {
              if (answer.response().errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(answer.response().errorCode(), null);
              }
              List<ListGroupsResponseData.ListedGroup> listed = new ArrayList<>();
              for (ListGroupsResponseData.ListedGroup g : answer.response().groups()) {
                if (search.isEmpty() || g.groupId().toLowerCase(Locale.ROOT).contains(search)) {
                  listed.add(g);
                }
              }
              listed.sort((a, b) -> a.groupId().compareTo(b.groupId()));
              int from = Math.min(offset, listed.size());
              List<ListGroupsResponseData.ListedGroup> page =
                  listed.subList(from, Math.min(from + limit, listed.size()));
              ObjectNode root = JSON.createObjectNode();
              root.put("total", listed.size());
              root.put("offset", from);
              ArrayNode rows = root.putArray("groups");
              List<String> ids =
                  page.stream().map(ListGroupsResponseData.ListedGroup::groupId).toList();
              CompletableFuture<Map<String, Integer>> members = memberCounts(ids, caller);
              for (ListGroupsResponseData.ListedGroup g : page) {
                ObjectNode row = rows.addObject();
                row.put("group_id", g.groupId());
                row.put("state", g.groupState());
                row.put("protocol_type", g.protocolType());
                row.put("type", g.groupType());
              }
              return members.thenCombine(
                  lags(ids),
                  (counts, lags) -> {
                    for (JsonNode row : rows) {
                      String id = row.get("group_id").asText();
                      Integer count = counts.get(id);
                      if (count != null) {
                        ((ObjectNode) row).put("members", count);
                      }
                      putLag((ObjectNode) row, lags.get(id));
                    }
                    return (JsonNode) root;
                  });
            });
  }

  /**
   * The lag of the named groups that have committed offsets here. As for the lag metrics ({@code
   * ConsumerLagMetrics}): the coordinator shards copy the positions on their threads, and the lag,
   * which reads batch headers from the logs, is computed on the console's worker.
   */
  private CompletableFuture<Map<String, GroupLag>> lags(Collection<String> groupIds) {
    Set<String> wanted = new HashSet<>(groupIds);
    return sources
        .groups()
        .positions()
        .thenApplyAsync(
            all -> {
              long now = System.currentTimeMillis();
              Map<String, GroupLag> lags = new HashMap<>();
              for (GroupPositions positions : all) {
                if (wanted.contains(positions.groupId())) {
                  lags.put(positions.groupId(), sources.groups().lag(positions, now));
                }
              }
              return lags;
            },
            worker);
  }

  private static void putLag(ObjectNode row, GroupLag lag) {
    if (lag == null) {
      row.putNull("lag_records");
      row.putNull("lag_seconds");
      return;
    }
    row.put("lag_records", lag.totalLagRecords());
    Optional<Duration> time = lag.maxLagTime();
    if (time.isPresent()) {
      row.put("lag_seconds", time.get().toMillis() / 1000.0);
    } else {
      row.putNull("lag_seconds");
    }
  }

  private CompletableFuture<Map<String, Integer>> memberCounts(
      List<String> ids, InProcessApis.Caller caller) {
    if (ids.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    return describeGroups(ids, caller)
        .thenApply(
            groups -> {
              Map<String, Integer> counts = new TreeMap<>();
              for (DescribeGroupsResponseData.DescribedGroup g : groups) {
                if (g.errorCode() == Errors.NONE.code()) {
                  counts.put(g.groupId(), g.members().size());
                }
              }
              return counts;
            });
  }

  private CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>> describeGroups(
      List<String> ids, InProcessApis.Caller caller) {
    DescribeGroupsRequestData request =
        new DescribeGroupsRequestData()
            .setGroups(new ArrayList<>(ids))
            .setIncludeAuthorizedOperations(false);
    return sources
        .apis()
        .<DescribeGroupsResponseData>call(ApiKeys.DESCRIBE_GROUPS, (short) 5, request, caller, 0)
        .thenApply(answer -> answer.response().groups());
  }

  private CompletableFuture<JsonNode> group(String groupId, InProcessApis.Caller caller) {
    // Describing first also checks the caller may DESCRIBE the group before its offsets show.
    return describeGroups(List.of(groupId), caller)
        .thenCompose(
            groups -> {
              DescribeGroupsResponseData.DescribedGroup g = groups.get(0);
              // Refused: nothing about the group shows. Otherwise a group DescribeGroups cannot
              // describe (a consumer-protocol group) still shows its offsets and lag.
              boolean described = g.errorCode() == Errors.NONE.code();
              if (g.errorCode() == Errors.GROUP_AUTHORIZATION_FAILED.code()) {
                throw ConsoleException.of(g.errorCode(), g.errorMessage());
              }
              ObjectNode root = JSON.createObjectNode();
              root.put("group_id", groupId);
              root.put("state", g.groupState());
              root.put("protocol_type", g.protocolType());
              root.put("protocol", g.protocolData());
              ArrayNode members = root.putArray("members");
              for (DescribeGroupsResponseData.DescribedGroupMember m : g.members()) {
                members
                    .addObject()
                    .put("member_id", m.memberId())
                    .put("instance_id", m.groupInstanceId())
                    .put("client_id", m.clientId())
                    .put("host", m.clientHost());
              }
              return lags(List.of(groupId))
                  .thenApply(
                      lags -> {
                        GroupLag lag = lags.get(groupId);
                        if (!described && lag == null) {
                          throw ConsoleException.of(g.errorCode(), g.errorMessage());
                        }
                        putLag(root, lag);
                        ArrayNode partitions = root.putArray("partitions");
                        if (lag != null) {
                          for (PartitionLag p : lag.partitions()) {
                            ObjectNode node = partitions.addObject();
                            node.put("topic", p.topicPartition().topic());
                            node.put("partition", p.topicPartition().partition());
                            node.put("committed_offset", p.committedOffset());
                            boolean measured = p.logEndOffset() >= 0;
                            if (measured) {
                              node.put("log_end_offset", p.logEndOffset());
                              node.put("lag_records", p.lagRecords());
                            }
                            p.lagTime()
                                .ifPresent(t -> node.put("lag_seconds", t.toMillis() / 1000.0));
                          }
                        }
                        return (JsonNode) root;
                      });
            });
  }

  // ---- Messages -------------------------------------------------------------------------------

  private CompletableFuture<JsonNode> records(
      String topic, Map<String, List<String>> query, InProcessApis.Caller caller) {
    int partition = (int) number(query, "partition", 0, 0, Integer.MAX_VALUE);
    int limit = (int) number(query, "limit", 20, 1, MAX_RECORDS);
    long offset = number(query, "offset", -1, 0, Long.MAX_VALUE);
    long timestamp = number(query, "timestamp", -1, 0, Long.MAX_VALUE);
    CompletableFuture<Long> start =
        offset >= 0
            ? CompletableFuture.completedFuture(offset)
            // Kafka's EARLIEST (-2) when neither is given.
            : listOffset(topic, partition, timestamp >= 0 ? timestamp : -2, caller);
    return start.thenCompose(
        from -> {
          if (from < 0) {
            // No record at or after the timestamp: the page is empty at the end of the log.
            return listOffset(topic, partition, -1, caller)
                .thenCompose(end -> fetch(topic, partition, end, limit, caller));
          }
          return fetch(topic, partition, from, limit, caller);
        });
  }

  private CompletableFuture<Long> listOffset(
      String topic, int partition, long timestamp, InProcessApis.Caller caller) {
    ListOffsetsRequestData request =
        new ListOffsetsRequestData()
            .setReplicaId(-1)
            .setIsolationLevel((byte) 0)
            .setTopics(
                mutable(
                    new ListOffsetsRequestData.ListOffsetsTopic()
                        .setName(topic)
                        .setPartitions(
                            mutable(
                                new ListOffsetsRequestData.ListOffsetsPartition()
                                    .setPartitionIndex(partition)
                                    .setCurrentLeaderEpoch(-1)
                                    .setTimestamp(timestamp)))));
    return sources
        .apis()
        .<ListOffsetsResponseData>call(ApiKeys.LIST_OFFSETS, (short) 7, request, caller, 0)
        .thenApply(
            answer -> {
              for (ListOffsetsResponseData.ListOffsetsTopicResponse t :
                  answer.response().topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : t.partitions()) {
                  if (p.errorCode() != Errors.NONE.code()) {
                    throw ConsoleException.of(p.errorCode(), null);
                  }
                  return p.offset();
                }
              }
              throw ConsoleException.notFound("no such partition: " + topic + "-" + partition);
            });
  }

  private CompletableFuture<JsonNode> fetch(
      String topic, int partition, long offset, int limit, InProcessApis.Caller caller) {
    FetchRequestData request =
        new FetchRequestData()
            .setReplicaId(-1)
            .setMaxWaitMs(0)
            .setMinBytes(0)
            .setMaxBytes(FETCH_MAX_BYTES)
            .setIsolationLevel((byte) 0)
            .setSessionId(0)
            .setSessionEpoch(-1)
            .setRackId("");
    request
        .topics()
        .add(
            new FetchRequestData.FetchTopic()
                .setTopic(topic)
                .setPartitions(
                    mutable(
                        new FetchRequestData.FetchPartition()
                            .setPartition(partition)
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(FETCH_MAX_BYTES))));
    return sources
        .apis()
        .<FetchResponseData>call(ApiKeys.FETCH, (short) 12, request, caller, 0)
        // Reading the answer may read the segment file: on the console's worker.
        .thenApplyAsync(
            answer -> {
              if (answer.response().errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(answer.response().errorCode(), null);
              }
              FetchResponseData.PartitionData data =
                  answer.response().responses().get(0).partitions().get(0);
              if (data.errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(
                    data.errorCode(), "topic " + topic + ", partition " + partition);
              }
              ObjectNode root = JSON.createObjectNode();
              root.put("topic", topic);
              root.put("partition", partition);
              root.put("offset", offset);
              root.put("log_start_offset", data.logStartOffset());
              root.put("high_watermark", data.highWatermark());
              ArrayNode records = root.putArray("records");
              long[] last = {-1};
              ClientRecords.read(
                  data,
                  offset,
                  false,
                  (recordOffset, timestamp, key, value, headers) -> {
                    if (records.size() >= limit) {
                      return;
                    }
                    last[0] = recordOffset;
                    ObjectNode r = records.addObject();
                    r.put("offset", recordOffset);
                    r.put("timestamp", timestamp);
                    r.set("key", bytes(key));
                    r.set("value", bytes(value));
                    ArrayNode h = r.putArray("headers");
                    for (Header header : headers) {
                      h.addObject()
                          .put("key", header.key())
                          .set(
                              "value",
                              bytes(
                                  header.value() == null ? null : ByteBuffer.wrap(header.value())));
                    }
                  });
              root.put("next_offset", last[0] < 0 ? offset : last[0] + 1);
              return (JsonNode) root;
            },
            worker);
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
    TopicImage t =
        sources
            .image()
            .get()
            .topic(topic)
            .orElseThrow(() -> ConsoleException.notFound("no topic named " + topic));
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

  private static String text(JsonNode body, String field, boolean required) {
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

  private static long integer(JsonNode body, String field, long fallback, long min, long max) {
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
