package io.brook.storage.remote;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;

/**
 * A store whose next conditional manifest write is stored but answered with an I/O error, as an S3
 * request whose response is lost after the server took it ("Error writing request body" after the
 * client's retries). Everything else goes to {@code delegate}.
 */
final class LostAnswerStore implements RemoteSegmentStore {
  private final RemoteSegmentStore delegate;
  private int answersToLose;

  LostAnswerStore(RemoteSegmentStore delegate) {
    this.delegate = delegate;
  }

  /** The next {@code n} manifest writes are stored, then fail. */
  void loseNextAnswers(int n) {
    answersToLose = n;
  }

  @Override
  public String replaceManifest(
      TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
    String version = delegate.replaceManifest(tp, manifest, expectedVersion);
    if (answersToLose > 0) {
      answersToLose--;
      throw new IOException("the answer to a stored manifest write was lost");
    }
    return version;
  }

  @Override
  public void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
      throws IOException {
    delegate.copySegment(tp, segment, files);
  }

  @Override
  public byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
      throws IOException {
    return delegate.fetchLogRange(tp, segment, start, length);
  }

  @Override
  public Optional<byte[]> fetchFile(TopicIdPartition tp, RemoteSegment segment, RemoteFileType type)
      throws IOException {
    return delegate.fetchFile(tp, segment, type);
  }

  @Override
  public void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException {
    delegate.deleteSegment(tp, segment);
  }

  @Override
  public Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException {
    return delegate.readManifest(tp);
  }

  @Override
  public void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException {
    delegate.writeManifest(tp, manifest);
  }

  @Override
  public Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException {
    return delegate.readManifestVersion(tp);
  }

  @Override
  public void deleteManifest(TopicIdPartition tp) throws IOException {
    delegate.deleteManifest(tp);
  }

  @Override
  public List<String> listObjects(TopicIdPartition tp) throws IOException {
    return delegate.listObjects(tp);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
