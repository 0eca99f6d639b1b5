package io.brook.server;

import io.brook.broker.metrics.RemoteStorageMetrics;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.replica.fetcher.ReplicaFetcherManager;
import io.brook.controller.state.ConfigValidator;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.server.config.BrokerConfig;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManager;
import io.brook.storage.remote.LocalFsSegmentStore;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.remote.RemoteSegmentStore;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.utils.Time;

/**
 * Starts tiered storage (KIP-405) on a broker with {@code remote.log.storage.system.enable}: the
 * remote segment store named by {@code remote.log.storage.manager.class.name} (the local-filesystem
 * store when unset), and the remote log manager copying the partitions this broker leads.
 */
final class TieredStorage {
  private TieredStorage() {}

  /**
   * A topic's settings as this broker acts on them: without tiered storage on the broker, {@code
   * remote.storage.enable} is ignored, so its logs keep ordinary retention. New topics and config
   * changes are refused on such a cluster ({@link #topicValidator}); this covers a topic created
   * before the broker lost the setting.
   */
  static LogConfig effective(BrokerConfig config, LogConfig topic) {
    if (topic.remoteStorageEnable() && !config.remoteLogStorageSystemEnable()) {
      return topic.toBuilder().remoteStorageEnable(false).build();
    }
    return topic;
  }

  /**
   * The controller's check of a topic's config overrides: Kafka's rules ({@link
   * TopicConfigs#validate}), and, as Kafka, {@code remote.storage.enable=true} refused unless this
   * node has {@code remote.log.storage.system.enable=true} (every node of a cluster that tiers must
   * have it, controllers included).
   */
  static ConfigValidator topicValidator(BrokerConfig config) {
    boolean tiering = config.remoteLogStorageSystemEnable();
    return new ConfigValidator() {
      @Override
      public void validate(Map<String, String> overrides) {
        TopicConfigs.validate(overrides);
        if (!tiering && flag(overrides, TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG)) {
          throw new InvalidConfigurationException(
              "Tiered Storage functionality is disabled in the broker. "
                  + "Topic cannot be configured with remote log storage.");
        }
      }

      /**
       * As Kafka (3.9+): turning {@code remote.storage.enable} off needs {@code
       * remote.log.delete.on.disable=true} with it, which says the remote data is to be deleted.
       */
      @Override
      public void validateChange(Map<String, String> current, Map<String, String> updated) {
        validate(updated);
        if (flag(current, TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG)
            && !flag(updated, TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG)
            && !flag(updated, TopicConfig.REMOTE_LOG_DELETE_ON_DISABLE_CONFIG)) {
          throw new InvalidConfigurationException(
              "It is invalid to disable remote storage without deleting remote data. If you want"
                  + " to keep the remote data and turn to read only, please set"
                  + " `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to"
                  + " disable remote storage and delete all remote data, please set"
                  + " `remote.storage.enable=false,remote.log.delete.on.disable=true`.");
        }
      }
    };
  }

  private static boolean flag(Map<String, String> overrides, String name) {
    return Boolean.parseBoolean(overrides.getOrDefault(name, "false").trim());
  }

  /** Creates the remote log manager and hands it to the log manager; nothing if disabled. */
  static void attach(BrokerConfig config, LogManager logs) throws IOException {
    if (!config.remoteLogStorageSystemEnable()) {
      return;
    }
    RemoteSegmentStore store = store(config);
    logs.attachRemote(new RemoteLogManager(store, config.remoteLogManagerConfig(), Time.SYSTEM));
  }

  /**
   * Starts the periodic tiering work on the partitions {@code replicas} holds: copy and expiry
   * where it leads, local retention where it follows.
   */
  static void start(
      LogManager logs,
      ReplicaManager replicas,
      ReplicaFetcherManager fetchers,
      BrokerMetrics metrics) {
    logs.remote()
        .ifPresent(
            remote -> {
              RemoteStorageMetrics.register(metrics, remote);
              remote.topicIds(tp -> replicas.partition(tp).map(Partition::topicId));
              fetchers.tieredFollowerStart(remote::startFollowerAt);
              remote.start(() -> tieredLogs(replicas));
            });
  }

  private static Collection<RemoteLogManager.TieredLog> tieredLogs(ReplicaManager replicas) {
    List<RemoteLogManager.TieredLog> out = new ArrayList<>();
    for (Partition p : replicas.partitions()) {
      if (!(p.log() instanceof PartitionLog log)) {
        continue;
      }
      // A leader also sees a topic whose tiering was turned off to delete its remote data.
      boolean disabledToDelete =
          !log.config().remoteStorageEnable()
              && log.config().remoteLogDeleteOnDisable()
              && p.isLeader();
      if (!log.config().remoteStorageEnable() && !disabledToDelete) {
        continue;
      }
      if (p.isLeader()) {
        int epoch = p.state().leaderEpoch();
        out.add(
            new RemoteLogManager.TieredLog(
                log, true, epoch, () -> p.isLeader() && p.state().leaderEpoch() == epoch));
      } else if (p.isFollower()) {
        out.add(new RemoteLogManager.TieredLog(log, false, -1, () -> false));
      }
    }
    return out;
  }

  private static RemoteSegmentStore store(BrokerConfig config) throws IOException {
    Map<String, String> settings = config.remoteStorageManagerSettings();
    String className =
        config.remoteStorageManagerClassName().orElse(LocalFsSegmentStore.class.getName());
    try {
      Class<?> type = Class.forName(className);
      if (!RemoteSegmentStore.class.isAssignableFrom(type)) {
        throw new IllegalArgumentException(
            className + " (remote.log.storage.manager.class.name) is not a RemoteSegmentStore");
      }
      return (RemoteSegmentStore) type.getConstructor(Map.class).newInstance(settings);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IllegalArgumentException(
          "cannot create the remote storage plugin " + className + ": " + e.getCause(), e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          "cannot create the remote storage plugin " + className + ": " + e, e);
    }
  }
}
