package io.brook.simulation;

import io.brook.protocol.RequestContext;
import io.brook.protocol.ZeroCopyRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What crossing the wire does to a message that matters here: a Fetch response's records are read
 * from the log files when the response is sent, not when it arrives (the leader may truncate its
 * log in between), and a request arrives with a request context.
 */
final class Wire {
  private Wire() {}

  static RequestContext context(ApiKeys key, short version, long nowNanos) {
    return new RequestContext(
        new RequestHeader(key, version, "sim", 0),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "sim",
        nowNanos);
  }

  /** Replaces the records each partition sends from a file by a copy of their bytes. */
  static FetchResponseData sent(FetchResponseData response) {
    for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
      for (FetchResponseData.PartitionData partition : topic.partitions()) {
        if (partition.records() instanceof ZeroCopyRecords file) {
          partition.setRecords(copy(file));
        }
      }
    }
    return response;
  }

  private static MemoryRecords copy(ZeroCopyRecords records) {
    ByteBuffer bytes = ByteBuffer.allocate(records.sizeInBytes());
    try {
      FileChannel channel = records.file().pin();
      try {
        long position = records.position();
        while (bytes.hasRemaining()) {
          int read = channel.read(bytes, position);
          if (read < 0) {
            throw new IOException("the log file ended before the response's records");
          }
          position += read;
        }
      } finally {
        records.file().unpin();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    bytes.flip();
    return MemoryRecords.readableRecords(bytes);
  }
}
