package io.brook.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.group.lag.LagCalculator;
import io.brook.coordinator.group.lag.LagTotals;
import io.brook.coordinator.group.lag.PartitionLag;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.log.PartitionEnds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The consumer groups pages, over the whole cluster:
 *
 * <ul>
 *   <li>the list: ListGroups of every broker (this one's handler as the user, the others as this
 *       node), merged; a group another broker lists is shown when FindCoordinator as the user says
 *       the user may DESCRIBE it. Then, for the page's groups only, DescribeGroups at each group's
 *       coordinator (members) and their lag;
 *   <li>a group's page: its coordinator's DescribeGroups and committed offsets, and the lag.
 * </ul>
 *
 * Lag is the lag view's ({@link LagCalculator}): the committed positions, of this broker's shards
 * or, for a group another broker coordinates, its OffsetFetch answer; the ends of the partitions
 * this broker leads read locally, the others' asked of their leaders (the lag metrics' reads); a
 * partition whose leader did not answer has no lag. Only the partitions of the topics the user may
 * DESCRIBE count (checked once per topic), as OffsetFetch leaves the others out for a client.
 *
 * <p>What a page costs: a group's figure per partition only for the rows the page shows; its totals
 * (partitions, lag in records, the largest lag in time) over all of them in one pass that keeps
 * nothing per partition, reading each partition's ends and, where the group lags, one batch header.
 */
final class ConsoleGroups {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** No ends for any partition: when the console cannot ask other leaders. */
  private static final PartitionEnds NONE =
      new PartitionEnds() {
        @Override
        public Optional<Ends> leaderEnds(TopicPartition partition) {
          return Optional.empty();
        }

        @Override
        public OptionalLong batchTimestamp(TopicPartition partition, long offset, long maxOffset) {
          return OptionalLong.empty();
        }
      };

  private final ConsoleCluster cluster;
  private final GroupCoordinator coordinator;
  private final Function<List<GroupPositions>, CompletableFuture<PartitionEnds>> leaderEnds;
  private final Executor worker;

  /**
   * @param leaderEnds the ends of the partitions other brokers lead, asked of them; null: none
   */
  ConsoleGroups(
      ConsoleCluster cluster,
      GroupCoordinator coordinator,
      Function<List<GroupPositions>, CompletableFuture<PartitionEnds>> leaderEnds,
      Executor worker) {
    this.cluster = cluster;
    this.coordinator = coordinator;
    this.leaderEnds = leaderEnds;
    this.worker = worker;
  }

  /** A page of the cluster's groups whose id contains {@code search} (lower case), by id. */
  CompletableFuture<JsonNode> list(
      String search, int offset, int limit, InProcessApis.Caller caller) {
    return ConsoleCluster.fanOut(
            cluster.brokers(),
            node ->
                cluster.<ListGroupsResponseData>at(
                    node,
                    ApiKeys.LIST_GROUPS,
                    (short) 5,
                    new ListGroupsRequestData()
                        .setStatesFilter(new ArrayList<>())
                        .setTypesFilter(new ArrayList<>()),
                    caller),
            ConsoleCluster.TIMEOUT_MS)
        .thenCompose(replies -> merge(replies, caller))
        .thenCompose(listing -> page(listing, search, offset, limit, caller));
  }

  /** The merged listing: each group with its coordinator, and the brokers that gave no answer. */
  record Listing(
      Map<String, ListGroupsResponseData.ListedGroup> groups,
      Map<String, Integer> coordinators,
      ArrayNode unanswered) {}

  /**
   * This broker's groups as its handler listed them for the user, and the other brokers' groups the
   * user may describe (FindCoordinator as the user), with their coordinators.
   */
  CompletableFuture<Listing> merge(
      List<ConsoleCluster.Reply<ListGroupsResponseData>> replies, InProcessApis.Caller caller) {
    return cluster
        .merge(
            ConsoleCluster.GROUP,
            replies,
            answer ->
                answer.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId).toList(),
            ListGroupsResponseData::errorCode,
            caller)
        .thenApply(
            merged -> {
              // Each shown group as the first broker listing it describes it.
              Map<String, ListGroupsResponseData.ListedGroup> groups = new TreeMap<>();
              for (ConsoleCluster.Reply<ListGroupsResponseData> reply : replies) {
                if (reply.answered()) {
                  for (ListGroupsResponseData.ListedGroup g : reply.value().groups()) {
                    if (merged.coordinators().containsKey(g.groupId())) {
                      groups.putIfAbsent(g.groupId(), g);
                    }
                  }
                }
              }
              return new Listing(groups, merged.coordinators(), merged.unanswered());
            });
  }

  private CompletableFuture<JsonNode> page(
      Listing listing, String search, int offset, int limit, InProcessApis.Caller caller) {
    List<ListGroupsResponseData.ListedGroup> listed = new ArrayList<>();
    for (ListGroupsResponseData.ListedGroup g : listing.groups().values()) {
      if (ClusterView.matches(g.groupId(), search)) {
        listed.add(g);
      }
    }
    ClusterView.Page<ListGroupsResponseData.ListedGroup> page =
        ClusterView.page(listed, offset, limit);
    ObjectNode root = JSON.createObjectNode();
    root.put("total", page.total());
    root.put("offset", page.offset());
    root.put("limit", page.limit());
    root.set("unanswered", listing.unanswered());
    ArrayNode rows = root.putArray("groups");
    Map<Integer, List<String>> byCoordinator = new TreeMap<>();
    for (ListGroupsResponseData.ListedGroup g : page.rows()) {
      int node = listing.coordinators().getOrDefault(g.groupId(), cluster.nodeId());
      byCoordinator.computeIfAbsent(node, n -> new ArrayList<>()).add(g.groupId());
      rows.addObject()
          .put("group_id", g.groupId())
          .put("state", g.groupState())
          .put("protocol_type", g.protocolType())
          .put("type", g.groupType())
          .put("coordinator", node);
    }
    return memberCounts(byCoordinator, caller)
        .thenCombine(
            totals(byCoordinator, caller),
            (counts, lags) -> {
              for (JsonNode row : rows) {
                String id = row.get("group_id").asText();
                Integer count = counts.get(id);
                if (count != null) {
                  ((ObjectNode) row).put("members", count);
                }
                putLag((ObjectNode) row, lags.get(id));
              }
              return root;
            });
  }

  /**
   * Each group's lag totals over the partitions of the topics the caller may DESCRIBE only, as its
   * page shows them: the positions of the page's groups, one DESCRIBE check of their topics, then
   * the totals.
   */
  private CompletableFuture<Map<String, LagTotals>> totals(
      Map<Integer, List<String>> byCoordinator, InProcessApis.Caller caller) {
    return positions(byCoordinator)
        .thenCompose(groups -> visible(groups, caller))
        .thenCompose(
            groups ->
                measure(
                    groups,
                    (calculator, now) -> {
                      Map<String, LagTotals> totals = new HashMap<>();
                      for (GroupPositions g : groups) {
                        totals.put(g.groupId(), calculator.totals(g.positions(), now));
                      }
                      return totals;
                    }));
  }

  /**
   * {@code groups} with only the positions in topics the caller may DESCRIBE (OffsetFetch leaves
   * the others out for a client too): one Metadata request as the caller, naming each topic once.
   */
  private CompletableFuture<List<GroupPositions>> visible(
      List<GroupPositions> groups, InProcessApis.Caller caller) {
    Set<String> topics = new HashSet<>();
    for (GroupPositions g : groups) {
      topics.addAll(topics(g));
    }
    return cluster
        .describable(new ArrayList<>(topics), caller)
        .thenApply(
            allowed -> {
              List<GroupPositions> shown = new ArrayList<>(groups.size());
              for (GroupPositions g : groups) {
                shown.add(new GroupPositions(g.groupId(), visible(g, allowed)));
              }
              return shown;
            });
  }

  /** The distinct topics of a group's positions. */
  private static Set<String> topics(GroupPositions group) {
    Set<String> topics = new HashSet<>();
    for (GroupPositions.Position p : group.positions()) {
      topics.add(p.topicPartition().topic());
    }
    return topics;
  }

  /** The positions of {@code group} in the {@code allowed} topics, in the group's order. */
  private static List<GroupPositions.Position> visible(GroupPositions group, Set<String> allowed) {
    List<GroupPositions.Position> shown = new ArrayList<>(group.positions().size());
    for (GroupPositions.Position p : group.positions()) {
      if (allowed.contains(p.topicPartition().topic())) {
        shown.add(p);
      }
    }
    return shown;
  }

  /** Members of each group, from its coordinator's DescribeGroups; a silent one gives none. */
  private CompletableFuture<Map<String, Integer>> memberCounts(
      Map<Integer, List<String>> byCoordinator, InProcessApis.Caller caller) {
    return ConsoleCluster.fanOut(
            byCoordinator.keySet(),
            node -> describe(node, byCoordinator.get(node), caller),
            ConsoleCluster.TIMEOUT_MS)
        .thenApply(
            replies -> {
              Map<String, Integer> counts = new HashMap<>();
              for (ConsoleCluster.Reply<List<DescribeGroupsResponseData.DescribedGroup>> r :
                  replies) {
                if (r.answered()) {
                  for (DescribeGroupsResponseData.DescribedGroup g : r.value()) {
                    if (g.errorCode() == Errors.NONE.code()) {
                      counts.put(g.groupId(), g.members().size());
                    }
                  }
                }
              }
              return counts;
            });
  }

  private CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>> describe(
      int node, List<String> ids, InProcessApis.Caller caller) {
    DescribeGroupsRequestData request =
        new DescribeGroupsRequestData()
            .setGroups(new ArrayList<>(ids))
            .setIncludeAuthorizedOperations(false);
    return cluster
        .<DescribeGroupsResponseData>at(node, ApiKeys.DESCRIBE_GROUPS, (short) 5, request, caller)
        .thenApply(DescribeGroupsResponseData::groups);
  }

  /**
   * The committed positions of the groups, by coordinator: this broker's from its shards, the
   * others' from their coordinators' OffsetFetch. A coordinator that does not answer leaves its
   * groups without positions (and so without lag).
   */
  private CompletableFuture<List<GroupPositions>> positions(
      Map<Integer, List<String>> byCoordinator) {
    return ConsoleCluster.fanOut(
            byCoordinator.keySet(),
            node -> positions(node, byCoordinator.get(node)),
            ConsoleCluster.TIMEOUT_MS)
        .thenApply(
            replies -> {
              List<GroupPositions> all = new ArrayList<>();
              replies.forEach(
                  r -> {
                    if (r.answered()) {
                      all.addAll(r.value());
                    }
                  });
              return all;
            });
  }

  /** The committed positions of {@code ids} at their coordinator {@code node}. */
  private CompletableFuture<List<GroupPositions>> positions(int node, Collection<String> ids) {
    if (node == cluster.nodeId() || !cluster.reaches(node)) {
      return coordinator.positions(ids);
    }
    OffsetFetchRequestData request = new OffsetFetchRequestData().setRequireStable(false);
    for (String id : ids) {
      request
          .groups()
          .add(
              new OffsetFetchRequestData.OffsetFetchRequestGroup()
                  .setGroupId(id)
                  .setMemberId(null)
                  .setMemberEpoch(-1)
                  .setTopics(null));
    }
    return cluster
        .<OffsetFetchResponseData>at(node, ApiKeys.OFFSET_FETCH, (short) 9, request, null)
        .thenApply(this::committedPositions);
  }

  /** An OffsetFetch answer as committed positions (without the previous commit: no rate). */
  List<GroupPositions> committedPositions(OffsetFetchResponseData answer) {
    List<GroupPositions> groups = new ArrayList<>();
    for (OffsetFetchResponseData.OffsetFetchResponseGroup g : answer.groups()) {
      if (g.errorCode() != Errors.NONE.code()) {
        continue;
      }
      List<GroupPositions.Position> positions = new ArrayList<>();
      for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
        String topic = cluster.topicName(t.name(), t.topicId());
        for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
          if (p.errorCode() == Errors.NONE.code() && p.committedOffset() >= 0) {
            positions.add(
                new GroupPositions.Position(
                    new TopicPartition(topic, p.partitionIndex()),
                    new CommittedOffset(
                        p.committedOffset(), p.committedLeaderEpoch(), p.metadata(), -1),
                    Optional.empty()));
          }
        }
      }
      // A group without offsets has no lag, as one of this broker's shards shows none.
      if (!positions.isEmpty()) {
        groups.add(new GroupPositions(g.groupId(), positions));
      }
    }
    return groups;
  }

  /**
   * {@code compute} with the lag view of the partitions of {@code groups}: those this broker leads
   * read here, the others' ends asked of their leaders (which look the positions up in the order
   * given, a bounded number per leader); computed on the console's worker, as it reads batch
   * headers from the logs.
   */
  private <T> CompletableFuture<T> measure(
      List<GroupPositions> groups, BiFunction<LagCalculator, Long, T> compute) {
    boolean none = groups.stream().allMatch(g -> g.positions().isEmpty());
    CompletableFuture<PartitionEnds> elsewhere =
        leaderEnds == null || none
            ? CompletableFuture.completedFuture(NONE)
            : leaderEnds.apply(groups);
    return elsewhere.thenApplyAsync(
        ends ->
            compute.apply(
                new LagCalculator(
                    coordinator == null ? ends : coordinator.partitionEnds().orElse(ends)),
                System.currentTimeMillis()),
        worker);
  }

  /**
   * A group's page, served by its coordinator wherever that is: its members, its total lag, and the
   * committed offsets and lag of the partitions from {@code offset} (by topic, then partition), at
   * most {@code limit}, so a group committed on tens of thousands of partitions is not sent whole.
   */
  CompletableFuture<JsonNode> group(
      String groupId, int offset, int limit, InProcessApis.Caller caller) {
    // FindCoordinator as the user also checks the user may DESCRIBE the group (403 otherwise).
    return cluster
        .coordinator(ConsoleCluster.GROUP, groupId, caller)
        .thenCompose(
            node ->
                describe(node, List.of(groupId), caller)
                    .thenCompose(
                        groups -> group(groupId, node, groups.get(0), offset, limit, caller)));
  }

  private CompletableFuture<JsonNode> group(
      String groupId,
      int node,
      DescribeGroupsResponseData.DescribedGroup g,
      int offset,
      int limit,
      InProcessApis.Caller caller) {
    // Refused: nothing about the group shows. Otherwise a group DescribeGroups cannot describe (a
    // consumer-protocol group) still shows its offsets and lag.
    if (g.errorCode() == Errors.GROUP_AUTHORIZATION_FAILED.code()) {
      throw ConsoleException.of(g.errorCode(), g.errorMessage());
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("group_id", groupId);
    root.put("coordinator", node);
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
    return positions(node, List.of(groupId))
        .thenCompose(
            found -> {
              if (found.isEmpty()) {
                return CompletableFuture.completedFuture(groupPartitions(root, g, null, null, 0));
              }
              GroupPositions positions = found.get(0);
              return cluster
                  .describable(new ArrayList<>(topics(positions)), caller)
                  .thenCompose(
                      allowed -> {
                        PartitionPage page = partitionPage(positions, allowed, offset, limit);
                        // The page's rows first: the leaders' reads look them up first.
                        return measure(
                            List.of(
                                new GroupPositions(groupId, page.rows().rows()),
                                new GroupPositions(groupId, page.visible())),
                            (calculator, now) -> groupPartitions(root, g, page, calculator, now));
                      });
            });
  }

  /**
   * One page of a group's partitions: those in topics the user may DESCRIBE, by topic and partition
   * (the one order the page shows, so every visible position is sorted: references only), and the
   * page's rows of them.
   */
  record PartitionPage(
      List<GroupPositions.Position> visible, ClusterView.Page<GroupPositions.Position> rows) {}

  static PartitionPage partitionPage(
      GroupPositions positions, Set<String> allowed, int offset, int limit) {
    List<GroupPositions.Position> visible = visible(positions, allowed);
    visible.sort(
        Comparator.comparing(GroupPositions.Position::topicPartition, ConsoleApi.TP_ORDER));
    return new PartitionPage(visible, ClusterView.page(visible, offset, limit));
  }

  /**
   * The group page's offsets and lag: each row of the page measured, the totals over every visible
   * partition summed without a figure kept per partition.
   *
   * @param page null when the group has no committed offsets
   */
  static JsonNode groupPartitions(
      ObjectNode root,
      DescribeGroupsResponseData.DescribedGroup g,
      PartitionPage page,
      LagCalculator calculator,
      long nowMs) {
    if (page == null) {
      if (g.errorCode() != Errors.NONE.code()) {
        throw ConsoleException.of(g.errorCode(), g.errorMessage());
      }
      putLag(root, null);
      root.put("partition_count", 0);
      root.put("offset", 0);
      root.put("limit", 0);
      root.putArray("partitions");
      return root;
    }
    // The totals too are of the partitions shown to the user.
    putLag(root, calculator.totals(page.visible(), nowMs));
    root.put("partition_count", page.rows().total());
    root.put("offset", page.rows().offset());
    root.put("limit", page.rows().limit());
    ArrayNode partitions = root.putArray("partitions");
    for (GroupPositions.Position position : page.rows().rows()) {
      PartitionLag p =
          calculator.lag(
              position.topicPartition(), position.committed(), position.previous(), nowMs);
      ObjectNode node = partitions.addObject();
      node.put("topic", p.topicPartition().topic());
      node.put("partition", p.topicPartition().partition());
      node.put("committed_offset", p.committedOffset());
      if (p.logEndOffset() >= 0) {
        node.put("log_end_offset", p.logEndOffset());
        node.put("lag_records", p.lagRecords());
      }
      p.lagTime().ifPresent(t -> node.put("lag_seconds", t.toMillis() / 1000.0));
    }
    return root;
  }

  private static void putLag(ObjectNode row, LagTotals lag) {
    if (lag == null) {
      row.putNull("lag_records");
      row.putNull("lag_seconds");
      return;
    }
    row.put("lag_records", lag.lagRecords());
    Optional<Duration> time = lag.maxLagTime();
    if (time.isPresent()) {
      row.put("lag_seconds", time.get().toMillis() / 1000.0);
    } else {
      row.putNull("lag_seconds");
    }
  }
}
