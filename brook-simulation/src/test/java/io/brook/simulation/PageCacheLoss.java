package io.brook.simulation;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.segment.SegmentFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;

/**
 * What a machine crash leaves of one partition's files when the page cache is lost with it. The
 * log's recovery point is the offset below which {@code PartitionLog} has fsynced the segments: the
 * segment files keep their bytes up to the first batch at or above it and lose the rest (a segment
 * that starts above it is left empty). The index files keep what the process wrote (the kernel
 * writes dirty pages back in no particular order, so an index may run ahead of its log; recovery
 * re-checks everything above the recovery point). The leader epoch checkpoint, fsynced before the
 * recovery point passes any entry it holds, keeps either its last version or only the entries below
 * the recovery point, the oldest content a flush guaranteed.
 */
final class PageCacheLoss {
  private PageCacheLoss() {}

  /** Cuts the partition's files as the crash leaves them; the number of log bytes lost. */
  static long apply(Path partitionDir, long recoveryPoint, boolean keepLatestEpochCheckpoint) {
    long lost = 0;
    try (Stream<Path> files = Files.list(partitionDir)) {
      for (Path file : files.sorted().toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(SegmentFiles.LOG_SUFFIX)) {
          long base = Long.parseLong(name.substring(0, name.length() - 4));
          lost += truncate(file, base >= recoveryPoint ? 0 : flushedBytes(file, recoveryPoint));
        }
      }
      if (!keepLatestEpochCheckpoint) {
        cutEpochCheckpoint(
            partitionDir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME), recoveryPoint);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lost;
  }

  /** The position of the first batch at or above {@code recoveryPoint}: what was flushed. */
  private static long flushedBytes(Path segment, long recoveryPoint) throws IOException {
    try (FileRecords records = FileRecords.open(segment.toFile())) {
      for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
        if (batch.baseOffset() >= recoveryPoint) {
          return batch.position();
        }
      }
      return records.sizeInBytes();
    }
  }

  private static long truncate(Path file, long size) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      long before = channel.size();
      if (before <= size) {
        return 0;
      }
      channel.truncate(size);
      return before - size;
    }
  }

  /** Keeps the entries (lines {@code epoch startOffset}) that start below the recovery point. */
  private static void cutEpochCheckpoint(Path file, long recoveryPoint) throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.size() < 2) {
      return;
    }
    List<String> kept = new ArrayList<>();
    for (String entry : lines.subList(2, lines.size())) {
      String[] fields = entry.trim().split("\\s+");
      if (fields.length == 2 && Long.parseLong(fields[1]) < recoveryPoint) {
        kept.add(entry);
      }
    }
    List<String> content = new ArrayList<>();
    content.add(lines.get(0));
    content.add(Integer.toString(kept.size()));
    content.addAll(kept);
    Files.write(file, content, StandardCharsets.UTF_8);
  }
}
