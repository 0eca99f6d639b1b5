package io.brook.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.ClientRecords;
import io.brook.broker.api.InProcessApis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code POST /v1/topics/{topic}/records}: the records of the body become one uncompressed v2 batch
 * per partition, built once with kafka-clients' {@link MemoryRecords} builder, and one Produce
 * request through the broker's Produce handler (validation, WRITE authorization, quotas, acks=all
 * waiting all as for a Kafka producer). Each record's partition is its {@code partition}, else
 * Kafka's murmur2 hash of its key, else the partition picked at random for the request's keyless
 * records (the producer's sticky partitioning, a request being the batch).
 */
final class ProduceRoute {
  private static final int TIMEOUT_MS = 30_000;
  private static final Header[] NO_HEADERS = new Header[0];

  private final InProcessApis apis;
  private final TopicRoutes topics;

  ProduceRoute(InProcessApis apis, TopicRoutes topics) {
    this.apis = apis;
    this.topics = topics;
  }

  /** One record of the body, its bytes decoded (built once, never changed: arrays are safe). */
  @SuppressWarnings("ArrayRecordComponent")
  private record Input(int partition, long timestamp, byte[] key, byte[] value, Header[] headers) {}

  CompletableFuture<Reply> produce(
      String topic, ObjectNode body, InProcessApis.Caller caller, int bodyBytes) {
    short acks = acks(body.get("acks"));
    RecordFormat keyFormat =
        RecordFormat.parse("key_format", Json.text(body, "key_format", false), RecordFormat.STRING);
    RecordFormat valueFormat =
        RecordFormat.parse(
            "value_format", Json.text(body, "value_format", false), RecordFormat.JSON);
    RecordFormat headerFormat =
        RecordFormat.parse(
            "header_format", Json.text(body, "header_format", false), RecordFormat.STRING);
    JsonNode records = body.get("records");
    if (records == null || !records.isArray() || records.isEmpty()) {
      throw HttpApiException.badRequest("\"records\" must be a non-empty array");
    }
    List<Input> inputs = new ArrayList<>(records.size());
    long now = System.currentTimeMillis();
    for (int i = 0; i < records.size(); i++) {
      JsonNode record = records.get(i);
      if (!record.isObject()) {
        throw HttpApiException.badRequest("records[" + i + "] must be an object");
      }
      String at = "records[" + i + "].";
      inputs.add(
          new Input(
              (int) Json.integer(record, "partition", -1, 0, Integer.MAX_VALUE),
              Json.integer(record, "timestamp", now, 0, Long.MAX_VALUE),
              keyFormat.encode(at + "key", record.get("key")),
              valueFormat.encode(at + "value", record.get("value")),
              headers(at, record.get("headers"), headerFormat)));
    }
    // The partition count (and DESCRIBE on the topic) first: unknown topics are 404 before any
    // record is built, and a topic the caller may not see is 403.
    return topics
        .metadata(List.of(topic), caller)
        .thenCompose(
            metadata -> {
              int partitions = TopicRoutes.only(metadata.response(), topic).partitions().size();
              int[] assigned = assign(inputs, partitions);
              return send(topic, acks, inputs, assigned, caller, bodyBytes)
                  .thenApply(
                      answer ->
                          Reply.ok(
                              results(topic, acks, inputs, assigned, answer.response()),
                              metadata.throttleMs() + answer.throttleMs()));
            });
  }

  private static short acks(JsonNode node) {
    if (node == null || node.isNull()) {
      return -1;
    }
    String text = node.asText();
    return switch (text) {
      case "all", "-1" -> (short) -1;
      case "1" -> (short) 1;
      case "0" -> (short) 0;
      default -> throw HttpApiException.badRequest("\"acks\" must be 0, 1 or \"all\", not " + text);
    };
  }

  private static Header[] headers(String at, JsonNode node, RecordFormat format) {
    if (node == null || node.isNull()) {
      return NO_HEADERS;
    }
    if (!node.isArray()) {
      throw HttpApiException.badRequest(at + "headers must be an array of {key, value}");
    }
    Header[] headers = new Header[node.size()];
    for (int h = 0; h < node.size(); h++) {
      JsonNode header = node.get(h);
      if (!header.isObject()) {
        throw HttpApiException.badRequest(at + "headers[" + h + "] must be an object");
      }
      String key = Json.text(header, "key", true);
      headers[h] =
          new RecordHeader(
              key, format.encode(at + "headers[" + h + "].value", header.get("value")));
    }
    return headers;
  }

  /** Each record's partition. */
  private static int[] assign(List<Input> inputs, int partitions) {
    int[] assigned = new int[inputs.size()];
    int sticky = ThreadLocalRandom.current().nextInt(partitions);
    for (int i = 0; i < assigned.length; i++) {
      Input input = inputs.get(i);
      if (input.partition() >= 0) {
        if (input.partition() >= partitions) {
          throw new HttpApiException(
              Errors.UNKNOWN_TOPIC_OR_PARTITION,
              "records["
                  + i
                  + "].partition "
                  + input.partition()
                  + " does not exist: the topic has "
                  + partitions
                  + " partitions");
        }
        assigned[i] = input.partition();
      } else if (input.key() != null) {
        // Kafka's BuiltInPartitioner.partitionForKey.
        assigned[i] = Utils.toPositive(Utils.murmur2(input.key())) % partitions;
      } else {
        assigned[i] = sticky;
      }
    }
    return assigned;
  }

  private CompletableFuture<InProcessApis.Answer<ProduceResponseData>> send(
      String topic,
      short acks,
      List<Input> inputs,
      int[] assigned,
      InProcessApis.Caller caller,
      int bodyBytes) {
    Map<Integer, List<ClientRecords.Produced>> batches = new TreeMap<>();
    for (int i = 0; i < assigned.length; i++) {
      Input input = inputs.get(i);
      batches
          .computeIfAbsent(assigned[i], p -> new ArrayList<>())
          .add(
              new ClientRecords.Produced(
                  input.timestamp(), input.key(), input.value(), input.headers()));
    }
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic);
    batches.forEach(
        (partition, records) ->
            data.partitionData().add(ClientRecords.partition(partition, records)));
    ProduceRequestData request =
        new ProduceRequestData().setAcks(acks).setTimeoutMs(TIMEOUT_MS).setTransactionalId(null);
    request.topicData().add(data);
    return apis.call(ApiKeys.PRODUCE, (short) 12, request, caller, bodyBytes);
  }

  /**
   * When every partition failed with one error (the topic may not be written, the request is
   * malformed) the request as a whole fails with it, so its HTTP status says so (403, 400...).
   */
  private static void refuseWhenAllFailedAlike(
      Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition) {
    Errors common = null;
    String message = null;
    for (ProduceResponseData.PartitionProduceResponse p : byPartition.values()) {
      Errors error = Errors.forCode(p.errorCode());
      if (error == Errors.NONE || (common != null && common != error)) {
        return;
      }
      common = error;
      message = p.errorMessage();
    }
    if (common != null) {
      throw new HttpApiException(common, message);
    }
  }

  /** Per record, in the body's order: its partition and offset, or its partition's error. */
  private static ObjectNode results(
      String topic, short acks, List<Input> inputs, int[] assigned, ProduceResponseData response) {
    Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition = new TreeMap<>();
    if (response != null) {
      for (ProduceResponseData.TopicProduceResponse t : response.responses()) {
        for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
          byPartition.put(p.index(), p);
        }
      }
    }
    refuseWhenAllFailedAlike(byPartition);
    Map<Integer, Integer> nextInPartition = new TreeMap<>();
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("topic", topic);
    ArrayNode offsets = root.putArray("offsets");
    for (int i = 0; i < inputs.size(); i++) {
      int partition = assigned[i];
      int index = nextInPartition.merge(partition, 1, Integer::sum) - 1;
      ObjectNode out = offsets.addObject().put("partition", partition);
      ProduceResponseData.PartitionProduceResponse p = byPartition.get(partition);
      if (acks == 0 || p == null) {
        continue; // acks=0: nobody waits for the offsets
      }
      if (p.errorCode() != Errors.NONE.code()) {
        Errors error = Errors.forCode(p.errorCode());
        out.put("error_code", error.code())
            .put("error", error.name())
            .put("message", p.errorMessage() == null ? error.message() : p.errorMessage());
      } else {
        out.put("offset", p.baseOffset() + index);
      }
    }
    return root;
  }
}
