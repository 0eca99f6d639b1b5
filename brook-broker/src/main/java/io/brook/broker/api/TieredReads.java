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
 * A consumer fetch below a tiered partition's local log start (KIP-405): the read is handed to the
 * remote log manager's reader threads and its partition answered when it completes, never on the
 * event loop. As in Kafka, one partition per fetch is read remotely; another that also needs remote
 * data is answered empty this time (no error: the consumer fetches it again next).
 */
final class TieredReads {
  private TieredReads() {}

  /** A remote read under way and the partition answer it fills. */
  record Pending(PartitionData data, CompletableFuture<RemoteLogManager.RemoteRead> read) {}

  /**
   * If {@code fetchOffset} is below the local log start of a tiered partition, starts (or, when
   * this fetch already has one, skips) its remote read.
   *
   * @return whether the partition is answered from remote storage
   */
  static boolean maybeReadRemote(
      LogManager logs,
      ReplicaLog log,
      long fetchOffset,
      int limit,
      long maxOffset,
      boolean minOneBatch,
      boolean readCommitted,
      PartitionData data,
      List<Pending> remote) {
    Optional<RemoteLogManager> manager = logs.remote();
    if (manager.isEmpty()
        || !(log instanceof PartitionLog local)
        || !local.config().remoteStorageEnable()
        || fetchOffset >= local.logStartOffset()) {
      return false;
    }
    reportLogStart(logs, log, data);
    if (!remote.isEmpty()) {
      return true;
    }
    // Records and their aborted transactions complete together: a read that times out leaves
    // the partition empty, never records without the aborts a read_committed consumer needs.
    CompletableFuture<RemoteLogManager.RemoteRead> read =
        manager
            .get()
            .read(local, fetchOffset, limit, maxOffset, minOneBatch, readCommitted)
            .completeOnTimeout(
                new RemoteLogManager.RemoteRead(MemoryRecords.EMPTY, List.of()),
                manager.get().fetchMaxWaitMs(),
                TimeUnit.MILLISECONDS);
    remote.add(new Pending(data, read));
    return true;
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
