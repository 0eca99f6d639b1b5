package io.brook.server.http;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.ClientRecords;
import io.brook.broker.api.InProcessApis;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * {@code GET /v1/topics/{topic}/partitions/{p}/records}: from an offset, or from where ListOffsets
 * puts a time, {@code earliest} or {@code latest} ({@link OffsetsRoute}), one consumer Fetch
 * through the broker's Fetch handler, or the partition leader's when this broker is not a replica
 * ({@link AtLeader}) (READ authorization, quotas, reading up to the high watermark or, with {@code
 * isolation=read_committed}, the last stable offset). With nothing to read it parks like a
 * consumer's fetch, as a delayed operation and not on a thread, until a record arrives or {@code
 * max_wait_ms} passes. The answer's batches are read (from the segment file when the handler
 * answers with a file region) into one pooled buffer and turned into JSON on the API's worker,
 * never on an event loop; control batches and, under read_committed, aborted transactions' batches
 * are skipped as a Kafka consumer skips them.
 */
final class FetchRoute {
  private static final int DEFAULT_MAX_BYTES = 1024 * 1024;
  private static final int DEFAULT_MAX_WAIT_MS = 500;
  private static final int MAX_WAIT_MS = 30_000;

  private final InProcessApis apis;
  private final Worker worker;
  private final int fetchMaxBytes;
  private final AtLeader leaders;
  private final OffsetsRoute offsets;

  FetchRoute(InProcessApis apis, Worker worker, int fetchMaxBytes, AtLeader leaders) {
    this.apis = apis;
    this.worker = worker;
    this.fetchMaxBytes = fetchMaxBytes;
    this.leaders = leaders;
    this.offsets = new OffsetsRoute(apis, leaders);
  }

  CompletableFuture<Reply> fetch(
      String topic, int partition, Map<String, List<String>> query, InProcessApis.Caller caller) {
    String offsetText = first(query, "offset");
    String timestampText = first(query, "timestamp");
    if ((offsetText == null) == (timestampText == null)) {
      throw HttpApiException.badRequest(
          "give one of the offset query parameter (a number, earliest or latest) and timestamp");
    }
    int maxBytes =
        (int)
            Json.query("max_bytes", first(query, "max_bytes"), DEFAULT_MAX_BYTES, 1, fetchMaxBytes);
    int maxWaitMs =
        (int)
            Json.query(
                "max_wait_ms", first(query, "max_wait_ms"), DEFAULT_MAX_WAIT_MS, 0, MAX_WAIT_MS);
    String isolation = first(query, "isolation");
    boolean readCommitted;
    if (isolation == null || isolation.equals("read_uncommitted")) {
      readCommitted = false;
    } else if (isolation.equals("read_committed")) {
      readCommitted = true;
    } else {
      throw HttpApiException.badRequest(
          "isolation must be read_committed or read_uncommitted, not \"" + isolation + "\"");
    }
    Formats formats =
        new Formats(
            RecordFormat.parse("key_format", first(query, "key_format"), RecordFormat.STRING),
            RecordFormat.parse("value_format", first(query, "value_format"), RecordFormat.JSON),
            RecordFormat.parse(
                "header_format", first(query, "header_format"), RecordFormat.STRING));
    Fetch fetch = new Fetch(topic, partition, maxBytes, maxWaitMs, readCommitted, formats, caller);
    if (timestampText != null) {
      long timestamp = Json.query("timestamp", timestampText, -1, 0, Long.MAX_VALUE);
      return offsets
          .resolve(topic, partition, timestamp, readCommitted, caller)
          .thenCompose(fetch::at);
    }
    return switch (offsetText) {
      case "earliest" ->
          offsets
              .resolve(
                  topic, partition, ListOffsetsRequest.EARLIEST_TIMESTAMP, readCommitted, caller)
              .thenCompose(fetch::at);
      case "latest" ->
          offsets
              .resolve(topic, partition, ListOffsetsRequest.LATEST_TIMESTAMP, readCommitted, caller)
              .thenCompose(fetch::at);
      default -> fetch.at(Json.query("offset", offsetText, -1, 0, Long.MAX_VALUE));
    };
  }

  /** One fetch's parameters, waiting for the offset to read from. */
  private final class Fetch {
    private final String topic;
    private final int partition;
    private final int maxBytes;
    private final int maxWaitMs;
    private final boolean readCommitted;
    private final Formats formats;
    private final InProcessApis.Caller caller;

    Fetch(
        String topic,
        int partition,
        int maxBytes,
        int maxWaitMs,
        boolean readCommitted,
        Formats formats,
        InProcessApis.Caller caller) {
      this.topic = topic;
      this.partition = partition;
      this.maxBytes = maxBytes;
      this.maxWaitMs = maxWaitMs;
      this.readCommitted = readCommitted;
      this.formats = formats;
      this.caller = caller;
    }

    CompletableFuture<Reply> at(OffsetsRoute.Start start) {
      return at(start.offset()).thenApply(reply -> reply.plusThrottle(start.throttleMs()));
    }

    CompletableFuture<Reply> at(long offset) {
      CompletableFuture<InProcessApis.Answer<FetchResponseData>> answer =
          leaders.partition(
              topic,
              partition,
              apis.call(ApiKeys.FETCH, (short) 12, request(offset), caller, 0),
              response -> error(response) == Errors.NOT_LEADER_OR_FOLLOWER,
              ApiKeys.FETCH,
              () -> request(offset),
              maxWaitMs,
              true);
      return worker.then(
          answer,
          a -> {
            if (a.response().errorCode() != Errors.NONE.code()) {
              throw new HttpApiException(Errors.forCode(a.response().errorCode()), null);
            }
            Errors error = error(a.response());
            if (error != Errors.NONE) {
              throw new HttpApiException(
                  error, error.message() + " (topic " + topic + ", partition " + partition + ")");
            }
            FetchResponseData.PartitionData data =
                a.response().responses().get(0).partitions().get(0);
            return Reply.ok(
                render(topic, partition, offset, readCommitted, formats, data), a.throttleMs());
          });
    }

    /** The request, new for each use (with the topic's id too, for a forwarded fetch). */
    private FetchRequestData request(long offset) {
      FetchRequestData request =
          new FetchRequestData()
              .setReplicaId(-1)
              .setMaxWaitMs(maxWaitMs)
              .setMinBytes(1)
              .setMaxBytes(maxBytes)
              .setIsolationLevel((byte) (readCommitted ? 1 : 0))
              .setSessionId(0)
              .setSessionEpoch(-1)
              .setRackId("");
      request
          .topics()
          .add(
              new FetchRequestData.FetchTopic()
                  .setTopic(topic)
                  .setTopicId(leaders.topicId(topic))
                  .setPartitions(
                      mutable(
                          new FetchRequestData.FetchPartition()
                              .setPartition(partition)
                              .setFetchOffset(offset)
                              .setCurrentLeaderEpoch(-1)
                              .setLogStartOffset(-1)
                              .setPartitionMaxBytes(maxBytes))));
      return request;
    }
  }

  /** The partition's error, or the response's when it has no partition (NONE without either). */
  private static Errors error(FetchResponseData response) {
    if (response.errorCode() != Errors.NONE.code()) {
      return Errors.forCode(response.errorCode());
    }
    if (response.responses().isEmpty() || response.responses().get(0).partitions().isEmpty()) {
      return Errors.UNKNOWN_SERVER_ERROR;
    }
    return Errors.forCode(response.responses().get(0).partitions().get(0).errorCode());
  }

  private record Formats(RecordFormat key, RecordFormat value, RecordFormat header) {}

  private static String first(Map<String, List<String>> query, String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  private static ObjectNode render(
      String topic,
      int partition,
      long offset,
      boolean readCommitted,
      Formats formats,
      FetchResponseData.PartitionData data) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("topic", topic);
    root.put("partition", partition);
    root.put("high_watermark", data.highWatermark());
    root.put("last_stable_offset", data.lastStableOffset());
    root.put("log_start_offset", data.logStartOffset());
    ArrayNode records = Json.MAPPER.createArrayNode();
    long next =
        ClientRecords.read(
            data,
            offset,
            readCommitted,
            (recordOffset, timestamp, key, value, headers) ->
                records.add(render(recordOffset, timestamp, key, value, headers, formats)));
    root.put("next_offset", next);
    root.set("records", records);
    return root;
  }

  private static ObjectNode render(
      long offset,
      long timestamp,
      ByteBuffer key,
      ByteBuffer value,
      Header[] headers,
      Formats formats) {
    ObjectNode node = Json.MAPPER.createObjectNode();
    node.put("offset", offset);
    node.put("timestamp", timestamp);
    put(node, "key", "key_format", key, formats.key());
    put(node, "value", "value_format", value, formats.value());
    if (headers.length > 0) {
      ArrayNode array = node.putArray("headers");
      for (Header header : headers) {
        ObjectNode h = array.addObject().put("key", header.key());
        put(
            h,
            "value",
            "value_format",
            header.value() == null ? null : ByteBuffer.wrap(header.value()),
            formats.header());
      }
    }
    return node;
  }

  /** The bytes in the asked format, or as base64 with a note when they are not valid in it. */
  private static void put(
      ObjectNode node, String field, String formatField, ByteBuffer bytes, RecordFormat format) {
    JsonNode decoded = format.decode(bytes);
    if (decoded == null) {
      node.set(field, RecordFormat.binary(bytes));
      node.put(formatField, RecordFormat.BINARY.label());
    } else {
      node.set(field, decoded);
    }
  }
}
