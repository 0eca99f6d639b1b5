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
 * The transactions page's endpoints: the transactions this broker coordinates (ListTransactions,
 * then DescribeTransactions for their state, age and partitions) and the producers a topic's
 * partitions know (DescribeProducers), each one request to the broker's own handlers as the caller,
 * so a user sees what {@code kafka-transactions} would show them. A transaction open longer than
 * {@code transaction.max.timeout.ms} is marked hung: no producer may ask for a longer timeout, so
 * the coordinator should already have aborted it.
 */
final class ConsoleTransactions {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Transactional ids described per page at the most (the list itself is not cut). */
  static final int MAX_DESCRIBED = 200;

  private final InProcessApis apis;
  private final long maxTimeoutMs;

  ConsoleTransactions(InProcessApis apis, long maxTimeoutMs) {
    this.apis = apis;
    this.maxTimeoutMs = maxTimeoutMs;
  }

  /** Open and recent transactions with their state, producer, age and partitions. */
  CompletableFuture<JsonNode> transactions(InProcessApis.Caller caller) {
    ListTransactionsRequestData list =
        new ListTransactionsRequestData()
            .setStateFilters(new ArrayList<>())
            .setProducerIdFilters(new ArrayList<>());
    return apis.<ListTransactionsResponseData>call(
            ApiKeys.LIST_TRANSACTIONS, (short) 0, list, caller, 0)
        .thenCompose(
            listed -> {
              if (listed.response().errorCode() != Errors.NONE.code()) {
                throw ConsoleException.of(listed.response().errorCode(), null);
              }
              List<String> ids = new ArrayList<>();
              for (ListTransactionsResponseData.TransactionState t :
                  listed.response().transactionStates()) {
                ids.add(t.transactionalId());
              }
              ids.sort(null);
              int total = ids.size();
              List<String> described = ids.subList(0, Math.min(total, MAX_DESCRIBED));
              ObjectNode root = JSON.createObjectNode();
              root.put("total", total);
              root.put("max_timeout_ms", maxTimeoutMs);
              ArrayNode rows = root.putArray("transactions");
              if (described.isEmpty()) {
                return CompletableFuture.completedFuture((JsonNode) root);
              }
              DescribeTransactionsRequestData describe =
                  new DescribeTransactionsRequestData()
                      .setTransactionalIds(new ArrayList<>(described));
              return apis.<DescribeTransactionsResponseData>call(
                      ApiKeys.DESCRIBE_TRANSACTIONS, (short) 0, describe, caller, 0)
                  .thenApply(
                      answer -> {
                        long now = System.currentTimeMillis();
                        for (DescribeTransactionsResponseData.TransactionState t :
                            answer.response().transactionStates()) {
                          rows.add(row(t, now));
                        }
                        return (JsonNode) root;
                      });
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
    ArrayNode partitions = row.putArray("partitions");
    List<DescribeTransactionsResponseData.TopicData> topics = new ArrayList<>(t.topics());
    topics.sort(Comparator.comparing(DescribeTransactionsResponseData.TopicData::topic));
    for (DescribeTransactionsResponseData.TopicData topic : topics) {
      topic.partitions().stream()
          .sorted()
          .forEach(p -> partitions.addObject().put("topic", topic.topic()).put("partition", p));
    }
    return row;
  }

  /** The producers each partition of {@code topic} knows, from the partitions' leaders here. */
  CompletableFuture<JsonNode> producers(TopicImage topic, InProcessApis.Caller caller) {
    List<Integer> partitions = new ArrayList<>(topic.partitions().keySet());
    partitions.sort(null);
    DescribeProducersRequestData request = new DescribeProducersRequestData();
    request
        .topics()
        .add(
            new DescribeProducersRequestData.TopicRequest()
                .setName(topic.name())
                .setPartitionIndexes(partitions));
    return apis.<DescribeProducersResponseData>call(
            ApiKeys.DESCRIBE_PRODUCERS, (short) 0, request, caller, 0)
        .thenApply(
            answer -> {
              ObjectNode root = JSON.createObjectNode();
              root.put("topic", topic.name());
              ArrayNode rows = root.putArray("partitions");
              for (DescribeProducersResponseData.TopicResponse t : answer.response().topics()) {
                for (DescribeProducersResponseData.PartitionResponse p : t.partitions()) {
                  if (p.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                    throw ConsoleException.of(
                        p.errorCode(), "not authorized to read topic " + topic.name());
                  }
                  ObjectNode row = rows.addObject();
                  row.put("partition", p.partitionIndex());
                  if (p.errorCode() != Errors.NONE.code()) {
                    // A partition another broker leads: its producers are on that broker.
                    row.put("error", Errors.forCode(p.errorCode()).name());
                    continue;
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
              return (JsonNode) root;
            });
  }
}
