package io.brook.storage.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import io.brook.storage.testing.LogReads;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs a child JVM that appends while the leader epoch keeps changing; epochs are checkpointed
 * without fsync. After each kill the epoch entries must match the batches on disk (plus at most one
 * entry at the log end for a leadership that wrote nothing), and OffsetForLeaderEpoch must answer
 * from them. Every other round the checkpoint is emptied first, as an unsynced rename can leave it
 * after a power loss, which a process kill cannot produce.
 */
class EpochCrashIT {
  private static final int ROUNDS = 6;

  @TempDir Path root;

  @Test
  void epochEntriesMatchTheBatchesAfterSigkill() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Path dir = root.resolve("data");
    for (int round = 0; round < ROUNDS; round++) {
      String context = "seed " + seed + " round " + round;
      runAndKill(dir, random.nextLong(), 300 + random.nextInt(1_200), context);
      if (round % 2 == 1) {
        Files.write(
            dir.resolve(CrashingLeader.TP.toString())
                .resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME),
            new byte[0]);
      }
      verify(dir, context);
    }
  }

  private static void runAndKill(Path dir, long childSeed, long runMs, String context)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CrashingLeader.class.getName(),
            dir.toString(),
            Long.toString(childSeed));
    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process child = builder.start();
    InputStream stdout = child.getInputStream();
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(stdout, StandardCharsets.US_ASCII));
    // The verification expects at least one batch: on a loaded machine the child's first append
    // can take longer than the shortest run, so the run is timed from its first acknowledgement.
    // (The child's log lines share its stdout.)
    assertThat(skipUntil(lines, "ACK "))
        .as(context + " child died before its first append")
        .isTrue();
    Thread drain = new Thread(() -> drainQuietly(lines));
    drain.start();
    Thread.sleep(runMs);
    child.toHandle().destroyForcibly();
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as(context).isTrue();
    drain.join(10_000);
  }

  /** Reads lines until one starts with {@code prefix}; false at the end of the stream. */
  private static boolean skipUntil(BufferedReader lines, String prefix) throws IOException {
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      if (line.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static void drainQuietly(BufferedReader in) {
    try {
      in.transferTo(java.io.Writer.nullWriter());
    } catch (IOException e) {
      // The pipe breaks when the child dies.
    }
  }

  private static void verify(Path dir, String context) throws IOException {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(dir)),
            t -> CrashingAppender.CONFIG,
            Time.SYSTEM,
            scheduler)) {
      PartitionLog log = manager.getOrCreateLog(CrashingLeader.TP);
      long end = log.logEndOffset();
      List<EpochEntry> fromBatches = epochsOf(LogReads.bytes(log, 0, end));
      List<EpochEntry> cached = log.leaderEpochCache().entries();
      assertThat(fromBatches).as(context).isNotEmpty();
      List<EpochEntry> expected = new ArrayList<>(fromBatches);
      if (cached.size() == fromBatches.size() + 1) {
        // A leadership that had not written yet when the child died.
        EpochEntry last = cached.get(cached.size() - 1);
        assertThat(last.startOffset()).as(context).isEqualTo(end);
        expected.add(last);
      }
      assertThat(cached).as(context).containsExactlyElementsOf(expected);
      checkOffsetsForEpochs(log, expected, end, context);
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** The first offset of every epoch increase, as the leader would have assigned them. */
  private static List<EpochEntry> epochsOf(byte[] log) {
    List<EpochEntry> entries = new ArrayList<>();
    for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(log)).batches()) {
      int epoch = batch.partitionLeaderEpoch();
      if (entries.isEmpty() || entries.get(entries.size() - 1).epoch() < epoch) {
        entries.add(new EpochEntry(epoch, batch.baseOffset()));
      }
    }
    return entries;
  }

  private static void checkOffsetsForEpochs(
      PartitionLog log, List<EpochEntry> entries, long end, String context) {
    int latest = entries.get(entries.size() - 1).epoch();
    for (int epoch = 0; epoch <= latest + 1; epoch++) {
      EpochEndOffset expected;
      if (epoch > latest) {
        expected = EpochEndOffset.UNDEFINED;
      } else if (epoch == latest) {
        expected = new EpochEndOffset(latest, end);
      } else {
        int higher = 0;
        while (entries.get(higher).epoch() <= epoch) {
          higher++;
        }
        int floor = higher == 0 ? epoch : entries.get(higher - 1).epoch();
        expected = new EpochEndOffset(floor, entries.get(higher).startOffset());
      }
      assertThat(log.endOffsetForEpoch(epoch)).as(context + " epoch " + epoch).isEqualTo(expected);
    }
  }
}
