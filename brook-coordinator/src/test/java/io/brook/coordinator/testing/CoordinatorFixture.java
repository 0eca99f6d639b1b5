package io.brook.coordinator.testing;

import io.brook.broker.coordinator.ReplicaCoordinatorLogs;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.replica.ReplicaManager;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.utils.Time;

/** One broker's data plane on real files, for coordinator tests: logs, replicas, metadata. */
public final class CoordinatorFixture implements AutoCloseable {
  public static final int BROKER_ID = 1;

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  public final InMemoryMetadataQuorum quorum;
  public final LogManager logManager;
  public final DelayedOperations delayed = new DelayedOperations();
  public final ReplicaManager replicaManager;
  public final CoordinatorLogs logs;
  public final PartitionEnds partitionEnds;

  public CoordinatorFixture(Path root) throws Exception {
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
    logs = new ReplicaCoordinatorLogs(replicaManager);
    partitionEnds = new ReplicaPartitionEnds(replicaManager);
    quorum.registerBroker(BROKER_ID, 9092);
  }

  public void createTopic(String name, int partitions, Map<String, String> configs) {
    // Validated as the controller would, which this fixture does not run.
    TopicConfigs.validate(configs);
    quorum.createTopic(name, partitions, BROKER_ID, configs);
  }

  public void deleteTopic(String name) {
    quorum.deleteTopic(name);
  }

  @Override
  public void close() throws Exception {
    delayed.close();
    logManager.close();
    quorum.close();
    scheduler.shutdownNow();
  }
}
