package io.brook.storage.remote;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;

/** A store that passes every call to {@code delegate}; fault-injecting test stores extend it. */
abstract class ForwardingSegmentStore implements RemoteSegmentStore {
  private final RemoteSegmentStore delegate;

  ForwardingSegmentStore(RemoteSegmentStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public String replaceManifest(
      TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
    return delegate.replaceManifest(tp, manifest, expectedVersion);
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
