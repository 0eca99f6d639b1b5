package io.brook.coordinator.txn;

import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard's periodic clean-ups. Transactions open longer than their timeout are aborted with a
 * bumped epoch, so the producer that left them open is fenced (as Kafka does). Transactional ids
 * idle for {@code transactional.id.expiration.ms} are forgotten: a tombstone is written.
 */
final class TxnTimeouts {
  private static final Logger log = LoggerFactory.getLogger(TxnTimeouts.class);
  private static final String ABORT_TIMER = "txn-abort-timed-out";
  private static final String EXPIRE_TIMER = "txn-remove-expired";

  /** Tombstones written per round, so one round never makes a huge batch. */
  static final int MAX_EXPIRED_PER_ROUND = 1_000;

  private final TxnStore store;
  private final TxnEnder ender;
  private final TxnConfig config;
  private final ShardContext context;

  TxnTimeouts(TxnStore store, TxnEnder ender, TxnConfig config) {
    this.store = store;
    this.ender = ender;
    this.config = config;
    this.context = store.context();
  }

  void start() {
    context.timer().schedule(ABORT_TIMER, config.abortTimedOutIntervalMs(), this::abortRound);
    context.timer().schedule(EXPIRE_TIMER, config.removeExpiredIntervalMs(), this::expireRound);
  }

  private void abortRound() {
    try {
      abortTimedOut();
    } finally {
      context.timer().schedule(ABORT_TIMER, config.abortTimedOutIntervalMs(), this::abortRound);
    }
  }

  private void expireRound() {
    try {
      removeExpired();
    } finally {
      context.timer().schedule(EXPIRE_TIMER, config.removeExpiredIntervalMs(), this::expireRound);
    }
  }

  /** Aborts every open transaction past its timeout. */
  void abortTimedOut() {
    long now = context.nowMs();
    for (TxnMetadata txn : new ArrayList<>(store.all())) {
      if (txn.state() == TransactionState.ONGOING
          && !store.isPending(txn.transactionalId())
          && txn.startTimestampMs() + txn.timeoutMs() < now) {
        log.info(
            "Aborting a timed-out transaction transactionalId={} producerId={} epoch={}",
            txn.transactionalId(),
            txn.producerId(),
            txn.producerEpoch());
        ender
            .fenceAndAbort(txn)
            .exceptionally(
                failure -> {
                  log.warn(
                      "Aborting a timed-out transaction failed transactionalId={} error={}",
                      txn.transactionalId(),
                      TxnStore.unwrap(failure).toString());
                  return null;
                });
      }
    }
  }

  /** Writes tombstones for ids without an open transaction and idle past the expiration. */
  void removeExpired() {
    long now = context.nowMs();
    List<TxnMetadata> expired = new ArrayList<>();
    for (TxnMetadata txn : store.all()) {
      if (expired.size() < MAX_EXPIRED_PER_ROUND
          && txn.state().isIdle()
          && !store.isPending(txn.transactionalId())
          && txn.lastUpdateTimestampMs() + config.idExpirationMs() <= now) {
        expired.add(txn.dead(now));
      }
    }
    if (expired.isEmpty()) {
      return;
    }
    log.info("Removing expired transactional ids count={}", expired.size());
    store
        .persistAll(expired)
        .exceptionally(
            failure -> {
              log.warn(
                  "Removing expired transactional ids failed error={}",
                  TxnStore.unwrap(failure).toString());
              return null;
            });
  }
}
