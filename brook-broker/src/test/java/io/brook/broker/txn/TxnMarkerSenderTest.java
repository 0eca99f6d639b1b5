package io.brook.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.KafkaApi;
import io.brook.coordinator.TxnResult;
import io.brook.coordinator.service.TxnMarker;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.RequestContext;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.testports.PortAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The marker sender against a real network server whose WriteTxnMarkers answers are scripted. */
@Timeout(60)
class TxnMarkerSenderTest {
  private static final String LISTENER = "PLAINTEXT";
  private static final Uuid TOPIC_ID = Uuid.randomUuid();

  /** Answers NOT_LEADER_OR_FOLLOWER to the first marker for t-0, a fixed error to producer 66. */
  private static final class ScriptedBroker extends KafkaApi {
    final Map<TopicPartition, AtomicInteger> received = new ConcurrentHashMap<>();
    final Map<Long, Byte> transactionVersions = new ConcurrentHashMap<>();

    ScriptedBroker() {
      super(ApiKeys.WRITE_TXN_MARKERS);
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
      WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
      for (var marker : ((WriteTxnMarkersRequestData) message).markers()) {
        transactionVersions.put(marker.producerId(), marker.transactionVersion());
        var result =
            new WriteTxnMarkersResponseData.WritableTxnMarkerResult()
                .setProducerId(marker.producerId());
        for (var topic : marker.topics()) {
          var topicResult =
              new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName(topic.name());
          for (int p : topic.partitionIndexes()) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            int count = received.computeIfAbsent(tp, k -> new AtomicInteger()).incrementAndGet();
            Errors error =
                marker.producerId() == 66L
                    ? Errors.TRANSACTION_COORDINATOR_FENCED
                    : tp.partition() == 0 && count == 1
                        ? Errors.NOT_LEADER_OR_FOLLOWER
                        : Errors.NONE;
            topicResult
                .partitions()
                .add(
                    new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult()
                        .setPartitionIndex(p)
                        .setErrorCode(error.code()));
          }
          result.topics().add(topicResult);
        }
        response.markers().add(result);
      }
      return CompletableFuture.completedFuture(response);
    }
  }

  private ScriptedBroker broker;
  private KafkaNetworkServer server;
  private InterNodeEventLoops loops;
  private InterNodeClient client;
  private TxnMarkerSender sender;

  @BeforeEach
  void setUp() {
    broker = new ScriptedBroker();
    server = startBroker(broker, 0);
    MetadataImage image = image(server.boundPort(LISTENER));
    loops = InterNodeEventLoops.start(1);
    sender = startSender(image);
  }

  private static KafkaNetworkServer startBroker(ScriptedBroker broker, int port) {
    return KafkaNetworkServer.start(
        NetworkConfig.builder().listener(LISTENER, "127.0.0.1", port).numNetworkThreads(1).build(),
        ApiRegistry.of(broker));
  }

  private TxnMarkerSender startSender(MetadataImage image) {
    client =
        new InterNodeClient(
            loops,
            InterNodeClientConfig.builder("brook-txn-markers").requestTimeoutMs(5_000).build());
    return new TxnMarkerSender(() -> image, LISTENER, client, 100, 1_000, Time.SYSTEM);
  }

  /** Broker 1 listening on {@code port}, leader of t-0 and t-1. */
  private static MetadataImage image(int port) {
    List<MetadataRecord> records = new ArrayList<>();
    records.add(
        new RegisterBrokerRecord(
            1,
            Uuid.randomUuid(),
            1,
            List.of(new BrokerEndpoint(LISTENER, "127.0.0.1", port, LISTENER)),
            Optional.empty(),
            false));
    records.add(new TopicRecord("t", TOPIC_ID));
    records.add(new PartitionRecord(TOPIC_ID, 0, List.of(1), List.of(1), 1, 0, 0));
    records.add(new PartitionRecord(TOPIC_ID, 1, List.of(1), List.of(1), 1, 0, 0));
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  @AfterEach
  void tearDown() {
    sender.close();
    server.close();
    loops.close();
  }

  private static TxnMarker marker(long producerId, TopicPartition... partitions) {
    return marker(producerId, (short) 0, partitions);
  }

  private static TxnMarker marker(
      long producerId, short transactionVersion, TopicPartition... partitions) {
    return new TxnMarker(
        producerId, (short) 1, 3, TxnResult.COMMIT, List.of(partitions), transactionVersion);
  }

  @Test
  void theRequestCarriesTheTransactionVersion() throws Exception {
    TopicPartition t1 = new TopicPartition("t", 1);
    sender.send(marker(12L, (short) 2, t1)).get(30, TimeUnit.SECONDS);
    sender.send(marker(13L, (short) 0, t1)).get(30, TimeUnit.SECONDS);

    assertThat(broker.transactionVersions)
        .containsEntry(12L, (byte) 2)
        .containsEntry(13L, (byte) 0);
  }

  @Test
  void retriesARefusedPartitionAndSkipsDeletedTopics() throws Exception {
    TopicPartition t0 = new TopicPartition("t", 0);
    TopicPartition t1 = new TopicPartition("t", 1);
    sender.send(marker(5L, t0, t1, new TopicPartition("deleted", 0))).get(30, TimeUnit.SECONDS);

    assertThat(broker.received.get(t0)).hasValue(2);
    assertThat(broker.received.get(t1)).hasValue(1);
    assertThat(broker.received).doesNotContainKey(new TopicPartition("deleted", 0));
  }

  @Test
  void aFencedCoordinatorStopsSending() {
    CompletableFuture<Void> sent = sender.send(marker(66L, new TopicPartition("t", 1)));

    assertThatThrownBy(() -> sent.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TransactionCoordinatorFencedException.class);
  }

  @Test
  void aBrokerNotListeningYetGetsItsMarkerOnceItListens() throws Exception {
    int port = PortAllocator.shared().allocate();
    sender.close();
    sender = startSender(image(port));
    TopicPartition t1 = new TopicPartition("t", 1);
    CompletableFuture<Void> sent = sender.send(marker(9L, t1));
    // Refused connections are retried (after retry.backoff.ms, growing) without failing the marker.
    await().atMost(Duration.ofSeconds(20)).until(() -> client.status(1).failedAttempts() >= 2);
    assertThat(sent).isNotDone();

    ScriptedBroker late = new ScriptedBroker();
    try (KafkaNetworkServer lateServer = startBroker(late, port)) {
      sent.get(30, TimeUnit.SECONDS);
      assertThat(late.received.get(t1)).hasValue(1);
    }
  }

  @Test
  void aMarkerWithoutPartitionsIsDoneAtOnce() {
    assertThat(sender.send(marker(7L))).isCompleted();
  }
}
