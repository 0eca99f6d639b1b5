package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node's clock jumped forward or back by 1-10 minutes for 2-15 s, then set right again, through
 * libfaketime (Debian package {@code faketime}) preloaded into every node from its start.
 * libfaketime moves the monotonic clock with the wall clock: leaving it alone ({@code
 * FAKETIME_DONT_FAKE_MONOTONIC}) made a JVM start ten times slower, too slow for a loaded machine.
 * So a forward jump also fires every timer due within it at once (sessions, request and transaction
 * timeouts, producer-id expiry), and a backward jump holds every timer back for as long as it
 * lasts, then releases them when the clock is set right. The checks: no acknowledged record lost or
 * duplicated, no offset a consumer read replaced (the high watermark never moved back), and no send
 * failed (an idempotent producer expired early would get {@code UNKNOWN_PRODUCER_ID} or an
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
    long seconds = 60 + c.random.nextInt(540);
    // No "run fast" mode: libfaketime's rate counts from the process's start, so switching a
    // node that has run for an hour to x10 would jump its clock by nine hours.
    String offset = (c.random.nextBoolean() ? "+" : "-") + seconds;
    Duration hold = c.between(2_000, 15_000);
    long start = System.nanoTime();
    System.out.printf("clock of node %d: %s%n", target.node(), offset);
    Files.writeString(file, offset + "\n");
    try {
      FaultContext.hold(hold);
    } finally {
      Files.writeString(file, "+0\n");
    }
    return new Injection(
        List.of(new Target(target.node(), target.role() + " clock " + offset)),
        hold.toMillis(),
        start,
        System.nanoTime());
  }
}
