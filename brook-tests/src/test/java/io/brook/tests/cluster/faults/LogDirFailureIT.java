package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk under a leader, in a three-node cluster of separate JVMs: node 1 keeps a log
 * directory on a 64 MiB tmpfs mounted in a private mount namespace of its own ({@code unshare
 * --mount}; its metadata log is elsewhere). While idempotent acks=all producers write to a topic of
 * replication factor 3, the test fills that tmpfs from inside the namespace ({@code nsenter}). The
 * next write of node 1 there fails and the directory goes offline:
 *
 * <ul>
 *   <li>when it was node 1's only directory, node 1 shuts down (controlled, exit status 1) and its
 *       leaderships move to in-sync replicas;
 *   <li>when node 1 has another directory, only the replicas of the full one leave their ISRs and
 *       lose their leaderships (AssignReplicasToDirs to the controller); node 1 keeps leading and
 *       following the partitions of the other directory;
 *   <li>unless the full directory holds node 1's metadata log: then it shuts down, as with none
 *       left.
 * </ul>
 *
 * <p>Either way the producers carry on and every acknowledged record is present exactly once
 * ({@link io.brook.cli.verify.ReplicationChecker}). Needs {@code unshare} and {@code nsenter} with
 * the right to mount (root); skipped with the reason printed elsewhere.
 */
class LogDirFailureIT {
  private static final int FAILING = 1;

  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aLeaderWhoseDiskFillsUpLosesItsLeadershipsAndNoAcknowledgedRecord() throws Exception {
    requireMountNamespaces();
    // Given: node 1's only log directory on a disk of its own
    Path tiny = Files.createDirectories(dir.resolve("data-" + FAILING));
    try (ClusterHarness cluster = startWithTinyDisk(tiny, Map.of());
        FaultScenario s = FaultScenario.start(cluster, "diskfull")) {
      Node failing = cluster.node(FAILING);
      List<Integer> led = ledBy(s, FAILING);
      System.out.println("[diskfull] node " + FAILING + " leads partitions " + led);
      assertThat(led).as("partitions led by node %d", FAILING).isNotEmpty();

      // When its disk fills up
      s.faultStarts("disk of node " + FAILING + " (leader of " + led + ") full");
      fill(failing, tiny);

      // Then it takes its log directory offline and, with none left, shuts down
      int status = failing.awaitExit(Duration.ofSeconds(90));
      assertThat(failing.log()).contains("Log directory taken offline after an I/O error");
      assertThat(failing.log()).contains("Every log directory is offline; shutting down");
      assertThat(status).as(failing.log()).isEqualTo(1);

      // And every partition is led by an in-sync replica elsewhere and takes writes again
      s.awaitWritesResume(Duration.ofSeconds(60));
      for (TopicPartitionInfo p : s.describe().partitions()) {
        assertThat(p.leader().id()).isNotEqualTo(FAILING);
        assertThat(p.isr()).extracting(n -> n.id()).doesNotContain(FAILING);
      }
      s.faultEnds();

      // And nothing acknowledged was lost or duplicated
      s.finish();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void onlyTheReplicasOfTheFullDirectoryMoveAndTheBrokerServesTheOther() throws Exception {
    requireMountNamespaces();
    // Given: node 1 with two log directories, the second on a disk of its own; new logs go to
    // the less loaded one, so its replicas alternate between them
    Path healthy = dir.resolve("data-" + FAILING);
    Path tiny = Files.createDirectories(dir.resolve("tiny-" + FAILING));
    try (ClusterHarness cluster =
            startWithTinyDisk(tiny, Map.of("log.dirs", healthy + "," + tiny));
        FaultScenario s = FaultScenario.start(cluster, "halfdiskfull")) {
      Node failing = cluster.node(FAILING);
      List<Integer> led = ledBy(s, FAILING);
      List<Integer> onTiny = partitionsIn(cluster, s, tiny);
      List<Integer> ledOnTiny = led.stream().filter(onTiny::contains).toList();
      List<Integer> ledOnHealthy = led.stream().filter(p -> !onTiny.contains(p)).toList();
      System.out.printf(
          "[halfdiskfull] node %d leads %s; its replicas on the small disk: %s%n",
          FAILING, led, onTiny);
      assertThat(ledOnTiny).as("partitions node 1 leads on the small disk").isNotEmpty();

      // When that disk fills up
      s.faultStarts("disk of node " + FAILING + " holding " + onTiny + " full");
      fill(failing, tiny);

      // Then the replicas there leave their ISRs and lose their leaderships, in one batch
      await("the replicas of the full disk moved")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                for (TopicPartitionInfo p : s.describe().partitions()) {
                  if (onTiny.contains(p.partition())) {
                    assertThat(p.leader().id()).isNotEqualTo(FAILING);
                    assertThat(p.isr()).extracting(n -> n.id()).doesNotContain(FAILING);
                  }
                }
              });
      s.awaitWritesResume(Duration.ofSeconds(60));
      s.faultEnds();

      // And the broker lives on, leading and in sync for the partitions of its other directory
      assertThat(failing.isAlive()).isTrue();
      assertThat(failing.log()).contains("Replicas of a failed log directory reported");
      for (TopicPartitionInfo p : s.describe().partitions()) {
        if (!onTiny.contains(p.partition())) {
          assertThat(p.isr()).extracting(n -> n.id()).contains(FAILING);
        }
        if (ledOnHealthy.contains(p.partition())) {
          assertThat(p.leader().id()).isEqualTo(FAILING);
        }
      }

      // And nothing acknowledged was lost or duplicated
      s.finish();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aBrokerWhoseMetadataLogDirectoryFailsShutsDownThoughAnotherLives() throws Exception {
    requireMountNamespaces();
    // Given: node 1 with two log directories, the second on a disk of its own and holding the
    // node's metadata log (its Raft journal) too
    Path healthy = dir.resolve("data-" + FAILING);
    Path tiny = Files.createDirectories(dir.resolve("tiny-" + FAILING));
    try (ClusterHarness cluster =
            startWithTinyDisk(
                tiny,
                Map.of("log.dirs", healthy + "," + tiny, "metadata.log.dir", tiny.toString()));
        FaultScenario s = FaultScenario.start(cluster, "metadatadiskfull")) {
      Node failing = cluster.node(FAILING);

      // When that disk fills up
      s.faultStarts("disk of node " + FAILING + " holding its metadata log full");
      fill(failing, tiny);

      // Then the node shuts down: its other directory is healthy, but it can keep neither its
      // Raft journal nor the metadata its replicas follow
      int status = failing.awaitExit(Duration.ofSeconds(90));
      assertThat(failing.log()).contains("The metadata log directory is offline; shutting down");
      assertThat(status).as(failing.log()).isEqualTo(1);

      // And every partition is led elsewhere and takes writes again
      s.awaitWritesResume(Duration.ofSeconds(60));
      for (TopicPartitionInfo p : s.describe().partitions()) {
        assertThat(p.leader().id()).isNotEqualTo(FAILING);
      }
      s.faultEnds();

      // And nothing acknowledged was lost or duplicated
      s.finish();
    }
  }

  /**
   * Three nodes on loopback; node 1 runs in a private mount namespace where {@code tiny} is a 64
   * MiB tmpfs. Every node keeps its metadata log apart from its log directories.
   */
  private ClusterHarness startWithTinyDisk(Path tiny, Map<String, String> failingNodeConfig)
      throws IOException {
    return ClusterHarness.start(
        dir,
        3,
        Map.of(),
        id -> {
          Map<String, String> config = new java.util.HashMap<>();
          config.put("metadata.log.dir", dir.resolve("metadata-" + id).toString());
          if (id == FAILING) {
            config.putAll(failingNodeConfig);
          }
          return config;
        },
        id ->
            id == FAILING
                ? privateTmpfs("size=64m brook-tiny \"$0\" && exec \"$@\"", tiny)
                : List.of());
  }

  /**
   * The failing node's directory is a small tmpfs in its own mount namespace: the test needs root
   * or user namespaces (`unshare`, `nsenter`), which `.ci/run` has. Without them it fails with the
   * reason rather than passing without having tested anything.
   */
  private void requireMountNamespaces() {
    Optional<String> unavailable = mountNamespacesUnavailableReason();
    if (unavailable.isPresent()) {
      throw new AssertionError(
          "LogDirFailureIT needs a private tmpfs for one node (run as root, or with user"
              + " namespaces and unshare/nsenter): "
              + unavailable.get());
    }
  }

  /** The partitions of the scenario's topic whose replica on node 1 lives in {@code logDir}. */
  private static List<Integer> partitionsIn(ClusterHarness cluster, FaultScenario s, Path logDir)
      throws Exception {
    try (Admin admin = FaultScenario.admin(cluster.bootstrapServers())) {
      LogDirDescription description =
          admin
              .describeLogDirs(List.of(FAILING))
              .allDescriptions()
              .get(30, TimeUnit.SECONDS)
              .get(FAILING)
              .get(logDir.toString());
      return description.replicaInfos().keySet().stream()
          .filter(tp -> tp.topic().equals(s.topic()))
          .map(TopicPartition::partition)
          .sorted()
          .toList();
    }
  }

  private static List<Integer> ledBy(FaultScenario s, int nodeId) throws Exception {
    return s.describe().partitions().stream()
        .filter(p -> p.leader() != null && p.leader().id() == nodeId)
        .map(TopicPartitionInfo::partition)
        .toList();
  }

  /** Fills the tmpfs the node sees, from inside its mount namespace. */
  private static void fill(Node node, Path mount) throws IOException, InterruptedException {
    Process filler =
        new ProcessBuilder(
                "nsenter",
                "--target",
                Long.toString(node.pid()),
                "--mount",
                "--",
                "sh",
                "-c",
                "cat /dev/zero > \"$0/filler\"; df -k \"$0\" | tail -1",
                mount.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(filler.getInputStream().readAllBytes());
    assertThat(filler.waitFor(60, TimeUnit.SECONDS)).isTrue();
    System.out.println("[diskfull] filled: " + output.strip());
    assertThat(output).contains("brook-tiny");
  }

  /**
   * A command that runs {@code sh -c "mount -t tmpfs -o <mountAndThen>" <mountPoint>} in a private
   * mount namespace: the mount is seen by that shell and what it execs only, and goes with them.
   */
  private static List<String> privateTmpfs(String mountAndThen, Path mountPoint) {
    return List.of(
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        "mount -t tmpfs -o " + mountAndThen,
        mountPoint.toString());
  }

  /** Why a private tmpfs cannot be mounted and entered here, or empty if it can. */
  private Optional<String> mountNamespacesUnavailableReason() {
    try {
      Process probe =
          new ProcessBuilder(privateTmpfs("size=1m probe \"$0\" && command -v nsenter", dir))
              .redirectErrorStream(true)
              .start();
      String output = new String(probe.getInputStream().readAllBytes());
      if (!probe.waitFor(10, TimeUnit.SECONDS) || probe.exitValue() != 0) {
        return Optional.of(
            "cannot mount a tmpfs in a private mount namespace (needs root and nsenter): "
                + output.strip());
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("unshare is not installed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }
}
