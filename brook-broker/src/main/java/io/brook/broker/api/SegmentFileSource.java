package io.brook.broker.api;

import io.brook.protocol.PinnableFile;
import io.brook.storage.segment.SegmentFile;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A storage segment file as the network layer's {@link PinnableFile}: the response encoder pins it
 * when it turns a fetched range into a file region, and Netty unpins it when the region is
 * released, so the node's file pool never closes a file while its bytes are being sent.
 */
public final class SegmentFileSource implements PinnableFile {
  private final SegmentFile file;

  public SegmentFileSource(SegmentFile file) {
    this.file = file;
  }

  @Override
  public FileChannel pin() throws IOException {
    file.pin();
    return file.records().channel();
  }

  @Override
  public void unpin() {
    file.unpin();
  }
}
