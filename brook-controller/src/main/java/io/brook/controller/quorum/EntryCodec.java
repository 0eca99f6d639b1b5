package io.brook.controller.quorum;

import com.fasterxml.jackson.databind.JsonNode;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The bytes of one Raft log entry and of the state machine's replies.
 *
 * <p>Entry, version 1: {@code version:int8, expectedOffset:int64, records:JSON array (UTF-8)}.
 * {@code expectedOffset} is the offset of the image the records were computed on; a replica applies
 * the entry only if its image is still at that offset, so a batch computed by a leader that had not
 * yet applied everything (just after a failover) is skipped by every replica alike, and the
 * submitter computes it again. The records reuse the journal's JSON form (one format for both,
 * tested by {@code RecordJsonTest}); the version byte lets a later binary form coexist.
 *
 * <p>Reply: {@code status:int8} followed by a UTF-8 message for {@link Status#REJECTED}.
 */
final class EntryCodec {
  static final byte VERSION = 1;

  /** What applying an entry did. */
  enum Status {
    APPLIED,
    /** The image had moved past {@code expectedOffset}: nothing applied; compute again. */
    CONFLICT,
    /** The records did not apply to the image: nothing applied; a controller bug. */
    REJECTED
  }

  /** A decoded entry. */
  record Entry(long expectedOffset, List<MetadataRecord> records) {}

  private EntryCodec() {}

  static byte[] encode(long expectedOffset, List<MetadataRecord> records) {
    byte[] json;
    try {
      json = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(records));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteBuffer.allocate(1 + Long.BYTES + json.length)
        .put(VERSION)
        .putLong(expectedOffset)
        .put(json)
        .array();
  }

  static Entry decode(ByteBuffer bytes) {
    byte version = bytes.get();
    if (version != VERSION) {
      throw new IllegalStateException("unknown metadata entry version " + version);
    }
    long expectedOffset = bytes.getLong();
    byte[] json = new byte[bytes.remaining()];
    bytes.get(json);
    try {
      JsonNode node = RecordJson.MAPPER.readTree(json);
      return new Entry(expectedOffset, RecordJson.listFromJson(node));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] reply(Status status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + text.length).put((byte) status.ordinal()).put(text).array();
  }

  static Status replyStatus(ByteBuffer reply) {
    return Status.values()[reply.get(reply.position())];
  }

  static String replyMessage(ByteBuffer reply) {
    ByteBuffer text = reply.duplicate();
    text.get();
    return StandardCharsets.UTF_8.decode(text).toString();
  }
}
