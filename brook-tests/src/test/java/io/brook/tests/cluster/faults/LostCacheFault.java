package io.brook.tests.cluster.faults;

import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.manager.LogManager;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * One node loses what the page cache held for it, as in a power cut of its machine: SIGKILL, then
 * the active segment of each of its partitions is cut at a random byte (often inside a batch) where
 * nothing of that segment was flushed, down 0.5-15 s, then restarted on what is left. Only data the
 * node never flushed is cut: a partition whose recovery point (the checkpoint written after each
 * flush: segments rolled, everything at the last clean shutdown) lies inside its active segment is
 * left alone. The node must find the torn end, truncate there, and fetch the rest from the leader;
 * no acknowledged record may be lost, since every record acknowledged with acks=all is also on the
 * other in-sync replicas. Internal topics are left whole: their coordinators may flush on their
 * own, after the last checkpoint.
 */
final class LostCacheFault implements CampaignFault {
  @Override
  public String name() {
    return "lost-cache";
  }

  @Override
  public boolean crash() {
    return true;
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    Duration hold = c.between(500, 15_000);
    long start = System.nanoTime();
    node.kill();
    int cut = 0;
    for (Path dir : logDirs(node)) {
      cut += loseUnflushedTails(dir, c.random);
    }
    System.out.printf(
        "lost-cache: node %d lost the unflushed tails of %d partitions%n", node.id(), cut);
    FaultContext.hold(hold);
    node.restart();
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }

  private static List<Path> logDirs(Node node) throws IOException {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(node.config())) {
      props.load(in);
    }
    List<Path> dirs = new ArrayList<>();
    for (String dir : props.getProperty("log.dirs", "").split(",", -1)) {
      if (!dir.isBlank()) {
        dirs.add(Path.of(dir.trim()));
      }
    }
    return dirs;
  }

  /**
   * Cuts the active segment of every partition in {@code dir} that has nothing of it flushed at a
   * random length (from empty to whole), in directory order so that a seed repeats the cycle.
   *
   * @return how many segments were cut
   */
  static int loseUnflushedTails(Path dir, Random random) throws IOException {
    Map<TopicPartition, Long> recoveryPoints =
        new OffsetCheckpointFile(dir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT)).read();
    List<Path> partitions;
    try (Stream<Path> children = Files.list(dir)) {
      partitions = children.filter(Files::isDirectory).sorted().toList();
    }
    int cut = 0;
    for (Path partition : partitions) {
      Optional<TopicPartition> tp = topicPartition(partition);
      if (tp.isEmpty() || tp.get().topic().startsWith("__")) {
        continue;
      }
      Optional<Path> active = activeSegment(partition);
      if (active.isEmpty()) {
        continue;
      }
      long base = baseOffset(active.get());
      long size = Files.size(active.get());
      if (recoveryPoints.getOrDefault(tp.get(), 0L) > base || size == 0) {
        continue; // some of the active segment was flushed: a power cut keeps it
      }
      try (FileChannel channel = FileChannel.open(active.get(), StandardOpenOption.WRITE)) {
        channel.truncate((long) (random.nextDouble() * size));
      }
      cut++;
    }
    return cut;
  }

  /** The partition a log directory's child holds, empty for anything else (deleted, stray). */
  private static Optional<TopicPartition> topicPartition(Path dir) {
    String name = dir.getFileName().toString();
    int dash = name.lastIndexOf('-');
    if (dash <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static Optional<Path> activeSegment(Path partition) throws IOException {
    try (Stream<Path> files = Files.list(partition)) {
      return files
          .filter(f -> f.getFileName().toString().matches("\\d{20}\\.log"))
          .max(Comparator.comparingLong(LostCacheFault::baseOffset));
    }
  }

  private static long baseOffset(Path segment) {
    String name = segment.getFileName().toString();
    return Long.parseLong(name.substring(0, name.length() - ".log".length()));
  }
}
