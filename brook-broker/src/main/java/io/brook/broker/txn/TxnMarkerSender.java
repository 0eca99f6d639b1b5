package io.brook.broker.txn;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.service.TxnMarker;
import io.brook.coordinator.service.TxnMarkerChannel;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.NodeResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest.TxnMarkerEntry;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.ExponentialBackoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends transaction markers (WriteTxnMarkers) to the leaders of the partitions, as Kafka's marker
 * channel manager does: one thread, one request in flight per broker carrying every marker due
 * there, leaders looked up afresh from the metadata image each round, so a marker refused because
 * leadership moved goes to the new leader. A partition whose topic was deleted needs no marker.
 *
 * <p>Requests go through the node's {@link InterNodeClient}; their answers come back on its event
 * loops and are handed to the sender thread, which alone touches the sending state. A broker that
 * failed (connection, timeout) or asked for a retry is left alone for {@code retry.backoff.ms},
 * doubling with each consecutive failure up to {@code retry.backoff.max.ms}.
 */
public final class TxnMarkerSender implements TxnMarkerChannel {
  private static final Logger log = LoggerFactory.getLogger(TxnMarkerSender.class);

  /** Ended transactions waiting for the sender thread; full means the thread is far behind. */
  static final int MAX_QUEUED = 10_000;

  private static final long POLL_MS = 100;

  private final Supplier<MetadataImage> image;
  private final String listener;
  private final Time time;
  private final InterNodeClient client;
  private final ExponentialBackoff retryBackoff;
  private final BlockingQueue<PendingMarker> incoming = new ArrayBlockingQueue<>(MAX_QUEUED);

  /** Answers for the sender thread: at most one per broker (one request in flight per broker). */
  private final ConcurrentLinkedQueue<Runnable> answers = new ConcurrentLinkedQueue<>();

  private final Semaphore wakeup = new Semaphore(0);
  private final Thread thread;
  private volatile boolean running = true;

  // Touched only by the sender thread.
  private final List<PendingMarker> active = new ArrayList<>();
  private final Set<Integer> brokersInFlight = new HashSet<>();

  /** Until when (the clock's monotonic ms) a broker is left alone after a failure. */
  private final Map<Integer, Long> brokerBackoffUntil = new HashMap<>();

  private final Map<Integer, Integer> brokerFailures = new HashMap<>();

  /** One transaction's marker and the partitions still without it. */
  private static final class PendingMarker {
    final TxnMarker marker;
    final CompletableFuture<Void> future = new CompletableFuture<>();
    final Set<TopicPartition> remaining;
    final Set<TopicPartition> inFlight = new HashSet<>();

    PendingMarker(TxnMarker marker) {
      this.marker = marker;
      this.remaining = new HashSet<>(marker.partitions());
    }
  }

  /**
   * @param image the broker's current metadata (leaders and their endpoints)
   * @param listener the inter-broker listener
   * @param client the markers' own client (closed with the sender), whose request timeout bounds
   *     each WriteTxnMarkers
   * @param retryBackoffMs {@code retry.backoff.ms}
   * @param retryBackoffMaxMs {@code retry.backoff.max.ms}
   */
  public TxnMarkerSender(
      Supplier<MetadataImage> image,
      String listener,
      InterNodeClient client,
      long retryBackoffMs,
      long retryBackoffMaxMs,
      Time time) {
    this.image = image;
    this.listener = listener;
    this.time = time;
    this.client = client;
    this.retryBackoff = new ExponentialBackoff(retryBackoffMs, 2, retryBackoffMaxMs, 0.2);
    this.thread = new Thread(this::run, "brook-txn-marker-sender");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  @Override
  public CompletableFuture<Void> send(TxnMarker marker) {
    PendingMarker pending = new PendingMarker(marker);
    if (marker.partitions().isEmpty()) {
      pending.future.complete(null);
    } else if (!running || !incoming.offer(pending)) {
      pending.future.completeExceptionally(
          new CoordinatorNotAvailableException("the transaction marker queue is full or closed"));
    } else {
      wakeup.release();
    }
    return pending.future;
  }

  private void run() {
    while (running) {
      try {
        runOnce();
      } catch (RuntimeException e) {
        log.error("Transaction marker sender round failed", e);
      }
    }
  }

  private void runOnce() {
    active.removeIf(p -> p.future.isDone()); // cancelled by an unloaded shard
    // At most MAX_QUEUED in progress: the rest wait in the bounded queue, whose full state
    // answers new transactions' ends with a retriable error.
    incoming.drainTo(active, Math.max(0, MAX_QUEUED - active.size()));
    long now = time.hiResClockMs();
    Map<Integer, Map<PendingMarker, List<TopicPartition>>> byBroker = route(image.get());
    byBroker.forEach((broker, markers) -> maybeSend(broker, markers, now));
    try {
      wakeup.tryAcquire(POLL_MS, TimeUnit.MILLISECONDS);
      wakeup.drainPermits();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
    for (Runnable answer = answers.poll(); answer != null; answer = answers.poll()) {
      answer.run();
    }
  }

  /** Groups the partitions still to be sent by their current leader; drops deleted ones. */
  private Map<Integer, Map<PendingMarker, List<TopicPartition>>> route(MetadataImage metadata) {
    Map<Integer, Map<PendingMarker, List<TopicPartition>>> byBroker = new HashMap<>();
    for (PendingMarker pending : active) {
      for (TopicPartition tp : new ArrayList<>(pending.remaining)) {
        if (pending.inFlight.contains(tp)) {
          continue;
        }
        Optional<PartitionImage> partition = metadata.partition(tp.topic(), tp.partition());
        if (metadata.topic(tp.topic()).isEmpty()) {
          log.info("Dropping a transaction marker for a deleted topic topicPartition={}", tp);
          pending.remaining.remove(tp);
        } else if (partition.isPresent() && partition.get().hasLeader()) {
          byBroker
              .computeIfAbsent(partition.get().leader(), b -> new HashMap<>())
              .computeIfAbsent(pending, p -> new ArrayList<>())
              .add(tp);
        }
      }
      if (pending.remaining.isEmpty()) {
        pending.future.complete(null);
      }
    }
    active.removeIf(p -> p.future.isDone());
    return byBroker;
  }

  private void maybeSend(int broker, Map<PendingMarker, List<TopicPartition>> markers, long now) {
    if (brokersInFlight.contains(broker)
        || brokerBackoffUntil.getOrDefault(broker, Long.MIN_VALUE) > now) {
      return;
    }
    Optional<Node> node = InterBrokerNodes.of(image.get(), broker, listener);
    if (node.isEmpty()) {
      return; // the broker is gone (its partitions will get another leader)
    }
    List<TxnMarkerEntry> entries = new ArrayList<>();
    markers.forEach(
        (pending, partitions) -> {
          TxnMarker m = pending.marker;
          entries.add(
              new TxnMarkerEntry(
                  m.producerId(),
                  m.producerEpoch(),
                  m.coordinatorEpoch(),
                  m.result() == TxnResult.COMMIT
                      ? TransactionResult.COMMIT
                      : TransactionResult.ABORT,
                  partitions,
                  m.transactionVersion()));
          pending.inFlight.addAll(partitions);
        });
    brokersInFlight.add(broker);
    WriteTxnMarkersRequest.Builder request = new WriteTxnMarkersRequest.Builder(entries);
    client
        .send(node.get(), ApiKeys.WRITE_TXN_MARKERS, v -> request.build(v).data())
        .whenComplete(
            (response, error) -> {
              answers.add(() -> onResponse(broker, markers, response, error));
              wakeup.release();
            });
  }

  private void onResponse(
      int broker,
      Map<PendingMarker, List<TopicPartition>> markers,
      NodeResponse response,
      Throwable error) {
    brokersInFlight.remove(broker);
    markers.forEach((pending, partitions) -> partitions.forEach(pending.inFlight::remove));
    if (error != null) {
      log.warn(
          "Sending transaction markers failed, retrying broker={} error={}",
          broker,
          error.toString());
      backOff(broker);
      return;
    }
    Map<Long, Map<TopicPartition, Errors>> errors =
        new WriteTxnMarkersResponse(response.body(WriteTxnMarkersResponseData.class))
            .errorsByProducerId();
    boolean retry = false;
    for (Map.Entry<PendingMarker, List<TopicPartition>> e : markers.entrySet()) {
      retry |=
          apply(
              e.getKey(),
              e.getValue(),
              errors.getOrDefault(e.getKey().marker.producerId(), Map.of()));
    }
    if (retry) {
      // Leadership is moving or replicas are short: give the metadata time to change.
      backOff(broker);
    } else {
      brokerFailures.remove(broker);
      brokerBackoffUntil.remove(broker);
    }
  }

  private void backOff(int broker) {
    int failures = brokerFailures.merge(broker, 1, Integer::sum);
    brokerBackoffUntil.put(broker, time.hiResClockMs() + retryBackoff.backoff(failures - 1));
  }

  /** Records one marker's answers; whether some partition is to be retried. */
  private boolean apply(
      PendingMarker pending, List<TopicPartition> sent, Map<TopicPartition, Errors> errors) {
    boolean retry = false;
    for (TopicPartition tp : sent) {
      Errors error = errors.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR);
      if (error == Errors.NONE) {
        pending.remaining.remove(tp);
      } else if (MarkerErrors.isFatal(error)) {
        log.error(
            "A transaction marker was refused producerId={} topicPartition={} error={}",
            pending.marker.producerId(),
            tp,
            error);
        pending.future.completeExceptionally(error.exception());
        return false;
      } else {
        retry = true;
        log.debug("Retrying a transaction marker topicPartition={} error={}", tp, error);
      }
    }
    if (pending.remaining.isEmpty()) {
      pending.future.complete(null);
    }
    return retry;
  }

  @Override
  public void close() {
    running = false;
    wakeup.release();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    CoordinatorNotAvailableException closed =
        new CoordinatorNotAvailableException("the transaction marker sender stopped");
    incoming.drainTo(active);
    active.forEach(p -> p.future.completeExceptionally(closed));
    client.close();
  }
}
