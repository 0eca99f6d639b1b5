package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One node's wall clock made wrong for 2-15 s, then set right again, through libfaketime (Debian
 * package {@code faketime}) preloaded into every node from its start. Four ways, picked at random:
 *
 * <ul>
 *   <li>{@code forward}: stepped 1-10 minutes ahead; setting it right steps it back as far;
 *   <li>{@code back}: stepped 1-10 minutes back; setting it right steps it forward;
 *   <li>{@code fast}: running 2-10 times too fast;
 *   <li>{@code slow}: running at a tenth to a half of the right speed.
 * </ul>
 *
 * <p>Only the wall clock (what {@code System.currentTimeMillis()} and {@code Instant.now()} read)
 * moves: {@code FAKETIME_DONT_FAKE_MONOTONIC=1} leaves the monotonic clock ({@code
 * System.nanoTime()}, and every timed wait of the JVM) alone, as a real clock step or an NTP
 * correction does. With that setting libfaketime's own rewrite of timed waits on a monotonic
 * condition variable would compute their deadlines from a faked monotonic time ("forced monotonic
 * fix", on by default with glibc 2.30 and later) and return at once, spinning every waiting thread
 * ({@code Object.wait(200)} returned after 0 ms; the JVM started ten times slower): {@code
 * FAKETIME_FORCE_MONOTONIC_FIX=0} passes those deadlines through unchanged. For the same reason the
 * rates do not use libfaketime's {@code x} rate modifier, which also rescales every timed wait's
 * deadline (hanging a Java 17 JVM's timed waits for decades when faster than 1): a fast or slow
 * clock is instead a step of the offset every second, (rate - 1) seconds each, which is how often
 * libfaketime reads the offset file again ({@code FAKETIME_CACHE_DURATION=0}: whenever the second
 * changes). So a slow clock goes back a little every second rather than only lagging.
 *
 * <p>What it tests is wall-clock-based expiry and ordering: producer-id and transaction timeouts,
 * retention, timestamps, on a node whose clock is wrong and then corrected. The checks: no
 * acknowledged record lost or duplicated, no offset a consumer read replaced (the high watermark
 * never moved back), no send failed (an idempotent producer expired early would get {@code
 * UNKNOWN_PRODUCER_ID} or an out-of-order sequence), and the transaction checks when the {@code
 * txn} workload runs.
 */
final class ClockFault implements CampaignFault {
  private static final List<Path> LIBRARIES =
      List.of(
          Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/faketime/libfaketime.so.1"));

  private static final List<String> MODES = List.of("forward", "back", "fast", "slow");

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
   * The environment that preloads libfaketime's settings into node {@code id}: its wall clock right
   * until {@link #offsetFile} says otherwise, the monotonic clock and timed waits untouched.
   */
  static Map<String, String> environment(Path clusterDir, int id) throws IOException {
    setOffset(offsetFile(clusterDir, id), 0);
    return Map.of(
        "FAKETIME_TIMESTAMP_FILE", offsetFile(clusterDir, id).toString(),
        "FAKETIME_CACHE_DURATION", "0",
        "FAKETIME_DONT_FAKE_MONOTONIC", "1",
        "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /**
   * Replaces the offset file in one step (a rename): libfaketime reading a file half written would
   * take it as no offset at all, a jump of its own.
   */
  static void setOffset(Path file, double seconds) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, String.format(Locale.ROOT, "%+.3f%n", seconds));
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
    String mode = MODES.get(c.random.nextInt(MODES.size()));
    Duration hold = c.between(2_000, 15_000);
    String what;
    long start = System.nanoTime();
    try {
      switch (mode) {
        case "forward", "back" -> {
          int jump = (60 + c.random.nextInt(540)) * (mode.equals("back") ? -1 : 1);
          what = String.format(Locale.ROOT, "clock %+d s", jump);
          System.out.printf("node %d: %s%n", target.node(), what);
          setOffset(file, jump);
          FaultContext.hold(hold);
        }
        default -> {
          double rate =
              mode.equals("fast") ? 2 + c.random.nextInt(9) : 0.1 + 0.1 * c.random.nextInt(5);
          what = String.format(Locale.ROOT, "clock x%.1f for %d ms", rate, hold.toMillis());
          System.out.printf("node %d: %s%n", target.node(), what);
          drift(file, rate, hold);
        }
      }
    } finally {
      setOffset(file, 0);
    }
    return new Injection(
        List.of(new Target(target.node(), target.role() + " " + what)),
        hold.toMillis(),
        start,
        System.nanoTime());
  }

  /**
   * Moves the offset by {@code rate - 1} seconds every second for {@code hold}: the node's wall
   * clock gains (or loses) as one running at {@code rate} would, a second at a time.
   */
  private static void drift(Path file, double rate, Duration hold) throws Exception {
    long start = System.nanoTime();
    long end = start + hold.toNanos();
    for (long now = start; now < end; now = System.nanoTime()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(1_000_000_000L, end - now));
      setOffset(file, (rate - 1) * (System.nanoTime() - start) / 1e9);
    }
  }
}
