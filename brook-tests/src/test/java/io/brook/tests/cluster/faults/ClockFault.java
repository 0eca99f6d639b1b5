package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node's clock jumped forward by 1-10 minutes, through libfaketime (Debian package {@code
 * faketime}) preloaded into every node from its start, then 2-15 s of running with it. The jumps
 * add up: a node's clock is never set back. libfaketime moves the monotonic clock with the wall
 * clock (leaving the monotonic clock alone, {@code FAKETIME_DONT_FAKE_MONOTONIC}, made a JVM start
 * ten times slower, too slow for a loaded machine), and setting it back would run the monotonic
 * clock backwards, which no real clock does: the node's timers would all stop for as long as the
 * jump (the first campaign run saw a node fall silent for six minutes that way). So a jump fires
 * every timer due within it at once (sessions, request and transaction timeouts, producer-id
 * expiry) and leaves the node's wall clock ahead of the others'. The checks: no acknowledged record
 * lost or duplicated, no offset a consumer read replaced (the high watermark never moved back), and
 * no send failed (an idempotent producer expired early would get {@code UNKNOWN_PRODUCER_ID} or an
 * out-of-order sequence).
 */
final class ClockFault implements CampaignFault {
  private static final List<Path> LIBRARIES =
      List.of(
          Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/faketime/libfaketime.so.1"));

  @Override
  public String name() {
    return "clock";
  }

  /** libfaketime, if installed. */
  static Optional<Path> library() {
    return LIBRARIES.stream().filter(Files::isRegularFile).findFirst();
  }

  /** The file libfaketime reads node {@code id}'s offset from. */
  static Path offsetFile(Path clusterDir, int id) {
    return clusterDir.resolve("clock-offset-" + id);
  }

  /**
   * The environment that preloads libfaketime into node {@code id}, its clock right until {@link
   * #offsetFile} says otherwise (read again every second).
   */
  static Map<String, String> environment(Path clusterDir, int id) throws Exception {
    Files.writeString(offsetFile(clusterDir, id), "+0\n");
    return Map.of(
        "FAKETIME_TIMESTAMP_FILE",
        offsetFile(clusterDir, id).toString(),
        "FAKETIME_CACHE_DURATION",
        "1");
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    if (library().isEmpty()) {
      return Optional.of("libfaketime is not installed (apt-get install -y faketime)");
    }
    if (!Files.exists(offsetFile(cluster.dir(), cluster.nodes().get(0).id()))) {
      return Optional.of("the cluster was started without libfaketime preloaded");
    }
    return Optional.empty();
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Path file = offsetFile(c.cluster.dir(), target.node());
    long before = Long.parseLong(Files.readString(file).trim().substring(1));
    long jump = 60 + c.random.nextInt(540);
    String offset = "+" + (before + jump);
    Duration hold = c.between(2_000, 15_000);
    long start = System.nanoTime();
    System.out.printf("clock of node %d: %s%n", target.node(), offset);
    Files.writeString(file, offset + "\n");
    FaultContext.hold(hold);
    return new Injection(
        List.of(new Target(target.node(), target.role() + " clock +" + jump + " s to " + offset)),
        hold.toMillis(),
        start,
        System.nanoTime());
  }
}
