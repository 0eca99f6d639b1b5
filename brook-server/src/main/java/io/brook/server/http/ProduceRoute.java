package io.brook.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.ClientRecords;
import io.brook.broker.api.InProcessApis;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code POST /v1/topics/{topic}/records}: the records of the body become one uncompressed v2 batch
 * per partition, built once with kafka-clients' {@link MemoryRecords} builder, and one Produce
 * request through the broker's Produce handler (validation, WRITE authorization, quotas, acks=all
 * waiting all as for a Kafka producer). Each record's partition is its {@code partition}, else
 * Kafka's murmur2 hash of its key, else the partition picked at random for the request's keyless
 * records (the producer's sticky partitioning, a request being the batch). Partitions led by other
 * brokers are sent on to their leaders ({@link AtLeader}). With a {@code producer} the request is
 * idempotent: its one partition's batch carries the producer id, epoch and sequence, and the
 * leader's producer state writes it once however often it is retried.
 */
final class ProduceRoute {
  private static final int TIMEOUT_MS = 30_000;
  private static final Header[] NO_HEADERS = new Header[0];

  private final InProcessApis apis;
  private final TopicRoutes topics;
  private final AtLeader leaders;

  ProduceRoute(InProcessApis apis, TopicRoutes topics, AtLeader leaders) {
    this.apis = apis;
    this.topics = topics;
    this.leaders = leaders;
  }

  /**
   * An idempotent request's producer: an id and epoch from {@code POST /v1/producers}
   * (InitProducerId) and the sequence of the request's first record in its partition.
   */
  private record Producer(long id, short epoch, int sequence) {
    static final Producer NONE =
        new Producer(RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, -1);

    static Producer parse(JsonNode node) {
      if (node == null || node.isNull()) {
        return NONE;
      }
      if (!node.isObject()) {
        throw HttpApiException.badRequest("\"producer\" must be an object {id, epoch, sequence}");
      }
      long id = Json.integer(node, "id", -1, 0, Long.MAX_VALUE);
      long epoch = Json.integer(node, "epoch", -1, 0, Short.MAX_VALUE);
      long sequence = Json.integer(node, "sequence", -1, 0, Integer.MAX_VALUE);
      if (id < 0 || epoch < 0 || sequence < 0) {
        throw HttpApiException.badRequest("\"producer\" needs id, epoch and sequence");
      }
      return new Producer(id, (short) epoch, (int) sequence);
    }

    boolean idempotent() {
      return id != RecordBatch.NO_PRODUCER_ID;
    }
  }

  /** One record of the body, its bytes decoded (built once, never changed: arrays are safe). */
  @SuppressWarnings("ArrayRecordComponent")
  private record Input(int partition, long timestamp, byte[] key, byte[] value, Header[] headers) {}

  CompletableFuture<Reply> produce(
      String topic, ObjectNode body, InProcessApis.Caller caller, int bodyBytes) {
    short acks = acks(body.get("acks"));
    Producer producer = Producer.parse(body.get("producer"));
    if (producer.idempotent() && acks != -1) {
      throw HttpApiException.badRequest(
          "an idempotent request (with \"producer\") needs acks \"all\", as Kafka's producer does");
    }
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
              int[] assigned = assign(inputs, partitions, producer);
              return send(topic, acks, producer, inputs, assigned, caller, bodyBytes)
                  .thenApply(
                      answer ->
                          Reply.ok(
                              results(topic, acks, inputs, assigned, answer),
                              metadata.throttleMs() + answer.throttleMs()));
            });
  }

  /**
   * {@code POST /v1/producers}: a new idempotent producer id and epoch (InitProducerId without a
   * transactional id, as a Kafka producer's start-up), for the {@code producer} of later produce
   * requests. Needs IDEMPOTENT_WRITE on the cluster or WRITE on a topic, as for Kafka.
   */
  CompletableFuture<Reply> newProducer(InProcessApis.Caller caller) {
    InitProducerIdRequestData request =
        new InitProducerIdRequestData()
            .setTransactionalId(null)
            .setTransactionTimeoutMs(Integer.MAX_VALUE)
            .setProducerId(RecordBatch.NO_PRODUCER_ID)
            .setProducerEpoch(RecordBatch.NO_PRODUCER_EPOCH);
    return apis.<InitProducerIdResponseData>call(
            ApiKeys.INIT_PRODUCER_ID, (short) 5, request, caller, 0)
        .thenApply(
            answer -> {
              InitProducerIdResponseData response = answer.response();
              if (response.errorCode() != Errors.NONE.code()) {
                throw new HttpApiException(Errors.forCode(response.errorCode()), null);
              }
              ObjectNode root = Json.MAPPER.createObjectNode();
              root.put("id", response.producerId());
              root.put("epoch", response.producerEpoch());
              return new Reply(HttpResponseStatus.CREATED, root, answer.throttleMs());
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

  /**
   * Each record's partition. An idempotent request writes one partition, chosen the same way on
   * every retry: its sequence numbers count that partition's records.
   */
  private static int[] assign(List<Input> inputs, int partitions, Producer producer) {
    int[] assigned = new int[inputs.size()];
    int sticky = ThreadLocalRandom.current().nextInt(partitions);
    for (int i = 0; i < assigned.length; i++) {
      Input input = inputs.get(i);
      if (producer.idempotent() && input.partition() < 0 && input.key() == null) {
        throw HttpApiException.badRequest(
            "records["
                + i
                + "] has neither partition nor key: an idempotent request must write one"
                + " partition, the same on a retry");
      }
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
      if (producer.idempotent() && assigned[i] != assigned[0]) {
        throw HttpApiException.badRequest(
            "an idempotent request writes one partition, but records[0] goes to "
                + assigned[0]
                + " and records["
                + i
                + "] to "
                + assigned[i]);
      }
    }
    return assigned;
  }

  /**
   * One Produce request through this broker's handler; the partitions it answers
   * NOT_LEADER_OR_FOLLOWER for (the request passed validation and authorization) are sent again to
   * their leaders, one request per leader. The answer holds every partition's outcome.
   */
  private CompletableFuture<InProcessApis.Answer<ProduceResponseData>> send(
      String topic,
      short acks,
      Producer producer,
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
    // acks=0 has no answer to learn a partition's leader from: ask for one when a partition may be
    // led elsewhere (the HTTP answer still leaves the offsets out).
    short sent = acks;
    if (acks == 0
        && batches.keySet().stream().anyMatch(p -> leaders.leaderElsewhere(topic, p) >= 0)) {
      sent = 1;
    }
    short requestAcks = sent;
    return apis.<ProduceResponseData>call(
            ApiKeys.PRODUCE,
            (short) 12,
            request(topic, requestAcks, producer, batches, batches.keySet()),
            caller,
            bodyBytes)
        .thenCompose(local -> forwardMisdirected(topic, requestAcks, producer, batches, local));
  }

  private CompletableFuture<InProcessApis.Answer<ProduceResponseData>> forwardMisdirected(
      String topic,
      short acks,
      Producer producer,
      Map<Integer, List<ClientRecords.Produced>> batches,
      InProcessApis.Answer<ProduceResponseData> local) {
    if (local.response() == null) {
      return CompletableFuture.completedFuture(local);
    }
    Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition = byPartition(local);
    Map<Integer, List<Integer>> byLeader = new TreeMap<>();
    byPartition.forEach(
        (partition, response) -> {
          int leader = leaders.leaderElsewhere(topic, partition);
          if (response.errorCode() == Errors.NOT_LEADER_OR_FOLLOWER.code() && leader >= 0) {
            byLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(partition);
          }
        });
    if (byLeader.isEmpty()) {
      return CompletableFuture.completedFuture(local);
    }
    List<CompletableFuture<InProcessApis.Answer<ProduceResponseData>>> forwarded =
        new ArrayList<>();
    byLeader.forEach(
        (leader, partitions) ->
            forwarded.add(
                leaders.node(
                    leader,
                    ApiKeys.PRODUCE,
                    request(topic, acks, producer, batches, partitions),
                    TIMEOUT_MS,
                    false,
                    0)));
    return CompletableFuture.allOf(forwarded.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              for (CompletableFuture<InProcessApis.Answer<ProduceResponseData>> f : forwarded) {
                byPartition.putAll(byPartition(f.join()));
              }
              ProduceResponseData.TopicProduceResponse merged =
                  new ProduceResponseData.TopicProduceResponse().setName(topic);
              merged.partitionResponses().addAll(byPartition.values());
              ProduceResponseData response = new ProduceResponseData();
              response.responses().add(merged);
              return new InProcessApis.Answer<>(response, local.throttleMs());
            });
  }

  /**
   * A Produce request of {@code partitions}' batches, built anew (a handler may trim its lists).
   */
  private ProduceRequestData request(
      String topic,
      short acks,
      Producer producer,
      Map<Integer, List<ClientRecords.Produced>> batches,
      java.util.Collection<Integer> partitions) {
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic).setTopicId(leaders.topicId(topic));
    for (int partition : partitions) {
      data.partitionData()
          .add(
              ClientRecords.partition(
                  partition,
                  batches.get(partition),
                  producer.id(),
                  producer.epoch(),
                  producer.idempotent() ? producer.sequence() : RecordBatch.NO_SEQUENCE));
    }
    ProduceRequestData request =
        new ProduceRequestData().setAcks(acks).setTimeoutMs(TIMEOUT_MS).setTransactionalId(null);
    request.topicData().add(data);
    return request;
  }

  private static Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition(
      InProcessApis.Answer<ProduceResponseData> answer) {
    Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition = new TreeMap<>();
    if (answer.response() != null) {
      for (ProduceResponseData.TopicProduceResponse t : answer.response().responses()) {
        for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
          byPartition.put(p.index(), p);
        }
      }
    }
    return byPartition;
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
      String topic,
      short acks,
      List<Input> inputs,
      int[] assigned,
      InProcessApis.Answer<ProduceResponseData> answer) {
    Map<Integer, ProduceResponseData.PartitionProduceResponse> byPartition = byPartition(answer);
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
