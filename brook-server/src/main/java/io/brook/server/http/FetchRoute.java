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

/**
 * {@code GET /v1/topics/{topic}/partitions/{p}/records}: one consumer Fetch through the broker's
 * Fetch handler (READ authorization, quotas, reading up to the high watermark or, with {@code
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

  FetchRoute(InProcessApis apis, Worker worker, int fetchMaxBytes) {
    this.apis = apis;
    this.worker = worker;
    this.fetchMaxBytes = fetchMaxBytes;
  }

  CompletableFuture<Reply> fetch(
      String topic, int partition, Map<String, List<String>> query, InProcessApis.Caller caller) {
    long offset = Json.query("offset", first(query, "offset"), -1, 0, Long.MAX_VALUE);
    if (offset < 0) {
      throw HttpApiException.badRequest("the offset query parameter is required");
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
                .setPartitions(
                    mutable(
                        new FetchRequestData.FetchPartition()
                            .setPartition(partition)
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(maxBytes))));
    return worker.then(
        apis.<FetchResponseData>call(ApiKeys.FETCH, (short) 12, request, caller, 0),
        answer -> {
          if (answer.response().errorCode() != Errors.NONE.code()) {
            throw new HttpApiException(Errors.forCode(answer.response().errorCode()), null);
          }
          FetchResponseData.PartitionData data =
              answer.response().responses().get(0).partitions().get(0);
          if (data.errorCode() != Errors.NONE.code()) {
            Errors error = Errors.forCode(data.errorCode());
            throw new HttpApiException(
                error, error.message() + " (topic " + topic + ", partition " + partition + ")");
          }
          return Reply.ok(
              render(topic, partition, offset, readCommitted, formats, data), answer.throttleMs());
        });
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
