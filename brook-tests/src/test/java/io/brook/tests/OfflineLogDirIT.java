package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.storage.manager.LogManager;
import io.brook.testkit.EmbeddedBrook;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A single node with two log directories, one of which fails for real (its recovery-point
 * checkpoint cannot be written: the temporary file's name is taken by a non-empty directory): that
 * directory goes offline, the controller takes its partition offline (no leader: kafka-clients get
 * NOT_LEADER_OR_FOLLOWER), the other directory's partition keeps serving, and only the healthy
 * directory is marked clean at shutdown.
 */
@Timeout(120)
class OfflineLogDirIT {
  @TempDir Path root;

  @Test
  void aFailedDirectoryTakesOnlyItsPartitionsOffline() throws Exception {
    // Given: the metadata log in the first directory, which stays healthy
    Path healthy = root.resolve("a");
    Path failing = root.resolve("b");
    try (EmbeddedBrook brook =
        EmbeddedBrook.builder()
            .dataDir(root)
            .config("log.dirs", healthy + "," + failing)
            .config("log.flush.offset.checkpoint.interval.ms", "100")
            .start()) {
      TestClients.createTopic(brook.bootstrapServers(), "spread", 2);
      TopicPartition inFailing = partitionIn(brook, "spread", failing);
      TopicPartition inHealthy = partitionIn(brook, "spread", healthy);
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(
              brook.bootstrapServers(),
              "enable.idempotence",
              "false",
              "acks",
              "1",
              "retries",
              "0")) {
        send(producer, inFailing);
        send(producer, inHealthy);

        // When its recovery-point checkpoint cannot be written
        // (a non-empty directory renamed to where the checkpointer writes its temporary file; the
        // checkpointer runs every 100 ms, so its own temporary file may be there for a moment)
        Path obstacle = Files.createDirectory(root.resolve("obstacle"));
        Files.writeString(obstacle.resolve("in-the-way"), "x");
        Path tmp = failing.resolve(LogManager.RECOVERY_POINT_CHECKPOINT + ".tmp");
        await().atMost(Duration.ofSeconds(30)).until(() -> moveInto(obstacle, tmp));

        // Then DescribeLogDirs reports the directory offline, as Kafka does
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
          await()
              .atMost(Duration.ofSeconds(30))
              .untilAsserted(
                  () -> {
                    Map<String, LogDirDescription> dirs =
                        admin.describeLogDirs(List.of(1)).allDescriptions().get().get(1);
                    assertThat(dirs.get(failing.toString()).error())
                        .isInstanceOf(KafkaStorageException.class);
                    assertThat(dirs.get(healthy.toString()).error()).isNull();
                  });
        }

        // And the controller takes its partition offline (this node held its only replica), as
        // Kafka's controller does for a replica on a failed directory, while the other one serves
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
          await()
              .atMost(Duration.ofSeconds(30))
              .untilAsserted(
                  () ->
                      assertThat(
                              admin
                                  .describeTopics(List.of(inFailing.topic()))
                                  .allTopicNames()
                                  .get()
                                  .get(inFailing.topic())
                                  .partitions()
                                  .get(inFailing.partition())
                                  .leader())
                          .isNull());
        }
        assertThatThrownBy(() -> send(producer, inFailing))
            .hasCauseInstanceOf(NotLeaderOrFollowerException.class);
        assertThat(send(producer, inHealthy).offset()).isEqualTo(1);
        assertThat(brook.server().replicaManager().logManager().offlineLogDirectoryCount())
            .isEqualTo(1);
      }
    }

    // And at shutdown only the healthy directory is marked clean
    assertThat(healthy.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    assertThat(failing.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
  }

  /** Renames {@code dir} to {@code target} unless a file holds that name right now. */
  private static boolean moveInto(Path dir, Path target) throws IOException {
    try {
      Files.move(dir, target, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (FileSystemException e) {
      return false;
    }
  }

  private static TopicPartition partitionIn(EmbeddedBrook brook, String topic, Path dir) {
    return brook.server().replicaManager().partitions().stream()
        .filter(p -> p.topicPartition().topic().equals(topic))
        .filter(p -> LogManager.logDirOf(p.log()).equals(dir))
        .findFirst()
        .orElseThrow()
        .topicPartition();
  }

  private static RecordMetadata send(KafkaProducer<byte[], byte[]> producer, TopicPartition tp)
      throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
    return producer
        .send(new ProducerRecord<>(tp.topic(), tp.partition(), null, new byte[] {1}))
        .get(30, TimeUnit.SECONDS);
  }
}
