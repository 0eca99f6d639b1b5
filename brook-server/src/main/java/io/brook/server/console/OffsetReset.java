package io.brook.server.console;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.server.http.KafkaRequests;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group's committed offsets moved as {@code kafka-consumer-groups --reset-offsets} moves them: to
 * the earliest or latest offset, the first offset at or after a time, or a given offset (kept
 * within the log, as the tool keeps it), for all the partitions the group committed or a chosen
 * few. A preview (the default) shows each partition's current and new offset and how many records
 * the group would skip (positive) or read again (negative); applying commits them. Only a group
 * without members is reset: its consumers would overwrite the offsets with their next commit, so
 * the tool refuses too, and so does the coordinator (the commit comes from outside the group's
 * generation). Every step is a Kafka request as the caller to this broker's handlers
 * (DescribeGroups, OffsetFetch, ListOffsets, OffsetCommit), so the group and topic ACLs apply as to
 * the tool; when the group's coordinator or a partition's leader is another broker, the handler
 * answers NOT_COORDINATOR or NOT_LEADER_OR_FOLLOWER once the caller is authorized, and the request
 * goes to that broker ({@link ConsoleCluster#atOwner}).
 */
final class OffsetReset {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long EARLIEST = -2;
  private static final long LATEST = -1;

  /**
   * Partitions an answer lists at the most (by topic, then partition); its totals count them all,
   * so a group committed on tens of thousands of partitions is not sent whole.
   */
  static final int MAX_ROWS = 100;

  /** Where a reset moves each partition, by the page's name for it. */
  enum Target {
    EARLIEST,
    LATEST,
    TIMESTAMP,
    OFFSET;

    static Target parse(String name) {
      try {
        return valueOf(name.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw ConsoleException.badRequest(
            "\"to\" must be earliest, latest, timestamp or offset, not \"" + name + "\"");
      }
    }
  }

  /** One partition's offsets for the preview. */
  record Row(TopicPartition tp, long current, long next) {}

  private final ConsoleCluster cluster;

  OffsetReset(ConsoleCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * Previews, or with {@code "apply": true} commits, a reset described by {@code body}: {@code to},
   * {@code value} (the time in ms, or the offset), optional {@code partitions} ([{topic,
   * partition}]), {@code apply}.
   */
  CompletableFuture<JsonNode> reset(String group, JsonNode body, InProcessApis.Caller caller) {
    Target target = Target.parse(ConsoleApi.text(body, "to", true));
    long value = ConsoleApi.integer(body, "value", -1, 0, Long.MAX_VALUE);
    if ((target == Target.TIMESTAMP || target == Target.OFFSET) && value < 0) {
      throw ConsoleException.badRequest("\"value\" is required to reset to a " + target.name());
    }
    Set<TopicPartition> chosen = chosen(body);
    boolean apply = body != null && body.path("apply").asBoolean(false);
    return requireEmpty(group, caller)
        .thenCompose(ignored -> committed(group, caller))
        .thenCompose(
            committed -> {
              List<TopicPartition> partitions = new ArrayList<>();
              for (TopicPartition tp : committed.keySet()) {
                if (chosen.isEmpty() || chosen.contains(tp)) {
                  partitions.add(tp);
                }
              }
              if (partitions.isEmpty()) {
                throw ConsoleException.badRequest(
                    "group " + group + " has no committed offset on the chosen partitions");
              }
              List<CompletableFuture<Row>> rows = new ArrayList<>();
              for (TopicPartition tp : partitions) {
                rows.add(
                    newOffset(tp, target, value, caller)
                        .thenApply(next -> new Row(tp, committed.get(tp), next)));
              }
              return CompletableFuture.allOf(rows.toArray(CompletableFuture[]::new))
                  .thenCompose(
                      done -> {
                        List<Row> plan = rows.stream().map(CompletableFuture::join).toList();
                        return apply
                            ? commit(group, plan, caller).thenApply(ok -> render(group, plan, true))
                            : CompletableFuture.completedFuture(render(group, plan, false));
                      });
            });
  }

  private static Set<TopicPartition> chosen(JsonNode body) {
    Set<TopicPartition> chosen = new HashSet<>();
    JsonNode list = body == null ? null : body.get("partitions");
    if (list != null && list.isArray()) {
      for (JsonNode p : list) {
        chosen.add(
            new TopicPartition(
                ConsoleApi.text(p, "topic", true),
                (int) ConsoleApi.integer(p, "partition", 0, 0, Integer.MAX_VALUE)));
      }
    }
    return chosen;
  }

  /** Fails unless the group has no members (or is not a group DescribeGroups knows yet). */
  private CompletableFuture<Void> requireEmpty(String group, InProcessApis.Caller caller) {
    return cluster
        .<DescribeGroupsResponseData>atOwner(
            ApiKeys.DESCRIBE_GROUPS,
            (short) 5,
            () ->
                new DescribeGroupsRequestData()
                    .setGroups(mutable(group))
                    .setIncludeAuthorizedOperations(false),
            caller,
            answer ->
                answer.groups().stream()
                    .anyMatch(g -> g.errorCode() == Errors.NOT_COORDINATOR.code()),
            () -> coordinator(group, caller))
        .thenApply(
            answer -> {
              for (DescribeGroupsResponseData.DescribedGroup g : answer.groups()) {
                if (g.errorCode() == Errors.GROUP_AUTHORIZATION_FAILED.code()) {
                  throw ConsoleException.of(g.errorCode(), g.errorMessage());
                }
                if (g.errorCode() == Errors.NONE.code() && !g.members().isEmpty()) {
                  throw notEmpty(group, g.groupState() + ", " + g.members().size() + " members");
                }
              }
              return null;
            });
  }

  private static ConsoleException notEmpty(String group, String why) {
    return new ConsoleException(
        HttpResponseStatus.CONFLICT,
        "group "
            + group
            + " is not empty ("
            + why
            + "): stop its consumers before resetting its offsets, which they would overwrite");
  }

  /** The group's committed offsets, as the caller may see them (OffsetFetch leaves out others). */
  private CompletableFuture<Map<TopicPartition, Long>> committed(
      String group, InProcessApis.Caller caller) {
    return cluster
        .<OffsetFetchResponseData>atOwner(
            ApiKeys.OFFSET_FETCH,
            (short) 9,
            () -> KafkaRequests.offsetFetch(group),
            caller,
            answer ->
                answer.groups().stream()
                    .anyMatch(g -> g.errorCode() == Errors.NOT_COORDINATOR.code()),
            () -> coordinator(group, caller))
        .thenCompose(
            answer -> {
              Map<TopicPartition, Long> committed = new TreeMap<>(ConsoleApi.TP_ORDER);
              for (OffsetFetchResponseData.OffsetFetchResponseGroup g : answer.groups()) {
                if (g.errorCode() != Errors.NONE.code()) {
                  throw ConsoleException.of(g.errorCode(), "group " + group);
                }
                for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
                  String topic = cluster.topicName(t.name(), t.topicId());
                  for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    if (p.errorCode() == Errors.NONE.code() && p.committedOffset() >= 0) {
                      committed.put(
                          new TopicPartition(topic, p.partitionIndex()), p.committedOffset());
                    }
                  }
                }
              }
              // The coordinator answered this node every topic: keep those the caller may
              // describe, as this broker's handler keeps them for the caller.
              List<String> topics =
                  committed.keySet().stream().map(TopicPartition::topic).distinct().toList();
              return cluster
                  .describable(topics, caller)
                  .thenApply(
                      allowed -> {
                        committed.keySet().removeIf(tp -> !allowed.contains(tp.topic()));
                        return committed;
                      });
            });
  }

  /** Where {@code target} puts the partition, within its log as the tool keeps it. */
  private CompletableFuture<Long> newOffset(
      TopicPartition tp, Target target, long value, InProcessApis.Caller caller) {
    return switch (target) {
      case EARLIEST -> list(tp, EARLIEST, caller);
      case LATEST -> list(tp, LATEST, caller);
      case TIMESTAMP ->
          list(tp, value, caller)
              // No record at or after the time: the end of the log, as the tool does.
              .thenCompose(found -> found >= 0 ? done(found) : list(tp, LATEST, caller));
      case OFFSET ->
          list(tp, EARLIEST, caller)
              .thenCombine(
                  list(tp, LATEST, caller), (start, end) -> Math.max(start, Math.min(end, value)));
    };
  }

  private static CompletableFuture<Long> done(long offset) {
    return CompletableFuture.completedFuture(offset);
  }

  private CompletableFuture<Long> list(
      TopicPartition tp, long timestamp, InProcessApis.Caller caller) {
    return ConsoleApi.listOffset(cluster, tp.topic(), tp.partition(), timestamp, caller);
  }

  private CompletableFuture<Integer> coordinator(String group, InProcessApis.Caller caller) {
    return cluster.coordinator(ConsoleCluster.GROUP, group, caller);
  }

  private CompletableFuture<Void> commit(
      String group, List<Row> plan, InProcessApis.Caller caller) {
    KafkaRequests.AdminOffsetCommit commit = KafkaRequests.adminOffsetCommit(group);
    for (Row row : plan) {
      commit.add(row.tp().topic(), row.tp().partition(), row.next(), "");
    }
    // From outside the group's generation: the coordinator takes it only while the group has no
    // members. To another broker with the topics' ids too.
    return cluster
        .<OffsetCommitResponseData>atOwner(
            ApiKeys.OFFSET_COMMIT,
            (short) 9,
            () -> commit.request(),
            () -> commit.request(cluster::topicId),
            caller,
            KafkaRequests::allNotCoordinator,
            () -> coordinator(group, caller))
        .thenApply(
            answer -> {
              for (OffsetCommitResponseData.OffsetCommitResponseTopic t : answer.topics()) {
                for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                  Errors error = Errors.forCode(p.errorCode());
                  switch (error) {
                    case NONE -> {}
                    case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS ->
                        throw notEmpty(group, "a consumer joined: " + error.name());
                    default ->
                        throw ConsoleException.of(
                            p.errorCode(),
                            cluster.topicName(t.name(), t.topicId()) + "-" + p.partitionIndex());
                  }
                }
              }
              return null;
            });
  }

  static JsonNode render(String group, List<Row> plan, boolean applied) {
    ObjectNode root = JSON.createObjectNode();
    root.put("group_id", group);
    root.put("applied", applied);
    root.put("partition_count", plan.size());
    root.put("skipped_total", plan.stream().mapToLong(row -> row.next() - row.current()).sum());
    ArrayNode rows = root.putArray("partitions");
    for (Row row : plan.subList(0, Math.min(plan.size(), MAX_ROWS))) {
      rows.addObject()
          .put("topic", row.tp().topic())
          .put("partition", row.tp().partition())
          .put("current_offset", row.current())
          .put("new_offset", row.next())
          // Positive: records the group will skip; negative: records it will read again.
          .put("skipped", row.next() - row.current());
    }
    return root;
  }
}
