package io.brook.protocol;

import java.io.IOException;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Record bytes that stay in a file: the network layer sends them with {@code sendfile} (a Netty
 * {@code DefaultFileRegion}) when it meets them in a response, without reading them into memory.
 * Put one into a response's records field (for example {@code FetchResponseData.PartitionData}).
 *
 * <p>The file is pinned only while the bytes are being sent: when the response is encoded and until
 * Netty releases the file region (after the write, or when it fails). A response that is built and
 * then dropped (a long poll re-reading, a closed connection) holds nothing.
 *
 * @param file the segment file
 * @param position where the bytes start in the file
 * @param sizeInBytes how many bytes to send
 */
public record ZeroCopyRecords(PinnableFile file, long position, int sizeInBytes)
    implements BaseRecords {

  /** Bytes in a channel that stays open on its own (tests, tools). */
  public ZeroCopyRecords(FileChannel channel, long position, int sizeInBytes) {
    this(PinnableFile.alwaysOpen(channel), position, sizeInBytes);
  }

  /**
   * Kafka's own socket layer would call this; Brook's sends the file region itself. Provided so the
   * type honours its interface: it transfers the same range through the given channel, pinning the
   * file for each call.
   */
  @Override
  public RecordsSend<ZeroCopyRecords> toSend() {
    return new RecordsSend<>(this, sizeInBytes) {
      @Override
      protected int writeTo(TransferableChannel out, int previouslyWritten, int remaining)
          throws IOException {
        FileChannel channel = file.pin();
        try {
          return (int) out.transferFrom(channel, position + previouslyWritten, remaining);
        } finally {
          file.unpin();
        }
      }
    };
  }
}
