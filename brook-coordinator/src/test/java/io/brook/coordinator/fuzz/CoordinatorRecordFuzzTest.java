package io.brook.coordinator.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorShard;
import io.brook.coordinator.runtime.MalformedRecordException;
import io.brook.coordinator.testing.FakeShardContext;
import io.brook.coordinator.txn.TransactionCoordinatorShard;
import io.brook.coordinator.txn.TxnConfig;
import java.util.concurrent.CompletableFuture;

/**
 * Any bytes in {@code __consumer_offsets} or {@code __transaction_state} make the coordinators'
 * record readers either apply a record or refuse it with {@link MalformedRecordException}: no other
 * exception escapes, nothing allocates what a length prefix claims, and a shard fed any sequence of
 * records still starts ({@code onLoaded}). Inputs are record sequences ({@link FuzzRecords}); the
 * seed corpus holds real records written by Kafka's own generated classes and Brook's writers.
 */
class CoordinatorRecordFuzzTest {
  @FuzzTest(maxDuration = "3m")
  void groupRecords(byte[] input) {
    FakeShardContext context = new FakeShardContext(0, 1_000L);
    GroupCoordinatorShard shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);
    replayAll(shard, input);
    shard.onLoaded();
    context.advance(10 * 60_000L); // fire whatever the loaded state scheduled
  }

  @FuzzTest(maxDuration = "3m")
  void transactionRecords(byte[] input) {
    FakeShardContext context = new FakeShardContext(0, 1_000L);
    TransactionCoordinatorShard shard =
        new TransactionCoordinatorShard(
            context, TxnConfig.defaults(), marker -> new CompletableFuture<>());
    context.attach(shard);
    replayAll(shard, input);
    shard.onLoaded();
    context.advance(10 * 60_000L);
  }

  private static void replayAll(CoordinatorShard shard, byte[] input) {
    long offset = 0;
    for (FuzzRecords.Entry entry : FuzzRecords.decode(input)) {
      try {
        CoordinatorRecord record = CoordinatorRecord.fromKafkaRecord(entry.key(), entry.value());
        shard.replay(record, offset++);
      } catch (MalformedRecordException e) {
        // refused, as loading skips it
      }
    }
  }
}
