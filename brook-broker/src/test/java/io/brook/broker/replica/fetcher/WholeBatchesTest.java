package io.brook.broker.replica.fetcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** A follower keeps the whole batches of a read the leader cut at its fetch size. */
class WholeBatchesTest {
  /** Three batches of one 1,000-byte record each, back to back. */
  private static ByteBuffer threeBatches() {
    ByteBuffer all = ByteBuffer.allocate(4096);
    for (int i = 0; i < 3; i++) {
      MemoryRecords batch =
          MemoryRecords.withRecords(i, Compression.NONE, new SimpleRecord(new byte[1_000]));
      all.put(batch.buffer());
    }
    all.flip();
    return all;
  }

  @Test
  void aReadCutInTheLastBatchKeepsTheBatchesBeforeIt() {
    ByteBuffer all = threeBatches();
    int batch = all.limit() / 3;
    ByteBuffer cut = all.duplicate();
    cut.limit(2 * batch + batch / 2);

    MemoryRecords kept = WholeBatches.of(MemoryRecords.readableRecords(cut.slice()));

    assertThat(kept.sizeInBytes()).isEqualTo(2 * batch);
    assertThat(kept.batches()).hasSize(2);
  }

  @Test
  void wholeBatchesAndACutHeaderAreHandled() {
    ByteBuffer all = threeBatches();
    MemoryRecords whole = MemoryRecords.readableRecords(all.duplicate());
    assertThat(WholeBatches.of(whole)).isSameAs(whole);

    int batch = all.limit() / 3;
    ByteBuffer header = all.duplicate();
    header.limit(batch + 5); // the second batch's length field itself is cut
    assertThat(WholeBatches.of(MemoryRecords.readableRecords(header.slice())).sizeInBytes())
        .isEqualTo(batch);
  }

  @Test
  void aNegativeLengthIsLeftForTheLogToRefuse() {
    ByteBuffer all = threeBatches();
    all.putInt(8, -5); // the first batch's length
    MemoryRecords corrupt = MemoryRecords.readableRecords(all.duplicate());

    assertThat(WholeBatches.of(corrupt)).isSameAs(corrupt);
  }
}
