package io.brook.quorum;

import com.fasterxml.jackson.databind.JsonNode;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The read-only requests Ratis routes to the leader's state machine ({@code sendReadOnly}), and
 * their answers.
 *
 * <ul>
 *   <li>Controller call: {@code kind:int8 = 0, payload} answered by the installed handler's bytes.
 *   <li>Metadata fetch: {@code kind:int8 = 1, offset:int64} (the offset of the fetcher's image),
 *       answered by {@code type:int8 (0 delta, 1 snapshot), lastOffset:int64, records:JSON array}:
 *       a delta holds the records after {@code offset}; a snapshot holds the whole image.
 * </ul>
 */
final class QueryCodec {
  static final byte CALL = 0;
  static final byte FETCH = 1;

  /** A decoded fetch answer. */
  record Fetched(boolean snapshot, long lastOffset, List<MetadataRecord> records) {}

  private QueryCodec() {}

  static byte[] call(byte[] payload) {
    return ByteBuffer.allocate(1 + payload.length).put(CALL).put(payload).array();
  }

  static byte[] fetch(long offset) {
    return ByteBuffer.allocate(1 + Long.BYTES).put(FETCH).putLong(offset).array();
  }

  static byte[] fetched(boolean snapshot, long lastOffset, List<MetadataRecord> records) {
    byte[] json;
    try {
      json = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(records));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteBuffer.allocate(1 + Long.BYTES + json.length)
        .put((byte) (snapshot ? 1 : 0))
        .putLong(lastOffset)
        .put(json)
        .array();
  }

  static Fetched decodeFetched(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    boolean snapshot = buffer.get() == 1;
    long lastOffset = buffer.getLong();
    try {
      JsonNode json = RecordJson.MAPPER.readTree(bytes, buffer.position(), buffer.remaining());
      return new Fetched(snapshot, lastOffset, RecordJson.listFromJson(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
