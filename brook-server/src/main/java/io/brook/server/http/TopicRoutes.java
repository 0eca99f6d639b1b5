package io.brook.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * {@code GET /v1/metadata} and the topic routes ({@code GET|POST /v1/topics}, {@code GET|DELETE
 * /v1/topics/{topic}}), each one Kafka request to the broker's handlers: Metadata (topics the
 * caller may not DESCRIBE are left out, as for a Kafka client), CreateTopics and DeleteTopics
 * (decided by the controller, answered once this broker has applied them), DescribeConfigs.
 */
final class TopicRoutes {
  /** How long a create or delete may wait for the controller (CreateTopics' timeout_ms). */
  static final int ADMIN_TIMEOUT_MS = 30_000;

  /** DescribeConfigs' source of a config set on the topic itself. */
  private static final byte DYNAMIC_TOPIC_CONFIG = 1;

  private final InProcessApis apis;

  TopicRoutes(InProcessApis apis) {
    this.apis = apis;
  }

  /** Metadata for every topic (null) or the named ones; auto-creation off. */
  CompletableFuture<InProcessApis.Answer<MetadataResponseData>> metadata(
      List<String> topics, InProcessApis.Caller caller) {
    MetadataRequestData request = KafkaRequests.metadata(topics);
    return apis.call(ApiKeys.METADATA, (short) 12, request, caller, 0);
  }

  CompletableFuture<Reply> clusterMetadata(InProcessApis.Caller caller) {
    return metadata(null, caller)
        .thenApply(
            answer -> {
              MetadataResponseData m = answer.response();
              ObjectNode root = Json.MAPPER.createObjectNode();
              root.put("cluster_id", m.clusterId());
              root.put("controller_id", m.controllerId());
              ArrayNode brokers = root.putArray("brokers");
              for (MetadataResponseData.MetadataResponseBroker b : m.brokers()) {
                brokers
                    .addObject()
                    .put("node_id", b.nodeId())
                    .put("host", b.host())
                    .put("port", b.port())
                    .put("rack", b.rack());
              }
              ArrayNode topics = root.putArray("topics");
              for (MetadataResponseData.MetadataResponseTopic t : m.topics()) {
                if (t.errorCode() == Errors.NONE.code()) {
                  topics.add(describe(t));
                }
              }
              return Reply.ok(root, answer.throttleMs());
            });
  }

  CompletableFuture<Reply> list(InProcessApis.Caller caller) {
    return metadata(null, caller)
        .thenApply(
            answer -> {
              ObjectNode root = Json.MAPPER.createObjectNode();
              ArrayNode topics = root.putArray("topics");
              for (MetadataResponseData.MetadataResponseTopic t : answer.response().topics()) {
                if (t.errorCode() == Errors.NONE.code()) {
                  topics
                      .addObject()
                      .put("name", t.name())
                      .put("topic_id", t.topicId().toString())
                      .put("internal", t.isInternal())
                      .put("partitions", t.partitions().size())
                      .put(
                          "replication_factor",
                          t.partitions().isEmpty()
                              ? 0
                              : t.partitions().get(0).replicaNodes().size());
                }
              }
              return Reply.ok(root, answer.throttleMs());
            });
  }

  /** One topic's partitions, leaders and ISR, and the configs set on it. */
  CompletableFuture<Reply> describe(String topic, InProcessApis.Caller caller) {
    return metadata(List.of(topic), caller)
        .thenCompose(
            answer -> {
              MetadataResponseData.MetadataResponseTopic t = only(answer.response(), topic);
              ObjectNode node = describe(t);
              DescribeConfigsRequestData request = KafkaRequests.describeTopicConfigs(topic);
              return apis.<DescribeConfigsResponseData>call(
                      ApiKeys.DESCRIBE_CONFIGS, (short) 4, request, caller, 0)
                  .thenApply(
                      configs -> {
                        ObjectNode set = node.putObject("configs");
                        for (DescribeConfigsResponseData.DescribeConfigsResult r :
                            configs.response().results()) {
                          // Without DESCRIBE_CONFIGS the topic is still described, without configs.
                          if (r.errorCode() != Errors.NONE.code()) {
                            node.remove("configs");
                            continue;
                          }
                          for (DescribeConfigsResponseData.DescribeConfigsResourceResult c :
                              r.configs()) {
                            if (c.configSource() == DYNAMIC_TOPIC_CONFIG) {
                              set.put(c.name(), c.isSensitive() ? null : c.value());
                            }
                          }
                        }
                        return Reply.ok(node, answer.throttleMs() + configs.throttleMs());
                      });
            });
  }

  /** The topic the Metadata response names, or the error it got as an exception. */
  static MetadataResponseData.MetadataResponseTopic only(MetadataResponseData m, String topic) {
    for (MetadataResponseData.MetadataResponseTopic t : m.topics()) {
      if (topic.equals(t.name())) {
        if (t.errorCode() != Errors.NONE.code()) {
          Errors error = Errors.forCode(t.errorCode());
          throw new HttpApiException(error, error.message() + " (topic " + topic + ")");
        }
        return t;
      }
    }
    throw new HttpApiException(
        Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + topic);
  }

  private static ObjectNode describe(MetadataResponseData.MetadataResponseTopic t) {
    ObjectNode node = Json.MAPPER.createObjectNode();
    node.put("name", t.name());
    node.put("topic_id", t.topicId().toString());
    node.put("internal", t.isInternal());
    ArrayNode partitions = node.putArray("partitions");
    for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
      ObjectNode partition = partitions.addObject();
      partition.put("partition", p.partitionIndex());
      partition.put("leader", p.leaderId());
      partition.put("leader_epoch", p.leaderEpoch());
      ints(partition.putArray("replicas"), p.replicaNodes());
      ints(partition.putArray("isr"), p.isrNodes());
      ints(partition.putArray("offline_replicas"), p.offlineReplicas());
      if (p.errorCode() != Errors.NONE.code()) {
        partition.put("error", Errors.forCode(p.errorCode()).name());
      }
    }
    return node;
  }

  private static void ints(ArrayNode array, List<Integer> values) {
    values.forEach(array::add);
  }

  CompletableFuture<Reply> create(ObjectNode body, InProcessApis.Caller caller, int bodyBytes) {
    String name = Json.text(body, "name", true);
    int partitions = (int) Json.integer(body, "partitions", -1, -1, Integer.MAX_VALUE);
    short replication = (short) Json.integer(body, "replication_factor", -1, -1, Short.MAX_VALUE);
    CreateTopicsRequestData.CreatableTopic topic =
        KafkaRequests.creatableTopic(name, partitions, replication);
    JsonNode configs = body.get("configs");
    if (configs != null && !configs.isNull()) {
      if (!configs.isObject()) {
        throw HttpApiException.badRequest("\"configs\" must be an object of strings");
      }
      for (Map.Entry<String, JsonNode> entry : configs.properties()) {
        if (!entry.getValue().isTextual()
            && !entry.getValue().isNumber()
            && !entry.getValue().isBoolean()) {
          throw HttpApiException.badRequest(
              "config " + entry.getKey() + " must be a string, a number or a boolean");
        }
        topic
            .configs()
            .add(
                new CreateTopicsRequestData.CreatableTopicConfig()
                    .setName(entry.getKey())
                    .setValue(entry.getValue().asText()));
      }
    }
    CreateTopicsRequestData request = KafkaRequests.createTopic(topic, ADMIN_TIMEOUT_MS);
    return apis.<CreateTopicsResponseData>call(
            ApiKeys.CREATE_TOPICS, (short) 7, request, caller, bodyBytes)
        .thenApply(
            answer -> {
              CreateTopicsResponseData.CreatableTopicResult r =
                  answer.response().topics().find(name);
              if (r == null) {
                throw new HttpApiException(Errors.UNKNOWN_SERVER_ERROR, "no answer for " + name);
              }
              if (r.errorCode() != Errors.NONE.code()) {
                throw new HttpApiException(Errors.forCode(r.errorCode()), r.errorMessage());
              }
              ObjectNode node = Json.MAPPER.createObjectNode();
              node.put("name", r.name());
              node.put("topic_id", r.topicId() == null ? null : r.topicId().toString());
              node.put("partitions", r.numPartitions());
              node.put("replication_factor", r.replicationFactor());
              return new Reply(HttpResponseStatus.CREATED, node, answer.throttleMs());
            });
  }

  CompletableFuture<Reply> delete(String name, InProcessApis.Caller caller) {
    DeleteTopicsRequestData request = KafkaRequests.deleteTopic(name, ADMIN_TIMEOUT_MS);
    return apis.<DeleteTopicsResponseData>call(ApiKeys.DELETE_TOPICS, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              for (DeleteTopicsResponseData.DeletableTopicResult r :
                  answer.response().responses()) {
                if (r.errorCode() != Errors.NONE.code()) {
                  throw new HttpApiException(Errors.forCode(r.errorCode()), r.errorMessage());
                }
              }
              ObjectNode node = Json.MAPPER.createObjectNode().put("name", name);
              return Reply.ok(node, answer.throttleMs());
            });
  }
}
