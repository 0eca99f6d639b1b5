package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.manager.LogManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the lost-cache fault cuts: only active segments with nothing flushed, of user topics. */
class LostCacheFaultTest {
  private static final int SIZE = 100_000;

  @TempDir Path dir;

  @Test
  void cutsOnlyActiveSegmentsAboveTheRecoveryPoint() throws Exception {
    // Given partitions whose recovery point is at the active segment's base, inside it, or absent
    Path rolled = segment("orders-0", 0);
    Path active = segment("orders-0", 500);
    Path flushed = segment("orders-1", 200);
    Path neverCheckpointed = segment("orders-2", 0);
    Path internal = segment("__consumer_offsets-3", 0);
    Path deleted = segment("orders-4.3f1c9b0e2a5d4c7e8f90-delete", 0);
    new OffsetCheckpointFile(dir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT))
        .write(
            Map.of(
                new TopicPartition("orders", 0), 500L,
                new TopicPartition("orders", 1), 250L,
                new TopicPartition("__consumer_offsets", 3), 0L));

    // When the node loses its page cache
    int cut = LostCacheFault.loseUnflushedTails(dir, new Random(7));

    // Then only the unflushed active segments of user topics are shorter
    assertThat(cut).isEqualTo(2);
    assertThat(Files.size(active)).isLessThan(SIZE);
    assertThat(Files.size(neverCheckpointed)).isLessThan(SIZE);
    assertThat(Files.size(rolled)).isEqualTo(SIZE);
    assertThat(Files.size(flushed)).isEqualTo(SIZE);
    assertThat(Files.size(internal)).isEqualTo(SIZE);
    assertThat(Files.size(deleted)).isEqualTo(SIZE);
  }

  private Path segment(String partition, long baseOffset) throws Exception {
    Path partitionDir = Files.createDirectories(dir.resolve(partition));
    Path segment = partitionDir.resolve(String.format("%020d.log", baseOffset));
    Files.write(segment, new byte[SIZE]);
    return segment;
  }
}
