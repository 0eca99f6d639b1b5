package io.brook.broker.api;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.remote.TieredPartition;
import io.brook.storage.txn.AbortedTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Consumer fetches below a tiered partition's local log start (KIP-405): each such partition's read
 * is handed to the remote log manager's reader threads ({@code remote.log.reader.threads}, at most
 * {@code remote.log.reader.max.pending.tasks} queued), so the partitions of one fetch are read in
 * parallel and never on the event loop; the fetch is answered when every read is done or {@code
 * remote.fetch.max.wait.ms} has passed, a read not done by then leaving its partition empty. As in
 * Kafka 4.2+, every remote partition of a fetch gets its read, within the fetch's byte budget
 * ({@link FetchBudget}); one with no room left is answered empty (no error: the consumer fetches it
 * again next).
 */
final class TieredReads {
  private TieredReads() {}

  /** A remote read under way and the partition answer it fills. */
  record Pending(PartitionData data, CompletableFuture<RemoteLogManager.RemoteRead> read) {}

  /** Where a consumer's partition is read from. */
  enum Source {
    /** The local log. */
    LOCAL,
    /** Remote storage: a read was started. */
    REMOTE,
    /** Remote storage, but the fetch has no room left for it: answered empty. */
    REMOTE_SKIPPED
  }

  /**
   * If {@code fetchOffset} is below the local log start of a tiered partition, starts its remote
   * read (added to {@code remote}) unless the fetch has no room left for it.
   */
  static Source maybeReadRemote(
      LogManager logs,
      ReplicaLog log,
      long fetchOffset,
      FetchBudget budget,
      int limit,
      long maxOffset,
      boolean readCommitted,
      PartitionData data,
      List<Pending> remote) {
    Optional<RemoteLogManager> manager = logs.remote();
    if (manager.isEmpty()
        || !(log instanceof PartitionLog local)
        || !local.config().remoteStorageEnable()
        || fetchOffset >= local.logStartOffset()) {
      return Source.LOCAL;
    }
    reportLogStart(logs, log, data);
    if (!budget.roomForRemote(limit)) {
      return Source.REMOTE_SKIPPED;
    }
    // Records and their aborted transactions complete together: a read that times out leaves
    // the partition empty, never records without the aborts a read_committed consumer needs.
    CompletableFuture<RemoteLogManager.RemoteRead> read =
        manager
            .get()
            .read(local, fetchOffset, limit, maxOffset, budget.minOneBatch(), readCommitted)
            .completeOnTimeout(
                new RemoteLogManager.RemoteRead(MemoryRecords.EMPTY, List.of()),
                manager.get().fetchMaxWaitMs(),
                TimeUnit.MILLISECONDS);
    budget.reserveRemote(limit);
    remote.add(new Pending(data, read));
    return Source.REMOTE;
  }

  /** A tiered partition's log start is the remote one (once its tier is open). */
  static void reportLogStart(LogManager logs, ReplicaLog log, PartitionData data) {
    if (log instanceof PartitionLog local && local.config().remoteStorageEnable()) {
      logs.remote()
          .flatMap(m -> m.openedTier(local))
          .map(TieredPartition::logStartOffset)
          .ifPresent(start -> data.setLogStartOffset(Math.min(start, local.logStartOffset())));
    }
  }

  private static List<FetchResponseData.AbortedTransaction> aborted(List<AbortedTxn> txns) {
    List<FetchResponseData.AbortedTransaction> out = new ArrayList<>(txns.size());
    for (AbortedTxn txn : txns) {
      out.add(
          new FetchResponseData.AbortedTransaction()
              .setProducerId(txn.producerId())
              .setFirstOffset(txn.firstOffset()));
    }
    return out;
  }

  /** Completes when every pending read has filled its partition's records or error. */
  static CompletableFuture<Void> complete(List<Pending> pending) {
    CompletableFuture<?>[] all = new CompletableFuture<?>[pending.size()];
    for (int i = 0; i < pending.size(); i++) {
      Pending p = pending.get(i);
      all[i] =
          p.read()
              .handle(
                  (read, failure) -> {
                    if (failure != null) {
                      p.data().setErrorCode(ApiFailure.of(failure).code());
                    } else {
                      p.data().setRecords(read.records());
                      if (!read.abortedTransactions().isEmpty()) {
                        p.data().setAbortedTransactions(aborted(read.abortedTransactions()));
                      }
                    }
                    return null;
                  });
    }
    return CompletableFuture.allOf(all);
  }
}
