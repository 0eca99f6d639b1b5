package io.brook.broker.txn;

import io.brook.broker.time.Scheduler;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.TransactionCoordinatorService;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.NodeResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the transaction coordinators whether partitions are part of producers' ongoing transactions
 * before their leader appends a transaction's first batch there (KIP-890), as Kafka's
 * AddPartitionsToTxnManager does: a broker-form AddPartitionsToTxn (version 4+) with {@code
 * verifyOnly}, or with {@code verifyOnly=false} to add them (a producer using transaction protocol
 * V2 never adds partitions itself).
 *
 * <p>A transactional id's coordinator is the leader of its {@code __transaction_state} partition in
 * the broker's metadata image. When that is this broker the coordinator is called directly;
 * otherwise the transactions waiting for one broker travel in one request over the inter-node
 * client, with one request in flight per broker: those arriving meanwhile are sent together when
 * its answer comes. Two waiting requests of the same transactional id, producer id and epoch share
 * one entry; of different epochs, the older is answered INVALID_PRODUCER_EPOCH (it is fenced).
 * Nothing here blocks: answers complete the returned futures on the client's event loop or the
 * coordinator's thread. At most {@value #MAX_PENDING} transactions wait for answers; beyond that a
 * verification fails at once with COORDINATOR_NOT_AVAILABLE, which the producer retries.
 */
public final class TxnPartitionVerifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TxnPartitionVerifier.class);

  /** Transactions waiting for their coordinator's answer, queued or in flight. */
  static final int MAX_PENDING = 10_000;

  /** The first AddPartitionsToTxn version in the batched broker form. */
  private static final short BROKER_VERSION = 4;

  private final String stateTopic;
  private final ToIntFunction<String> partitionFor;
  private final LocalCoordinator local;
  private final Supplier<MetadataImage> image;
  private final int localBrokerId;
  private final String listener;
  private final InterNodeClient client;
  private final RequestInfo localInfo;
  private final ConcurrentRetry concurrentRetry;

  /** Asks repeated because the coordinator answered CONCURRENT_TRANSACTIONS. */
  private final LongAdder concurrentRetries = new LongAdder();

  /** Adds for a produce that ended with CONCURRENT_TRANSACTIONS, handed back to the producer. */
  private final LongAdder concurrentReturned = new LongAdder();

  private final Object lock = new Object();
  // Guarded by lock.
  private final Map<Integer, Map<String, Waiting>> queued = new HashMap<>();
  private final Set<Integer> inFlight = new HashSet<>();
  private int pending;

  /** One transactional id's partitions, and the requests waiting for their answers. */
  private static final class Waiting {
    final String transactionalId;
    final long producerId;
    final short producerEpoch;
    final boolean verifyOnly;
    final Set<TopicPartition> partitions = new LinkedHashSet<>();
    final List<CompletableFuture<Map<TopicPartition, Errors>>> waiters = new ArrayList<>(1);

    Waiting(String transactionalId, long producerId, short producerEpoch, boolean verifyOnly) {
      this.transactionalId = transactionalId;
      this.producerId = producerId;
      this.producerEpoch = producerEpoch;
      this.verifyOnly = verifyOnly;
    }

    boolean sameAs(long otherProducerId, short otherEpoch, boolean otherVerifyOnly) {
      return producerId == otherProducerId
          && producerEpoch == otherEpoch
          && verifyOnly == otherVerifyOnly;
    }

    void answer(Map<TopicPartition, Errors> errors) {
      waiters.forEach(w -> w.complete(errors));
    }
  }

  /**
   * How long {@link #addForProduce} keeps asking while a coordinator answers
   * CONCURRENT_TRANSACTIONS: at most once every {@code backoffMs} ({@code
   * add.partitions.to.txn.retry.backoff.ms}), at once when the answer itself took that long (the
   * coordinator held the ask while the previous transaction ended), until {@code timeoutMs} passed
   * since the first ask ({@code add.partitions.to.txn.retry.backoff.max.ms}, at most {@code
   * request.timeout.ms}), on {@code scheduler}'s clock {@code nowMs}: monotonic milliseconds
   * ({@code Time.hiResClockMs}), so a wall clock stepped back does not stretch the retries.
   */
  public record ConcurrentRetry(
      Scheduler scheduler, LongSupplier nowMs, long backoffMs, long timeoutMs) {
    /** Never asks again: the first answer is the answer. */
    public static final ConcurrentRetry NONE = new ConcurrentRetry(null, () -> 0L, 1, 0);
  }

  /**
   * @param transactions this broker's transaction coordinator (which transactional id maps to which
   *     partition, and the local calls)
   * @param image the broker's current metadata (coordinators and their endpoints)
   * @param listener the inter-broker listener
   * @param client the verifications' own client (closed with the verifier), whose request timeout
   *     bounds each request
   */
  public TxnPartitionVerifier(
      TransactionCoordinatorService transactions,
      Supplier<MetadataImage> image,
      int localBrokerId,
      String listener,
      InterNodeClient client,
      ConcurrentRetry concurrentRetry) {
    this(
        transactions.stateTopic().name(),
        transactions::partitionFor,
        transactions::addPartitionsToTxn,
        transactions.maxVersion(ApiKeys.ADD_PARTITIONS_TO_TXN),
        image,
        localBrokerId,
        listener,
        client,
        concurrentRetry);
  }

  /** How this broker's own transaction coordinator is asked. */
  public interface LocalCoordinator {
    CompletableFuture<AddPartitionsToTxnResponseData> addPartitionsToTxn(
        RequestInfo info, AddPartitionsToTxnRequestData request);
  }

  /**
   * A verifier over explicit parts: the transaction state topic, which of its partitions holds a
   * transactional id, and this broker's coordinator ({@code localVersion}: the AddPartitionsToTxn
   * version it is asked at).
   */
  public TxnPartitionVerifier(
      String stateTopic,
      ToIntFunction<String> partitionFor,
      LocalCoordinator local,
      short localVersion,
      Supplier<MetadataImage> image,
      int localBrokerId,
      String listener,
      InterNodeClient client,
      ConcurrentRetry concurrentRetry) {
    this.stateTopic = stateTopic;
    this.partitionFor = partitionFor;
    this.local = local;
    this.image = image;
    this.localBrokerId = localBrokerId;
    this.listener = listener;
    this.client = client;
    this.localInfo = new RequestInfo(localVersion, "brook-broker-" + localBrokerId, "", "");
    this.concurrentRetry = concurrentRetry;
  }

  /**
   * Adds {@code partitions} to the producer's transaction for a Produce of transaction protocol V2
   * ({@link #verify} with {@code verifyOnly} false), asking again while the coordinator answers
   * CONCURRENT_TRANSACTIONS for any of them, within {@link ConcurrentRetry}'s bounds, as Kafka's
   * ReplicaManager does. A V2 producer starts its next transaction as soon as EndTxn answers, while
   * the coordinator still writes the previous one's markers; handing CONCURRENT_TRANSACTIONS back
   * would make it retry the whole produce request after its own backoff (100 ms, growing), far
   * longer than the markers take. Completes, never exceptionally, with the last answer.
   */
  public CompletableFuture<Map<TopicPartition, Errors>> addForProduce(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Collection<TopicPartition> partitions) {
    CompletableFuture<Map<TopicPartition, Errors>> answer = new CompletableFuture<>();
    List<TopicPartition> asked = List.copyOf(partitions);
    long deadline = concurrentRetry.nowMs().getAsLong() + concurrentRetry.timeoutMs();
    askAdding(transactionalId, producerId, producerEpoch, asked, deadline, answer);
    answer.thenAccept(
        errors -> {
          if (errors.containsValue(Errors.CONCURRENT_TRANSACTIONS)) {
            concurrentReturned.increment();
          }
        });
    return answer;
  }

  private void askAdding(
      String transactionalId,
      long producerId,
      short producerEpoch,
      List<TopicPartition> partitions,
      long deadline,
      CompletableFuture<Map<TopicPartition, Errors>> answer) {
    long askedAt = concurrentRetry.nowMs().getAsLong();
    verify(transactionalId, producerId, producerEpoch, partitions, false)
        .thenAccept(
            errors -> {
              long now = concurrentRetry.nowMs().getAsLong();
              boolean again =
                  concurrentRetry.scheduler() != null
                      && errors.containsValue(Errors.CONCURRENT_TRANSACTIONS)
                      && now < deadline;
              if (!again) {
                answer.complete(errors);
                return;
              }
              concurrentRetries.increment();
              // Never sooner than the backoff after the last ask began; an answer that took that
              // long was held by the coordinator while the previous transaction ended: at once.
              long delay = Math.max(0, concurrentRetry.backoffMs() - (now - askedAt));
              try {
                concurrentRetry
                    .scheduler()
                    .schedule(
                        "retry-add-partitions-to-txn",
                        () ->
                            askAdding(
                                transactionalId,
                                producerId,
                                producerEpoch,
                                partitions,
                                deadline,
                                answer),
                        delay);
              } catch (RejectedExecutionException shuttingDown) {
                answer.complete(errors);
              }
            });
  }

  /** Asks repeated because a coordinator answered CONCURRENT_TRANSACTIONS, since start. */
  public long concurrentTransactionsRetries() {
    return concurrentRetries.sum();
  }

  /**
   * Produce requests' partition additions that ended with CONCURRENT_TRANSACTIONS handed to the
   * producer (the coordinator still answered it when the retry time was over), since start.
   */
  public long concurrentTransactionsReturned() {
    return concurrentReturned.sum();
  }

  /**
   * Checks (or, with {@code verifyOnly} false, adds) {@code partitions} in the producer's ongoing
   * transaction. Completes, never exceptionally, with the coordinator's error for each partition
   * that is not part of it (empty when all are): Kafka's coordinator errors, NETWORK_EXCEPTION when
   * the coordinator could not be asked, INVALID_PRODUCER_EPOCH when the producer is fenced.
   */
  public CompletableFuture<Map<TopicPartition, Errors>> verify(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Collection<TopicPartition> partitions,
      boolean verifyOnly) {
    Set<TopicPartition> asked = new LinkedHashSet<>(partitions);
    Optional<Integer> coordinator = coordinatorOf(transactionalId);
    if (coordinator.isEmpty()) {
      return CompletableFuture.completedFuture(all(asked, Errors.COORDINATOR_NOT_AVAILABLE));
    }
    if (coordinator.get() == localBrokerId) {
      return askLocally(transactionalId, producerId, producerEpoch, asked, verifyOnly);
    }
    CompletableFuture<Map<TopicPartition, Errors>> answer = new CompletableFuture<>();
    Waiting fenced = null;
    boolean send;
    synchronized (lock) {
      Map<String, Waiting> forBroker =
          queued.computeIfAbsent(coordinator.get(), b -> new LinkedHashMap<>());
      Waiting existing = forBroker.get(transactionalId);
      if (existing != null && existing.sameAs(producerId, producerEpoch, verifyOnly)) {
        existing.partitions.addAll(asked);
        existing.waiters.add(answer);
        return answer;
      }
      if (existing != null && existing.producerEpoch > producerEpoch) {
        return CompletableFuture.completedFuture(all(asked, Errors.INVALID_PRODUCER_EPOCH));
      }
      if (existing == null && pending >= MAX_PENDING) {
        return CompletableFuture.completedFuture(all(asked, Errors.COORDINATOR_NOT_AVAILABLE));
      }
      if (existing == null) {
        pending++;
      }
      fenced = existing;
      Waiting waiting = new Waiting(transactionalId, producerId, producerEpoch, verifyOnly);
      waiting.partitions.addAll(asked);
      waiting.waiters.add(answer);
      forBroker.put(transactionalId, waiting);
      send = inFlight.add(coordinator.get());
    }
    if (fenced != null) {
      fenced.answer(all(fenced.partitions, Errors.INVALID_PRODUCER_EPOCH));
    }
    if (send) {
      sendQueued(coordinator.get());
    }
    return answer;
  }

  private Optional<Integer> coordinatorOf(String transactionalId) {
    return image
        .get()
        .partition(stateTopic, partitionFor.applyAsInt(transactionalId))
        .filter(PartitionImage::hasLeader)
        .map(PartitionImage::leader);
  }

  private CompletableFuture<Map<TopicPartition, Errors>> askLocally(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> partitions,
      boolean verifyOnly) {
    AddPartitionsToTxnTransactionCollection txns = new AddPartitionsToTxnTransactionCollection();
    txns.add(transaction(transactionalId, producerId, producerEpoch, partitions, verifyOnly));
    return local
        .addPartitionsToTxn(localInfo, new AddPartitionsToTxnRequestData().setTransactions(txns))
        .handle(
            (response, failure) -> {
              if (failure != null) {
                log.warn("Verifying a transaction locally failed", failure);
                return all(partitions, Errors.forException(unwrap(failure)));
              }
              return errorsOf(response, transactionalId, partitions);
            });
  }

  /** Sends what waits for {@code broker}; the caller made this broker in flight. */
  private void sendQueued(int broker) {
    Map<String, Waiting> batch;
    synchronized (lock) {
      batch = queued.remove(broker);
      if (batch == null || batch.isEmpty()) {
        inFlight.remove(broker);
        return;
      }
    }
    Optional<Node> node = InterBrokerNodes.of(image.get(), broker, listener);
    if (node.isEmpty()) {
      finish(broker, batch, waiting -> all(waiting.partitions, Errors.COORDINATOR_NOT_AVAILABLE));
      return;
    }
    AddPartitionsToTxnTransactionCollection txns = new AddPartitionsToTxnTransactionCollection();
    batch.forEach(
        (id, w) ->
            txns.add(transaction(id, w.producerId, w.producerEpoch, w.partitions, w.verifyOnly)));
    AddPartitionsToTxnRequestData request =
        new AddPartitionsToTxnRequestData().setTransactions(txns);
    client
        .send(
            node.get(),
            ApiKeys.ADD_PARTITIONS_TO_TXN,
            version -> {
              if (version < BROKER_VERSION) {
                throw new UnsupportedVersionException(
                    "AddPartitionsToTxn version " + version + " cannot verify");
              }
              return request;
            })
        .whenComplete((response, failure) -> onAnswer(broker, batch, response, failure));
  }

  private void onAnswer(
      int broker, Map<String, Waiting> batch, NodeResponse response, Throwable failure) {
    if (failure != null) {
      Throwable cause = unwrap(failure);
      if (cause instanceof UnsupportedVersionException) {
        // As Kafka: a coordinator that cannot verify leaves the append unverified.
        log.warn("Broker {} cannot verify transactions; appending unverified", broker);
        finish(broker, batch, waiting -> Map.of());
      } else {
        log.debug("Verifying transactions with broker {} failed: {}", broker, cause.toString());
        finish(broker, batch, waiting -> all(waiting.partitions, Errors.NETWORK_EXCEPTION));
      }
      return;
    }
    AddPartitionsToTxnResponseData data = response.body(AddPartitionsToTxnResponseData.class);
    if (data.errorCode() != Errors.NONE.code()) {
      // As Kafka: a producer must not see the brokers' authorization failure.
      Errors error =
          data.errorCode() == Errors.CLUSTER_AUTHORIZATION_FAILED.code()
              ? Errors.INVALID_TXN_STATE
              : Errors.forCode(data.errorCode());
      finish(broker, batch, waiting -> all(waiting.partitions, error));
      return;
    }
    finish(broker, batch, waiting -> errorsOf(data, waiting.transactionalId, waiting.partitions));
  }

  /** Answers a sent batch's waiters, then sends what queued for the broker meanwhile. */
  private void finish(
      int broker,
      Map<String, Waiting> batch,
      Function<Waiting, Map<TopicPartition, Errors>> outcome) {
    synchronized (lock) {
      pending -= batch.size();
    }
    batch.values().forEach(waiting -> waiting.answer(outcome.apply(waiting)));
    sendQueued(broker);
  }

  /** The partitions of {@code asked} that the answer for {@code transactionalId} refused. */
  private static Map<TopicPartition, Errors> errorsOf(
      AddPartitionsToTxnResponseData data, String transactionalId, Set<TopicPartition> asked) {
    AddPartitionsToTxnResult result = data.resultsByTransaction().find(transactionalId);
    if (result == null) {
      return all(asked, Errors.UNKNOWN_SERVER_ERROR);
    }
    Map<TopicPartition, Errors> refused = new HashMap<>();
    for (AddPartitionsToTxnTopicResult topic : result.topicResults()) {
      for (AddPartitionsToTxnPartitionResult partition : topic.resultsByPartition()) {
        Errors error = Errors.forCode(partition.partitionErrorCode());
        TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
        if (error != Errors.NONE && asked.contains(tp)) {
          // Producers expect INVALID_PRODUCER_EPOCH from a produce whose epoch is fenced.
          refused.put(tp, error == Errors.PRODUCER_FENCED ? Errors.INVALID_PRODUCER_EPOCH : error);
        }
      }
    }
    return refused;
  }

  private static AddPartitionsToTxnTransaction transaction(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> partitions,
      boolean verifyOnly) {
    AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
    for (TopicPartition tp : partitions) {
      AddPartitionsToTxnTopic topic = topics.find(tp.topic());
      if (topic == null) {
        topic = new AddPartitionsToTxnTopic().setName(tp.topic());
        topics.add(topic);
      }
      topic.partitions().add(tp.partition());
    }
    return new AddPartitionsToTxnTransaction()
        .setTransactionalId(transactionalId)
        .setProducerId(producerId)
        .setProducerEpoch(producerEpoch)
        .setVerifyOnly(verifyOnly)
        .setTopics(topics);
  }

  private static Map<TopicPartition, Errors> all(Set<TopicPartition> partitions, Errors error) {
    Map<TopicPartition, Errors> errors = new HashMap<>();
    partitions.forEach(tp -> errors.put(tp, error));
    return errors;
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** Closes the verifications' client; waiting verifications fail with NETWORK_EXCEPTION. */
  @Override
  public void close() {
    client.close();
  }
}
