package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Raft journal of the active controller fails while its log directories stay healthy (its
 * metadata log is in a directory of its own, {@code metadata.log.dir}, where the disk error shim of
 * the fault campaign, {@code src/test/c/failio.c}, fails every write once triggered). The node can
 * no longer keep the cluster's metadata: it must stop (exit status 1, as Kafka halts) so that the
 * two others elect a controller, rather than linger as a leader that commits nothing. Idempotent
 * acks=all producers write throughout; nothing they were acknowledged may be lost. Needs gcc to
 * build the shim (`.ci/run` installs it); fails with the reason otherwise.
 */
class JournalFailureIT {
  @TempDir Path dir;

  private Path journal(int id) {
    return dir.resolve("metadata-" + id);
  }

  private Path trigger(int id) {
    return dir.resolve("journal-fails-" + id);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void anActiveControllerWhoseJournalFailsStopsAndAnotherTakesOver() throws Exception {
    // Given: three nodes, each with the shim armed on its own metadata log directory
    Path shim =
        DiskErrorFault.build(dir)
            .orElseThrow(() -> new AssertionError("JournalFailureIT needs gcc for its shim"));
    try (ClusterHarness cluster =
            ClusterHarness.startWithEnvironment(
                dir,
                3,
                Map.of(),
                id -> Map.of("metadata.log.dir", journal(id).toString()),
                false,
                id ->
                    Map.of(
                        "LD_PRELOAD", shim.toAbsolutePath().toString(),
                        "BROOK_FAILIO_DIR", journal(id).toAbsolutePath().toString(),
                        "BROOK_FAILIO_TRIGGER", trigger(id).toAbsolutePath().toString()),
                ClusterHarness.DEFAULT_READY_TIMEOUT);
        FaultScenario s = FaultScenario.start(cluster, "journal")) {
      Node failing = s.activeController();
      int id = failing.id();

      // When: its journal's writes start failing, and a metadata change must be written there
      // (whether that creation succeeds depends on which node the client asked: the failing node
      // can no longer apply it)
      s.faultStarts("the Raft journal of node " + id + ", the active controller, fails");
      Files.writeString(trigger(id), "");
      s.admin().createTopics(List.of(new NewTopic("during-the-failure", 3, (short) 2)));

      // Then: the node stops with status 1, though every log directory of it is healthy
      int status = failing.awaitExit(Duration.ofSeconds(60));
      assertThat(failing.log()).contains("The metadata log could not be written");
      assertThat(failing.log()).doesNotContain("Log directory taken offline");
      assertThat(status).as(failing.log()).isEqualTo(1);

      // And another node leads the quorum and the partitions, and takes metadata changes
      assertThat(s.activeController().id()).isNotEqualTo(id);
      s.admin()
          .createTopics(List.of(new NewTopic("after-the-failure", 3, (short) 2)))
          .all()
          .get(60, TimeUnit.SECONDS);
      s.awaitWritesResume(Duration.ofSeconds(60));
      for (TopicPartitionInfo p : s.describe().partitions()) {
        assertThat(p.leader().id()).isNotEqualTo(id);
      }
      s.faultEnds();

      // And nothing acknowledged was lost or duplicated
      s.finish();
    }
  }
}
