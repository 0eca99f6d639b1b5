package io.brook.storage.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogReads;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a child JVM with SIGKILL while it appends, several times over the same directory. After
 * each kill the log must hold every acknowledged batch byte for byte, in order, with its offsets,
 * and nothing but them (plus at most the one batch that was being acknowledged).
 */
class LogCrashIT {
  private static final int ROUNDS = 5;

  @TempDir Path root;

  @Test
  void everyAcknowledgedAppendSurvivesSigkill() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Path dir = root.resolve("data");
    long acknowledged = 0;
    for (int round = 0; round < ROUNDS; round++) {
      String context = "seed " + seed + " round " + round;
      long ackedThisRound = runAndKill(dir, seed, 300 + random.nextInt(1_200), context);
      acknowledged = Math.max(acknowledged, ackedThisRound);
      long stored = verify(dir, seed, context);
      assertThat(stored).as(context).isBetween(acknowledged, acknowledged + 1);
      acknowledged = stored;
    }
  }

  /** Runs the child until it has acknowledged something, then SIGKILLs it after a while. */
  private long runAndKill(Path dir, long seed, long runMs, String context) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CrashingAppender.class.getName(),
            dir.toString(),
            Long.toString(seed));
    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process child = builder.start();
    AtomicLong lastAck = new AtomicLong(-1);
    ByteArrayOutputStream transcript = new ByteArrayOutputStream();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (line.startsWith("ACK ")) {
                    lastAck.set(Long.parseLong(line.substring(4)));
                  } else {
                    transcript.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
                  }
                }
              } catch (IOException e) {
                // The pipe breaks when the child dies; that is the point.
              }
            });
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (lastAck.get() < 0 && child.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(child.isAlive()).as(context + " child died early: " + transcript).isTrue();
    Thread.sleep(runMs);
    // Process.destroyForcibly() would also close our end of its stdout, losing ACK lines still in
    // the pipe; the process handle only sends SIGKILL.
    child.toHandle().destroyForcibly();
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as(context).isTrue();
    reader.join(10_000);
    return lastAck.get() + 1;
  }

  /** Reopens the log after the kill and checks every stored batch; returns how many there are. */
  private long verify(Path dir, long seed, String context) throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(dir)),
            t -> CrashingAppender.CONFIG,
            Time.SYSTEM,
            scheduler)) {
      PartitionLog log = manager.getOrCreateLog(CrashingAppender.TP);
      long end = log.logEndOffset();
      assertThat(end % CrashBatches.RECORDS_PER_BATCH).as(context).isZero();
      long batches = end / CrashBatches.RECORDS_PER_BATCH;
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      for (long i = 0; i < batches; i++) {
        expected.writeBytes(Batches.bytes(CrashBatches.stored(seed, i, 0)));
      }
      assertThat(LogReads.bytes(log, 0, end)).as(context).isEqualTo(expected.toByteArray());
      return batches;
    } finally {
      scheduler.shutdownNow();
    }
  }
}
