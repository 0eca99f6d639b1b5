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
 *   <li>Join as an observer: {@code kind:int8 = 2, peerId:int16-length UTF-8, address:int16-length
 *       UTF-8} from a controller outside the group (KIP-853's observer), answered by {@code
 *       error:int16} (a Kafka error code; NONE once it is a listener of the group).
 * </ul>
 */
final class QueryCodec {
  static final byte CALL = 0;
  static final byte FETCH = 1;
  static final byte JOIN = 2;

  /** The longest peer id or address a join may carry. */
  private static final int MAX_JOIN_STRING = 1024;

  /** A decoded join request. */
  record Join(String peerId, String address) {}

  /** A decoded fetch answer. */
  record Fetched(boolean snapshot, long lastOffset, List<MetadataRecord> records) {}

  private QueryCodec() {}

  static byte[] call(byte[] payload) {
    return ByteBuffer.allocate(1 + payload.length).put(CALL).put(payload).array();
  }

  static byte[] fetch(long offset) {
    return ByteBuffer.allocate(1 + Long.BYTES).put(FETCH).putLong(offset).array();
  }

  static byte[] join(String peerId, String address) {
    byte[] id = peerId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] addr = address.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + 2 + id.length + 2 + addr.length)
        .put(JOIN)
        .putShort((short) id.length)
        .put(id)
        .putShort((short) addr.length)
        .put(addr)
        .array();
  }

  /** Decodes a join after its kind byte; lengths are checked before anything is allocated. */
  static Join decodeJoin(ByteBuffer buffer) {
    return new Join(joinString(buffer), joinString(buffer));
  }

  private static String joinString(ByteBuffer buffer) {
    int length = buffer.remaining() >= 2 ? buffer.getShort() & 0xffff : -1;
    if (length < 0 || length > MAX_JOIN_STRING || length > buffer.remaining()) {
      throw new IllegalArgumentException("malformed join request");
    }
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
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
