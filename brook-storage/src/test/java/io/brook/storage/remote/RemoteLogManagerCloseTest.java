package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shutting tiered storage down while a segment is being uploaded: the upload is not interrupted (an
 * interrupt closes the FileChannel in use and takes the log directory offline, so a clean shutdown
 * would leave a directory to recover), and nothing more is copied or deleted locally.
 */
class RemoteLogManagerCloseTest {
  private static final Uuid TOPIC_ID = Uuid.fromString("f0Ja8ZCyR3yH1n4YqS2aYw");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);

  @TempDir Path root;

  @Test
  void closeLetsTheRunningUploadFinishUninterruptedAndStartsNothingMore() throws Exception {
    // Given: a leader log of five one-batch segments, four of them closed below the high
    // watermark and past local retention, and a store whose first upload waits to be released
    LogFixture fixture =
        new LogFixture(root.resolve("data"))
            .config(
                LogConfig.builder()
                    .segmentBytes(1500)
                    .remoteStorageEnable(true)
                    .retentionMs(-1)
                    .localRetentionMs(0)
                    .build());
    PartitionLog log = fixture.open();
    long old = fixture.time().milliseconds() - 3_600_000L;
    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(Batches.sized(1, 1024, old + i, i), 0);
    }
    log.updateHighWatermark(4);

    CountDownLatch uploading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger uploads = new AtomicInteger();
    AtomicBoolean interrupted = new AtomicBoolean();
    RemoteSegmentStore store =
        new ForwardingSegmentStore(new LocalFsSegmentStore(root.resolve("store"))) {
          @Override
          public void copySegment(
              TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
              throws IOException {
            uploads.incrementAndGet();
            uploading.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              interrupted.set(true);
              throw new InterruptedIOException("upload interrupted");
            }
            super.copySegment(tp, segment, files);
          }
        };
    RemoteLogManager manager =
        new RemoteLogManager(
            store,
            new RemoteLogManagerConfig(
                10, 1, 1, 10, root.resolve("cache"), 1 << 20, 500, root.resolve("chunks"), 0, 1),
            fixture.time());
    manager.topicIds(tp -> Optional.of(TOPIC_ID));
    manager.start(() -> List.of(new RemoteLogManager.TieredLog(log, true, 0, () -> true)));
    uploading.await();

    // When: the manager is closed while the first segment is being uploaded
    AtomicReference<Throwable> closeFailure = new AtomicReference<>();
    Thread closer =
        new Thread(
            () -> {
              try {
                manager.close();
              } catch (Throwable t) {
                closeFailure.set(t);
              }
            },
            "closer");
    closer.start();
    // close() has marked the manager closing once it waits for the running upload
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> closer.getState() == Thread.State.TIMED_WAITING || !closer.isAlive());
    assertThat(closer.isAlive()).as("close() waits for the running upload").isTrue();
    release.countDown();
    closer.join();

    // Then: that upload finished uninterrupted and was published; no other segment was copied;
    // no local segment was deleted; the log is still online (its directory can be closed cleanly)
    assertThat(closeFailure.get()).isNull();
    assertThat(interrupted).isFalse();
    assertThat(uploads.get()).isEqualTo(1);
    RemoteLogManifest manifest =
        TieredPartition.readManifest(new LocalFsSegmentStore(root.resolve("store")), TP);
    assertThat(manifest.segments())
        .extracting(RemoteSegment::baseOffset, RemoteSegment::state)
        .containsExactly(tuple(0L, RemoteSegmentState.COPY_SEGMENT_FINISHED));
    assertThat(log.segments().stream().map(LogSegment::baseOffset).toList())
        .containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(log.isOffline()).isFalse();
    log.close();
  }
}
