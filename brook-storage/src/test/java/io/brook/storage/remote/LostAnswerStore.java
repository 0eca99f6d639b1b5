package io.brook.storage.remote;

import java.io.IOException;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;

/**
 * A store whose next conditional manifest write is stored but answered with an I/O error, as an S3
 * request whose response is lost after the server took it ("Error writing request body" after the
 * client's retries).
 */
final class LostAnswerStore extends ForwardingSegmentStore {
  private int answersToLose;
  private int answersBeforeLoss;
  private int writesToRefuseAfterStoring;

  LostAnswerStore(RemoteSegmentStore delegate) {
    super(delegate);
  }

  /** The next {@code n} manifest writes are stored, then fail. */
  void loseNextAnswers(int n) {
    answersToLose = n;
  }

  /** The next {@code answered} manifest writes are answered, the {@code n} after them fail. */
  void loseAnswersAfter(int answered, int n) {
    answersBeforeLoss = answered;
    answersToLose = n;
  }

  /**
   * The next {@code n} manifest writes are stored, then answered as conflicts: what a client sees
   * when it retries a conditional write whose first attempt the store took and the retry finds that
   * attempt's version in place of the one it names.
   */
  void refuseNextAfterStoring(int n) {
    writesToRefuseAfterStoring = n;
  }

  @Override
  public String replaceManifest(
      TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
    String version = super.replaceManifest(tp, manifest, expectedVersion);
    if (answersBeforeLoss > 0) {
      answersBeforeLoss--;
      return version;
    }
    if (answersToLose > 0) {
      answersToLose--;
      throw new IOException("the answer to a stored manifest write was lost");
    }
    if (writesToRefuseAfterStoring > 0) {
      writesToRefuseAfterStoring--;
      throw new ManifestConflictException("a retry of a stored manifest write found it in place");
    }
    return version;
  }
}
