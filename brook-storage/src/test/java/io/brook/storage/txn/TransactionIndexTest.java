package io.brook.storage.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.index.CorruptIndexException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionIndexTest {
  @TempDir Path dir;

  @Test
  void noFileUntilTheFirstAbort() throws Exception {
    Path file = dir.resolve("00000000000000000000.txnindex");
    TransactionIndex index = new TransactionIndex(() -> file);

    assertThat(index.isEmpty()).isTrue();
    index.flush();
    index.truncateTo(0);
    assertThat(file).doesNotExist();

    index.append(new AbortedTxn(7, 3, 9, 3));
    assertThat(file).exists().hasSize(TransactionIndex.ENTRY_BYTES);
  }

  @Test
  void entriesAreWrittenInKafkasLayoutAndReadBack() throws Exception {
    Path file = dir.resolve("x.txnindex");
    TransactionIndex index = new TransactionIndex(() -> file);
    index.append(new AbortedTxn(7, 3, 9, 3));
    index.append(new AbortedTxn(8, 5, 12, 10));

    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
    assertThat(bytes.remaining()).isEqualTo(68);
    assertThat(bytes.getShort()).isZero();
    assertThat(bytes.getLong()).isEqualTo(7);
    assertThat(bytes.getLong()).isEqualTo(3);
    assertThat(bytes.getLong()).isEqualTo(9);
    assertThat(bytes.getLong()).isEqualTo(3);
    assertThat(new TransactionIndex(() -> file).entries())
        .containsExactly(new AbortedTxn(7, 3, 9, 3), new AbortedTxn(8, 5, 12, 10));
  }

  @Test
  void replayedEntriesAreSkipped() throws Exception {
    TransactionIndex index = new TransactionIndex(() -> dir.resolve("x.txnindex"));
    assertThat(index.append(new AbortedTxn(7, 3, 9, 3))).isTrue();
    assertThat(index.append(new AbortedTxn(7, 3, 9, 3))).isFalse();
    assertThat(index.entries()).hasSize(1);
  }

  @Test
  void truncationDropsAbortsWhoseMarkerWasCut() throws Exception {
    Path file = dir.resolve("x.txnindex");
    TransactionIndex index = new TransactionIndex(() -> file);
    index.append(new AbortedTxn(7, 3, 9, 3));
    index.append(new AbortedTxn(8, 5, 12, 10));

    index.truncateTo(12);
    assertThat(new TransactionIndex(() -> file).entries())
        .containsExactly(new AbortedTxn(7, 3, 9, 3));

    index.truncateTo(9);
    assertThat(file).doesNotExist();
    assertThat(index.entries()).isEmpty();
  }

  @Test
  void collectStopsOnceTheLastStableOffsetReachesTheBound() throws Exception {
    TransactionIndex index = new TransactionIndex(() -> dir.resolve("x.txnindex"));
    index.append(new AbortedTxn(1, 0, 4, 5));
    index.append(new AbortedTxn(2, 2, 8, 9));
    index.append(new AbortedTxn(3, 9, 12, 13));

    List<AbortedTxn> out = new ArrayList<>();
    assertThat(index.collect(5, 9, out)).isTrue();
    assertThat(out).extracting(AbortedTxn::producerId).containsExactly(2L);

    out.clear();
    assertThat(index.collect(0, 100, out)).isFalse();
    assertThat(out).hasSize(3);
  }

  @Test
  void aTornLastEntryIsCutOff() throws Exception {
    Path file = dir.resolve("x.txnindex");
    new TransactionIndex(() -> file).append(new AbortedTxn(7, 3, 9, 3));
    Files.write(file, new byte[5], java.nio.file.StandardOpenOption.APPEND);

    TransactionIndex reopened = new TransactionIndex(() -> file);
    assertThat(reopened.entries()).containsExactly(new AbortedTxn(7, 3, 9, 3));
    assertThat(file).hasSize(TransactionIndex.ENTRY_BYTES);
    reopened.append(new AbortedTxn(8, 10, 12, 10));
    assertThat(new TransactionIndex(() -> file).entries()).hasSize(2);
  }

  @Test
  void anEntryOfAnotherVersionIsCorrupt() throws Exception {
    Path file = dir.resolve("x.txnindex");
    byte[] bytes = new byte[TransactionIndex.ENTRY_BYTES];
    bytes[1] = 9;
    Files.write(file, bytes);

    assertThatThrownBy(() -> new TransactionIndex(() -> file).entries())
        .isInstanceOf(CorruptIndexException.class);
  }
}
