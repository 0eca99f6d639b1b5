package io.brook.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.remote.LocalSegmentFiles;
import io.brook.storage.remote.ManifestConflictException;
import io.brook.storage.remote.RemoteFileType;
import io.brook.storage.remote.RemoteSegment;
import io.brook.storage.remote.RemoteSegmentState;
import io.brook.storage.remote.RemoteSegmentStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 store against a real S3 server (s3proxy, in memory, on an ephemeral port) through the real
 * AWS SDK: multipart uploads of files larger than a part, byte ranges, absent objects, idempotent
 * deletes, listing and the manifest.
 */
class S3SegmentStoreTest {
  private static final TopicIdPartition TP =
      new TopicIdPartition(
          Uuid.fromString("4lbAbsNpRaGU5TcNkvHNYA"), new TopicPartition("orders", 3));

  private static S3Proxy proxy;

  @TempDir Path tmp;

  @BeforeAll
  static void startS3() throws Exception {
    proxy = startProxy();
  }

  /**
   * An in-memory s3proxy with a bucket {@code brook}, key {@code access}, secret {@code secret}.
   */
  static S3Proxy startProxy() throws Exception {
    TransientNio2BlobStore blobs = new TransientNio2BlobStore();
    blobs.createContainer("brook");
    S3Proxy started =
        S3Proxy.builder()
            .blobStore(blobs)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret")
            .build();
    started.start();
    while (!"STARTED".equals(started.getState())) {
      Thread.onSpinWait();
    }
    return started;
  }

  /** The settings a broker passes (after {@code rsm.config.}) to reach {@code proxy}. */
  static Map<String, String> settings(S3Proxy proxy, String prefix) {
    return Map.of(
        "s3.bucket", "brook",
        "s3.endpoint.override", "http://127.0.0.1:" + proxy.getPort(),
        "s3.path.style.access", "true",
        "s3.region", "us-east-1",
        "s3.access.key.id", "access",
        "s3.secret.access.key", "secret",
        "s3.key.prefix", prefix,
        "s3.multipart.part.size.bytes", Integer.toString(S3SegmentStore.MIN_PART_BYTES));
  }

  @AfterAll
  static void stopS3() throws Exception {
    proxy.stop();
  }

  @Test
  void copiesASegmentLargerThanAPartInPartsAndReadsItBackByRange() throws Exception {
    byte[] log = new byte[S3SegmentStore.MIN_PART_BYTES * 2 + 12345];
    new Random(7).nextBytes(log);
    Path logFile = Files.write(tmp.resolve("00000000000000000100.log"), log);
    Path snapshot = Files.write(tmp.resolve("00000000000000000200.snapshot"), new byte[] {9, 9});
    RemoteSegment segment =
        new RemoteSegment(
            "seg-1", 100, 199, 5, log.length, RemoteSegmentState.COPY_SEGMENT_STARTED);
    try (S3SegmentStore store = new S3SegmentStore(settings(proxy, "cluster-a/"))) {
      store.copySegment(
          TP,
          segment,
          new LocalSegmentFiles(
              logFile,
              new byte[] {0, 0, 0, 1, 0, 0, 0, 2},
              new byte[12],
              Optional.of(tmp.resolve("absent.txnindex")),
              Optional.of(snapshot),
              "0\n0\n".getBytes()));

      assertThat(store.fetchLogRange(TP, segment, 0, 10)).isEqualTo(Arrays.copyOf(log, 10));
      // A range across both part boundaries, and one running past the end.
      int from = S3SegmentStore.MIN_PART_BYTES - 3;
      assertThat(store.fetchLogRange(TP, segment, from, S3SegmentStore.MIN_PART_BYTES + 6))
          .isEqualTo(Arrays.copyOfRange(log, from, from + S3SegmentStore.MIN_PART_BYTES + 6));
      assertThat(store.fetchLogRange(TP, segment, log.length - 5, 100))
          .isEqualTo(Arrays.copyOfRange(log, log.length - 5, log.length));
      assertThat(store.fetchFile(TP, segment, RemoteFileType.OFFSET_INDEX))
          .hasValueSatisfying(b -> assertThat(b).containsExactly(0, 0, 0, 1, 0, 0, 0, 2));
      assertThat(store.fetchFile(TP, segment, RemoteFileType.TRANSACTION_INDEX)).isEmpty();
      assertThat(store.listObjects(TP))
          .containsExactly(
              "cluster-a/orders-4lbAbsNpRaGU5TcNkvHNYA-3/00000000000000000100-seg-1.index",
              "cluster-a/orders-4lbAbsNpRaGU5TcNkvHNYA-3/00000000000000000100-seg-1.leader-epoch-checkpoint",
              "cluster-a/orders-4lbAbsNpRaGU5TcNkvHNYA-3/00000000000000000100-seg-1.log",
              "cluster-a/orders-4lbAbsNpRaGU5TcNkvHNYA-3/00000000000000000100-seg-1.snapshot",
              "cluster-a/orders-4lbAbsNpRaGU5TcNkvHNYA-3/00000000000000000100-seg-1.timeindex");

      store.deleteSegment(TP, segment);
      store.deleteSegment(TP, segment); // idempotent: a crashed delete is simply repeated
      assertThat(store.listObjects(TP)).isEmpty();
      assertThatThrownBy(() -> store.fetchLogRange(TP, segment, 0, 10))
          .isInstanceOf(NoSuchFileException.class);
    }
  }

  @Test
  void manifestIsReplacedWholeAndAbsentUntilWritten() throws Exception {
    try (S3SegmentStore store = new S3SegmentStore(settings(proxy, "manifests/"))) {
      assertThat(store.readManifest(TP)).isEmpty();
      store.writeManifest(TP, "one".getBytes());
      store.writeManifest(TP, "two".getBytes());
      assertThat(store.readManifest(TP))
          .hasValueSatisfying(b -> assertThat(b).isEqualTo("two".getBytes()));
      assertThat(store.listObjects(TP))
          .isEqualTo(List.of("manifests/orders-4lbAbsNpRaGU5TcNkvHNYA-3/manifest"));
      store.deleteManifest(TP);
      assertThat(store.readManifest(TP)).isEmpty();
    }
  }

  /** If-None-Match / If-Match on a real S3 server: of two writers of one version, one fails. */
  @Test
  void manifestReplacementIsConditionalOnTheVersionRead() throws Exception {
    try (S3SegmentStore store = new S3SegmentStore(settings(proxy, "conditional/"))) {
      String first = store.replaceManifest(TP, "one".getBytes(), Optional.empty());
      assertThatThrownBy(() -> store.replaceManifest(TP, "other".getBytes(), Optional.empty()))
          .isInstanceOf(ManifestConflictException.class);
      assertThat(store.readManifestVersion(TP).orElseThrow().version()).isEqualTo(first);

      String second = store.replaceManifest(TP, "two".getBytes(), Optional.of(first));
      assertThatThrownBy(() -> store.replaceManifest(TP, "stale".getBytes(), Optional.of(first)))
          .isInstanceOf(ManifestConflictException.class);
      RemoteSegmentStore.StoredManifest stored = store.readManifestVersion(TP).orElseThrow();
      assertThat(stored.bytes()).isEqualTo("two".getBytes());
      assertThat(stored.version()).isEqualTo(second).isNotEqualTo(first);
    }
  }

  /**
   * A conditional write without an answer (the connection failed) is judged by what is stored: its
   * own bytes are its success, the version it expected its failure, anything else a conflict.
   */
  @Test
  void aConditionalWriteWithoutAnAnswerIsJudgedByWhatIsStored() throws Exception {
    try (S3SegmentStore store = new S3SegmentStore(settings(proxy, "unanswered/"))) {
      String key = "unanswered/orders-4lbAbsNpRaGU5TcNkvHNYA-3/manifest";
      IOException noAnswer = new IOException("Error writing request body to server");
      assertThatThrownBy(
              () -> store.afterNoAnswer(key, "one".getBytes(), Optional.empty(), noAnswer))
          .as("nothing stored, none expected: not written")
          .isSameAs(noAnswer);

      String first = store.replaceManifest(TP, "one".getBytes(), Optional.empty());
      assertThat(store.afterNoAnswer(key, "one".getBytes(), Optional.empty(), noAnswer))
          .as("its own bytes stored: written, the answer lost")
          .isEqualTo(first);
      assertThatThrownBy(
              () -> store.afterNoAnswer(key, "two".getBytes(), Optional.of(first), noAnswer))
          .as("the expected version still stored: not written")
          .isSameAs(noAnswer);
      assertThatThrownBy(
              () -> store.afterNoAnswer(key, "two".getBytes(), Optional.of("other"), noAnswer))
          .as("another version stored: a conflict")
          .isInstanceOf(ManifestConflictException.class)
          .hasCause(noAnswer);
      assertThatThrownBy(
              () -> store.afterNoAnswer(key, "two".getBytes(), Optional.empty(), noAnswer))
          .as("a manifest stored where none was expected: a conflict")
          .isInstanceOf(ManifestConflictException.class);
    }
  }

  @Test
  void refusesIncompleteSettings() {
    assertThatThrownBy(() -> new S3SegmentStore(Map.of()))
        .hasMessageContaining("rsm.config.s3.bucket");
    assertThatThrownBy(
            () -> new S3SegmentStore(Map.of("s3.bucket", "b", "s3.access.key.id", "only-id")))
        .hasMessageContaining("s3.secret.access.key");
  }
}
