package io.brook.storage.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.storage.cleaner.LogCleaner;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.testing.LogReads;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs a child JVM that appends to a compacted log while its cleaner runs without pause,
 * several times over the same directory. After each kill the reopened log must still give, for
 * every key, the latest value among the acknowledged batches (or the one batch being acknowledged),
 * and every record it holds must be one that was appended at that offset.
 */
class CleanerCrashIT {
  private static final int ROUNDS = 4;

  @TempDir Path root;

  @Test
  void noLatestValueIsLostWhenTheCleanerIsKilled() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Path dir = root.resolve("data");
    long acknowledged = 0;
    for (int round = 0; round < ROUNDS; round++) {
      String context = "seed " + seed + " round " + round;
      long acked = runAndKill(dir, seed, 50 + random.nextInt(700), context);
      acknowledged = Math.max(acknowledged, acked);
      System.out.println(context + " left behind: " + cleanerLeftovers(dir));
      long stored = verify(dir, seed, context);
      assertThat(stored).as(context).isBetween(acknowledged, acknowledged + 1);
      acknowledged = stored;
    }
  }

  /** The cleaner's in-flight files the kill left, for the test log (which rounds hit a pass). */
  private static java.util.List<String> cleanerLeftovers(Path dir) throws IOException {
    try (var files = Files.list(dir.resolve(CrashingCleaner.TP.toString()))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".cleaned") || n.endsWith(".swap"))
          .toList();
    }
  }

  /** Runs the child until its cleaner has finished a pass, then SIGKILLs it after a while. */
  private long runAndKill(Path dir, long seed, long runMs, String context) throws Exception {
    Path checkpoint = dir.resolve(LogCleaner.CHECKPOINT_FILE);
    long before = Files.exists(checkpoint) ? Files.getLastModifiedTime(checkpoint).toMillis() : 0;
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CrashingCleaner.class.getName(),
            dir.toString(),
            Long.toString(seed));
    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process child = builder.start();
    AtomicLong lastAck = new AtomicLong(-1);
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
                  }
                }
              } catch (IOException e) {
                // The pipe breaks when the child dies; that is the point.
              }
            });
    reader.start();
    try {
      await()
          .alias(context + " cleaner never checkpointed")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  !child.isAlive()
                      || Files.exists(checkpoint)
                          && Files.getLastModifiedTime(checkpoint).toMillis() > before);
      assertThat(child.isAlive()).as(context + " child died early").isTrue();
      // A random moment after a pass completed: often in the middle of the next one.
      Thread.sleep(runMs);
    } finally {
      // Process.destroyForcibly() would also close our end of its stdout, losing ACK lines still in
      // the pipe; the process handle only sends SIGKILL.
      child.toHandle().destroyForcibly();
    }
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as(context).isTrue();
    reader.join(10_000);
    return lastAck.get() + 1;
  }

  /** Reopens the log (no cleaner) and checks it against the model; returns the batches stored. */
  private long verify(Path dir, long seed, String context) throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (LogManager manager =
        LogManager.start(
            CrashingCleaner.managerConfig(dir, false),
            t -> CrashingCleaner.CONFIG,
            Time.SYSTEM,
            scheduler)) {
      PartitionLog log = manager.getOrCreateLog(CrashingCleaner.TP);
      long end = log.logEndOffset();
      assertThat(end % CrashingCleaner.RECORDS_PER_BATCH).as(context).isZero();
      long batches = end / CrashingCleaner.RECORDS_PER_BATCH;
      Map<String, String> expected = new HashMap<>();
      Map<Long, String> valueAt = new HashMap<>();
      for (long i = 0; i < batches; i++) {
        for (int j = 0; j < CrashingCleaner.RECORDS_PER_BATCH; j++) {
          String value = CrashingCleaner.value(i, j);
          expected.put(CrashingCleaner.key(seed, i, j), value);
          valueAt.put(i * CrashingCleaner.RECORDS_PER_BATCH + j, value);
        }
      }
      Map<String, String> actual = new HashMap<>();
      log.updateHighWatermark(end);
      MemoryRecords all = MemoryRecords.readableRecords(ByteBuffer.wrap(LogReads.bytes(log)));
      long previous = -1;
      for (RecordBatch batch : all.batches()) {
        for (var record : batch) {
          String value = StandardCharsets.UTF_8.decode(record.value()).toString();
          assertThat(record.offset()).as(context).isGreaterThan(previous);
          assertThat(valueAt.get(record.offset())).as(context).isEqualTo(value);
          actual.put(StandardCharsets.UTF_8.decode(record.key()).toString(), value);
          previous = record.offset();
        }
      }
      assertThat(actual).as(context).isEqualTo(expected);
      try (var files = Files.list(log.dir())) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .as(context)
            .noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap"));
      }
      return batches;
    } finally {
      scheduler.shutdownNow();
    }
  }
}
