package io.brook.broker;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;

/** A one-broker data plane on real files, driven by calling handlers directly. */
final class BrokerFixture implements AutoCloseable {
  static final int BROKER_ID = 1;

  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  final InMemoryMetadataQuorum quorum;
  final LogManager logManager;
  final DelayedOperations delayed = new DelayedOperations();
  final ReplicaManager replicaManager;
  final BrokerIdentity identity = new BrokerIdentity(BROKER_ID, "test-cluster");

  BrokerFixture(Path root) throws Exception {
    quorum = new InMemoryMetadataQuorum();
    LogConfig defaults = LogConfig.defaults();
    BiFunction<MetadataImage, String, LogConfig> topicConfig =
        (image, topic) ->
            TopicConfigs.fromOverrides(image.configs(ConfigResource.Type.TOPIC, topic), defaults);
    logManager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root.resolve("data"))),
            topic -> topicConfig.apply(quorum.image(), topic),
            Time.SYSTEM,
            scheduler);
    replicaManager = new ReplicaManager(BROKER_ID, logManager, delayed, topicConfig);
    quorum.addListener(replicaManager::applyMetadata);
    quorum.registerBroker(BROKER_ID, 9092);
  }

  /** Registers another broker, which never connects: a replica that never fetches. */
  void registerBroker(int id) {
    quorum.registerBroker(id, 9092 + id);
  }

  /** A Produce of one batch of {@code values} to one partition, waiting up to 5 s. */
  static ProduceRequestData produceRequest(
      String topic, int partition, short acks, String... values) {
    SimpleRecord[] records = new SimpleRecord[values.length];
    for (int i = 0; i < values.length; i++) {
      records[i] =
          new SimpleRecord(System.currentTimeMillis(), values[i].getBytes(StandardCharsets.UTF_8));
    }
    ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(5_000);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic);
    data.partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(partition)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
    request.topicData().add(data);
    return request;
  }

  /** A consumer's Fetch of one partition by topic name, 1 MiB limits, any leader epoch. */
  static FetchRequestData fetchRequest(
      String topic, int partition, long offset, int maxWaitMs, int minBytes) {
    FetchRequestData request =
        new FetchRequestData()
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(minBytes)
            .setMaxBytes(1 << 20)
            .setReplicaId(-1);
    FetchRequestData.FetchTopic t =
        new FetchRequestData.FetchTopic().setTopic(topic).setTopicId(Uuid.ZERO_UUID);
    t.partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(partition)
                .setFetchOffset(offset)
                .setPartitionMaxBytes(1 << 20)
                .setCurrentLeaderEpoch(-1));
    request.topics().add(t);
    return request;
  }

  /** Creates a topic led by this broker, its only replica. */
  void createTopic(String name, int partitions) {
    quorum.createTopic(name, partitions, BROKER_ID, Map.of());
  }

  /**
   * For the Metadata API: creates a topic of one partition on this broker, as the controller would
   * with its defaults.
   */
  Errors autoCreate(String topic) {
    if (quorum.image().topic(topic).isEmpty()) {
      createTopic(topic, 1);
    }
    return Errors.NONE;
  }

  static RequestContext context(ApiKeys key, short version) {
    return new RequestContext(
        new RequestHeader(key, version, "test", 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "test-connection",
        System.nanoTime());
  }

  /** Calls a handler at its newest version and waits for the answer. */
  static ApiMessage call(ApiHandler handler, ApiMessage request) throws Exception {
    return handler
        .handle(context(handler.apiKey(), handler.maxVersion()), request)
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    delayed.close();
    logManager.close();
    quorum.close();
    scheduler.shutdownNow();
  }
}
