package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Disk I/O errors on one node: {@code src/test/c/failio.c}, built with gcc when the campaign starts
 * and preloaded into every node, makes every write and fsync under the node's data directory fail
 * with {@code EIO} once a trigger file appears. Its only log directory failing, the node must take
 * it offline and stop (as Kafka's broker does) while the other two carry the partitions; then the
 * trigger goes and the node restarts on what it had written. The checks: no acknowledged record
 * lost.
 */
final class DiskErrorFault implements CampaignFault {
  private static final Path SOURCE = Path.of("src/test/c/failio.c");

  @Override
  public String name() {
    return "disk";
  }

  @Override
  public boolean crash() {
    return true;
  }

  static Path trigger(Path clusterDir, int id) {
    return clusterDir.resolve("failio-trigger-" + id);
  }

  /** Builds the shim into the cluster's directory; empty with the reason if it cannot. */
  static Optional<Path> build(Path clusterDir) throws Exception {
    if (!Files.isRegularFile(SOURCE)) {
      return Optional.empty();
    }
    Path library = clusterDir.resolve("failio.so");
    Process gcc =
        new ProcessBuilder(
                "gcc",
                "-shared",
                "-fPIC",
                "-O2",
                "-o",
                library.toString(),
                SOURCE.toString(),
                "-ldl")
            .redirectErrorStream(true)
            .start();
    String output = new String(gcc.getInputStream().readAllBytes());
    if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
      System.out.println("Cannot build the disk error shim: " + output);
      return Optional.empty();
    }
    return Optional.of(library);
  }

  /** The environment that arms the shim on node {@code id}'s data directory. */
  static Map<String, String> environment(Path clusterDir, int id) {
    return Map.of(
        "BROOK_FAILIO_DIR", clusterDir.resolve("data-" + id).toAbsolutePath().toString(),
        "BROOK_FAILIO_TRIGGER", trigger(clusterDir, id).toAbsolutePath().toString());
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    if (!Files.exists(cluster.dir().resolve("failio.so"))) {
      return Optional.of("the disk error shim could not be built with gcc (see above)");
    }
    return Optional.empty();
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Path trigger = trigger(c.cluster.dir(), target.node());
    return c.stopOnDiskFault(
        target,
        () -> {
          Files.writeString(trigger, "");
          return "disk errors";
        },
        () -> Files.deleteIfExists(trigger));
  }
}
