package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The active controller's wall clock stepped back five minutes, in a three-node cluster of separate
 * JVMs with libfaketime preloaded into every node (as the fault campaign's clock class; Debian
 * package {@code faketime}, which {@code .ci/run} installs). Apache Ratis times its retries and
 * request timeouts with wall-clock timers, which run as late as the step; in the campaign a leader
 * stepped back 431 s stalled its appends while the other voters kept electing it, for four minutes.
 * The stepped voter now steps down and stands for no election for as long as the step, so another
 * voter leads within seconds, and the cluster stays whole and writable throughout, with nothing
 * acknowledged lost.
 */
class ClockStepIT {
  private static final int STEP_SECONDS = -300;

  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theActiveControllerWhoseClockStepsBackHandsOverAndNothingAcknowledgedIsLost()
      throws Exception {
    Path faketime =
        ClockFault.library()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "ClockStepIT needs libfaketime (apt-get install -y faketime; .ci/run"
                            + " installs it)"));
    try (ClusterHarness cluster =
            ClusterHarness.startWithEnvironment(
                dir,
                3,
                Map.of(),
                false,
                id -> environment(faketime, id),
                ClockFault.READY_TIMEOUT);
        FaultScenario s = FaultScenario.start(cluster, "clockstep");
        Admin admin = FaultScenario.admin(cluster.bootstrapServers())) {
      // Given idempotent acks=all producers writing to a topic of replication factor 3
      Node controller = cluster.node(raftLeader(admin));
      Path offset = ClockFault.offsetFile(dir, controller.id());

      // When the active controller's wall clock steps back five minutes
      s.faultStarts(
          "wall clock of node "
              + controller.id()
              + " (the active controller) "
              + STEP_SECONDS
              + " s");
      ClockFault.setOffset(offset, STEP_SECONDS);

      // Then it notices, steps down, and another voter leads
      await("another active controller")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> raftLeader(admin) != controller.id());
      assertThat(controller.log()).contains("Wall clock stepped back");

      // And, its clock still wrong, every broker stays listed, every ISR full, every partition
      // writable
      s.awaitHealthy(Duration.ofSeconds(60));
      s.awaitWritable(Duration.ofSeconds(30));
      ClockFault.setOffset(offset, 0);
      s.faultEnds();

      // And nothing acknowledged was lost or duplicated
      s.finish();
    }
  }

  private static int raftLeader(Admin admin) throws Exception {
    return admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS).leaderId();
  }

  private Map<String, String> environment(Path faketime, int id) {
    Map<String, String> env = new HashMap<>();
    env.put("LD_PRELOAD", faketime.toString());
    try {
      env.putAll(ClockFault.environment(dir, id));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return env;
  }
}
