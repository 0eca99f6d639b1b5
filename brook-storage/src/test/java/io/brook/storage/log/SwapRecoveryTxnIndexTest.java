package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.txn.AbortedTxn;
import io.brook.storage.txn.TransactionIndex;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transaction index through an interrupted segment swap. */
class SwapRecoveryTxnIndexTest {
  @TempDir Path dir;

  @Test
  void aSwapBringsItsTxnIndexAndRemovesThoseOfTheSegmentsItReplaces() throws Exception {
    // Given: old segments 0 and 5, a cleaned .swap covering offsets 0-9 with its own index
    MemoryRecords cleaned =
        MemoryRecords.withRecords(
            0L,
            Compression.NONE,
            new SimpleRecord("a".getBytes(StandardCharsets.UTF_8)),
            new SimpleRecord("b".getBytes(StandardCharsets.UTF_8)));
    cleaned.batches().iterator().next().setLastOffset(9);
    Files.write(dir.resolve("00000000000000000000.log.swap"), bytes(cleaned));
    Files.write(SegmentFiles.logFile(dir, 0), new byte[0]);
    Files.write(SegmentFiles.logFile(dir, 5), new byte[0]);
    index(SegmentFiles.txnIndexFile(dir, 0)).append(new AbortedTxn(1, 0, 2, 3));
    index(SegmentFiles.txnIndexFile(dir, 5)).append(new AbortedTxn(2, 5, 6, 7));
    TransactionIndex swapIndex = index(dir.resolve("00000000000000000000.txnindex.swap"));
    swapIndex.append(new AbortedTxn(1, 0, 2, 3));
    swapIndex.append(new AbortedTxn(2, 5, 6, 7));
    Path orphan = dir.resolve("00000000000000000042.txnindex.swap");
    index(orphan).append(new AbortedTxn(3, 42, 43, 44));

    // When
    SegmentSwap.recover(dir);

    // Then
    assertThat(index(SegmentFiles.txnIndexFile(dir, 0)).entries())
        .containsExactly(new AbortedTxn(1, 0, 2, 3), new AbortedTxn(2, 5, 6, 7));
    assertThat(SegmentFiles.txnIndexFile(dir, 5)).doesNotExist();
    assertThat(orphan).doesNotExist();
    assertThat(SegmentFiles.logFile(dir, 5)).doesNotExist();
  }

  private static TransactionIndex index(Path file) {
    return new TransactionIndex(() -> file);
  }

  private static byte[] bytes(MemoryRecords records) {
    byte[] out = new byte[records.sizeInBytes()];
    records.buffer().duplicate().get(out);
    return out;
  }
}
