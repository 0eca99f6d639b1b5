package io.brook.storage.remote;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicIdPartition;

/**
 * A store whose every call is a step of an {@link Interleaver} (named for its trace), for tests
 * that run leaders of one partition against one store in many orders. It records every deletion of
 * a segment the stored manifest names copied (followers drop their local copies by that manifest,
 * so that must never happen), and can lose the answers to some of the actors' manifest writes: the
 * write is stored, then answered with an error (an S3 request whose response was lost) or a
 * conflict (the client's retry of it, refused because the first attempt's version is in place).
 */
final class SteppedSegmentStore extends ForwardingSegmentStore {
  /** One in this many of the actors' manifest writes loses its answer, when answers are lost. */
  private static final int LOST_ANSWER_ODDS = 8;

  private final Interleaver interleaver;

  /** Segments whose objects were deleted while the stored manifest named them finished. */
  final List<String> deletedWhileFinished = new ArrayList<>();

  /** Null: every answer arrives; else draws which of the actors' manifest writes lose theirs. */
  private final SplittableRandom lostAnswers;

  SteppedSegmentStore(
      RemoteSegmentStore delegate, Interleaver interleaver, SplittableRandom lostAnswers) {
    super(delegate);
    this.interleaver = interleaver;
    this.lostAnswers = lostAnswers;
  }

  private static String name(RemoteSegment s) {
    return "segment " + s.baseOffset() + " (" + s.id().substring(0, 8) + ")";
  }

  private static String describe(byte[] manifest) {
    RemoteLogManifest m = RemoteLogManifest.decode(manifest);
    return "epoch "
        + m.leaderEpoch()
        + ", start "
        + m.logStartOffset()
        + ", "
        + m.segments().stream()
            .map(s -> s.baseOffset() + ":" + s.id().substring(0, 8) + ":" + s.state())
            .collect(Collectors.joining(" ", "[", "]"));
  }

  @Override
  public void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
      throws IOException {
    interleaver.step("copies " + name(segment));
    super.copySegment(tp, segment, files);
  }

  @Override
  public void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException {
    interleaver.step("deletes " + name(segment));
    // A follower trusts the stored manifest to delete its local copy of what it names copied,
    // so objects of a segment named finished there must never go
    Optional<byte[]> stored = super.readManifest(tp);
    if (stored.isPresent()
        && RemoteLogManifest.decode(stored.get()).segments().stream()
            .anyMatch(
                s ->
                    s.id().equals(segment.id())
                        && s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED)) {
      deletedWhileFinished.add(name(segment));
    }
    super.deleteSegment(tp, segment);
  }

  @Override
  public Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException {
    interleaver.step("reads the manifest");
    return super.readManifest(tp);
  }

  @Override
  public Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException {
    interleaver.step("reads the manifest");
    return super.readManifestVersion(tp);
  }

  @Override
  public String replaceManifest(
      TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
    interleaver.step("replaces the manifest with " + describe(manifest));
    String version = super.replaceManifest(tp, manifest, expectedVersion);
    if (lostAnswers != null
        && interleaver.isActor()
        && lostAnswers.nextInt(LOST_ANSWER_ODDS) == 0) {
      if (lostAnswers.nextBoolean()) {
        interleaver.step("loses the answer to its stored write");
        throw new IOException("the answer to a stored manifest write was lost");
      }
      interleaver.step("retries its stored write and is refused by it");
      throw new ManifestConflictException("a retry of a stored manifest write found it in place");
    }
    return version;
  }

  @Override
  public void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException {
    interleaver.step("writes the manifest " + describe(manifest));
    super.writeManifest(tp, manifest);
  }

  @Override
  public byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
      throws IOException {
    interleaver.step("reads " + name(segment));
    return super.fetchLogRange(tp, segment, start, length);
  }

  @Override
  public Optional<byte[]> fetchFile(TopicIdPartition tp, RemoteSegment segment, RemoteFileType type)
      throws IOException {
    interleaver.step("reads " + type + " of " + name(segment));
    return super.fetchFile(tp, segment, type);
  }

  @Override
  public void deleteManifest(TopicIdPartition tp) throws IOException {
    interleaver.step("deletes the manifest");
    super.deleteManifest(tp);
  }

  @Override
  public List<String> listObjects(TopicIdPartition tp) throws IOException {
    interleaver.step("lists the objects");
    return super.listObjects(tp);
  }
}
