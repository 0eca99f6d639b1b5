package io.brook.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transactions page's endpoints, over the whole cluster: the transactions every broker
 * coordinates (ListTransactions of every broker, then DescribeTransactions at each one's
 * coordinator for its state, age and partitions) and the producers each partition of a topic knows
 * (DescribeProducers at its leader). Each request goes first to this broker's handler as the
 * caller, or the caller's rights are checked there before another broker's answer shows ({@link
 * ConsoleCluster}), so a user sees what {@code kafka-transactions} would show them. A transaction
 * open longer than {@code transaction.max.timeout.ms} is marked hung: no producer may ask for a
 * longer timeout, so the coordinator should already have aborted it.
 */
final class ConsoleTransactions {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Partitions shown per transaction at the most; the row says how many it has (one transaction may
   * write to thousands).
   */
  static final int MAX_PARTITIONS_SHOWN = 50;

  private final ConsoleCluster cluster;
  private final long maxTimeoutMs;

  ConsoleTransactions(ConsoleCluster cluster, long maxTimeoutMs) {
    this.cluster = cluster;
    this.maxTimeoutMs = maxTimeoutMs;
  }

  /**
   * A page of the cluster's transactions whose transactional id contains {@code search} (lower
   * case), by id, with their state, producer, age and partitions: every broker's listing is merged
   * and filtered, then only the page's ids are described.
   */
  CompletableFuture<JsonNode> transactions(
      String search, int offset, int limit, InProcessApis.Caller caller) {
    return ConsoleCluster.fanOut(
            cluster.brokers(),
            node ->
                cluster.<ListTransactionsResponseData>at(
                    node,
                    ApiKeys.LIST_TRANSACTIONS,
                    (short) 0,
                    new ListTransactionsRequestData()
                        .setStateFilters(new ArrayList<>())
                        .setProducerIdFilters(new ArrayList<>()),
                    caller),
            ConsoleCluster.TIMEOUT_MS)
        .thenCompose(
            replies ->
                cluster.merge(
                    ConsoleCluster.TRANSACTION,
                    replies,
                    answer ->
                        answer.transactionStates().stream()
                            .map(ListTransactionsResponseData.TransactionState::transactionalId)
                            .toList(),
                    ListTransactionsResponseData::errorCode,
                    caller))
        .thenCompose(listing -> describe(listing, search, offset, limit, caller));
  }

  private CompletableFuture<JsonNode> describe(
      ConsoleCluster.Merged listing,
      String search,
      int offset,
      int limit,
      InProcessApis.Caller caller) {
    List<String> ids = new ArrayList<>();
    // The merged listing is sorted by id.
    for (String id : listing.coordinators().keySet()) {
      if (ClusterView.matches(id, search)) {
        ids.add(id);
      }
    }
    ClusterView.Page<String> page = ClusterView.page(ids, offset, limit);
    ObjectNode root = JSON.createObjectNode();
    root.put("total", page.total());
    root.put("offset", page.offset());
    root.put("limit", page.limit());
    root.put("max_timeout_ms", maxTimeoutMs);
    root.set("unanswered", listing.unanswered());
    ArrayNode rows = root.putArray("transactions");
    Map<Integer, List<String>> byCoordinator = new TreeMap<>();
    for (String id : page.rows()) {
      byCoordinator.computeIfAbsent(listing.coordinators().get(id), n -> new ArrayList<>()).add(id);
    }
    return ConsoleCluster.fanOut(
            byCoordinator.keySet(),
            node ->
                cluster.<DescribeTransactionsResponseData>at(
                    node,
                    ApiKeys.DESCRIBE_TRANSACTIONS,
                    (short) 0,
                    new DescribeTransactionsRequestData()
                        .setTransactionalIds(new ArrayList<>(byCoordinator.get(node))),
                    caller),
            ConsoleCluster.TIMEOUT_MS)
        .thenApply(
            replies -> {
              long now = System.currentTimeMillis();
              Map<String, ObjectNode> byId = new TreeMap<>();
              for (ConsoleCluster.Reply<DescribeTransactionsResponseData> reply : replies) {
                if (!reply.answered()) {
                  for (String id : byCoordinator.get(reply.node())) {
                    byId.put(
                        id,
                        JSON.createObjectNode()
                            .put("transactional_id", id)
                            .put("coordinator", reply.node())
                            .put("error", reply.failure()));
                  }
                  continue;
                }
                for (DescribeTransactionsResponseData.TransactionState t :
                    reply.value().transactionStates()) {
                  byId.put(t.transactionalId(), row(t, now).put("coordinator", reply.node()));
                }
              }
              byId.values().forEach(rows::add);
              return (JsonNode) root;
            });
  }

  private ObjectNode row(DescribeTransactionsResponseData.TransactionState t, long now) {
    ObjectNode row = JSON.createObjectNode();
    row.put("transactional_id", t.transactionalId());
    if (t.errorCode() != Errors.NONE.code()) {
      row.put("error", Errors.forCode(t.errorCode()).name());
      return row;
    }
    row.put("state", t.transactionState());
    row.put("producer_id", t.producerId());
    row.put("producer_epoch", t.producerEpoch());
    row.put("timeout_ms", t.transactionTimeoutMs());
    boolean started = t.transactionStartTimeMs() >= 0;
    if (started) {
      long age = Math.max(0, now - t.transactionStartTimeMs());
      row.put("start_time", t.transactionStartTimeMs());
      row.put("age_ms", age);
      row.put("hung", "Ongoing".equals(t.transactionState()) && age > maxTimeoutMs);
    } else {
      row.put("hung", false);
    }
    List<DescribeTransactionsResponseData.TopicData> topics = new ArrayList<>(t.topics());
    topics.sort(Comparator.comparing(DescribeTransactionsResponseData.TopicData::topic));
    int count = 0;
    ArrayNode partitions = row.putArray("partitions");
    for (DescribeTransactionsResponseData.TopicData topic : topics) {
      List<Integer> ids = new ArrayList<>(topic.partitions());
      ids.sort(null);
      for (int p : ids) {
        if (count++ < MAX_PARTITIONS_SHOWN) {
          partitions.addObject().put("topic", topic.topic()).put("partition", p);
        }
      }
    }
    row.put("partition_count", count);
    return row;
  }

  /**
   * The producers each partition of {@code topic} knows: DescribeProducers to this broker's handler
   * as the caller (which checks the caller may READ the topic), then, for the partitions another
   * broker leads, to each leader; a leader that does not answer is shown as such.
   */
  CompletableFuture<JsonNode> producers(TopicImage topic, InProcessApis.Caller caller) {
    List<Integer> partitions = new ArrayList<>(topic.partitions().keySet());
    partitions.sort(null);
    return describeProducers(cluster.nodeId(), topic.name(), partitions, caller)
        .thenCompose(
            local -> {
              Map<Integer, DescribeProducersResponseData.PartitionResponse> answers =
                  new TreeMap<>();
              Map<Integer, List<Integer>> byLeader = new TreeMap<>();
              for (DescribeProducersResponseData.PartitionResponse p : partitions(local)) {
                if (p.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                  throw ConsoleException.of(
                      p.errorCode(), "not authorized to read topic " + topic.name());
                }
                int leader = cluster.leader(topic.name(), p.partitionIndex());
                if (p.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code()
                    && cluster.reaches(leader)) {
                  byLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(p.partitionIndex());
                } else {
                  answers.put(p.partitionIndex(), p);
                }
              }
              return ConsoleCluster.fanOut(
                      byLeader.keySet(),
                      leader ->
                          describeProducers(leader, topic.name(), byLeader.get(leader), caller),
                      ConsoleCluster.TIMEOUT_MS)
                  .thenApply(
                      replies -> {
                        ObjectNode root = JSON.createObjectNode();
                        root.put("topic", topic.name());
                        Map<Integer, String> silent = new TreeMap<>();
                        for (ConsoleCluster.Reply<DescribeProducersResponseData> reply : replies) {
                          if (reply.answered()) {
                            partitions(reply.value())
                                .forEach(p -> answers.put(p.partitionIndex(), p));
                          } else {
                            byLeader
                                .get(reply.node())
                                .forEach(
                                    p ->
                                        silent.put(
                                            p, "broker " + reply.node() + ": " + reply.failure()));
                          }
                        }
                        ArrayNode rows = root.putArray("partitions");
                        for (int partition : partitions) {
                          ObjectNode row = rows.addObject();
                          row.put("partition", partition);
                          row.put("leader", cluster.leader(topic.name(), partition));
                          DescribeProducersResponseData.PartitionResponse p =
                              answers.get(partition);
                          if (p == null) {
                            row.put("error", silent.getOrDefault(partition, "no answer"));
                            continue;
                          }
                          producers(row, p);
                        }
                        return (JsonNode) root;
                      });
            });
  }

  private CompletableFuture<DescribeProducersResponseData> describeProducers(
      int node, String topic, List<Integer> partitions, InProcessApis.Caller caller) {
    DescribeProducersRequestData request = new DescribeProducersRequestData();
    request
        .topics()
        .add(
            new DescribeProducersRequestData.TopicRequest()
                .setName(topic)
                .setPartitionIndexes(new ArrayList<>(partitions)));
    return cluster.at(node, ApiKeys.DESCRIBE_PRODUCERS, (short) 0, request, caller);
  }

  private static List<DescribeProducersResponseData.PartitionResponse> partitions(
      DescribeProducersResponseData response) {
    List<DescribeProducersResponseData.PartitionResponse> all = new ArrayList<>();
    response.topics().forEach(t -> all.addAll(t.partitions()));
    return all;
  }

  private static void producers(ObjectNode row, DescribeProducersResponseData.PartitionResponse p) {
    if (p.errorCode() != Errors.NONE.code()) {
      row.put("error", Errors.forCode(p.errorCode()).name());
      return;
    }
    ArrayNode producers = row.putArray("producers");
    for (DescribeProducersResponseData.ProducerState s : p.activeProducers()) {
      producers
          .addObject()
          .put("producer_id", s.producerId())
          .put("producer_epoch", s.producerEpoch())
          .put("last_sequence", s.lastSequence())
          .put("last_timestamp", s.lastTimestamp())
          .put("coordinator_epoch", s.coordinatorEpoch())
          .put("current_txn_start_offset", s.currentTxnStartOffset());
    }
  }
}
