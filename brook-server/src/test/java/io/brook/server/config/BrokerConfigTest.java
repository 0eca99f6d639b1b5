package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicCompression;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManagerConfig;
import io.brook.storage.remote.RemoteLogManagerConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerConfigTest {

  private static final Path QUICKSTART =
      Path.of("src/test/java/io/brook/server/config/kraft-server.properties");

  /** The smallest valid combined-mode configuration. */
  static Map<String, String> combined() {
    return CombinedNode.props();
  }

  private static Map<String, String> combinedWith(String... keyValues) {
    Map<String, String> props = combined();
    for (int i = 0; i < keyValues.length; i += 2) {
      if (keyValues[i + 1] == null) {
        props.remove(keyValues[i]);
      } else {
        props.put(keyValues[i], keyValues[i + 1]);
      }
    }
    return props;
  }

  static BrokerConfig config(Map<String, String> props) {
    return BrokerConfig.from(props, () -> "broker-1.example.com");
  }

  @Test
  void kafkaQuickstartServerPropertiesLoads() throws Exception {
    // When
    BrokerConfig config = BrokerConfig.load(QUICKSTART);

    // Then
    assertThat(config.nodeId()).isEqualTo(1);
    assertThat(config.processRoles())
        .containsExactlyInAnyOrder(ProcessRole.BROKER, ProcessRole.CONTROLLER);
    assertThat(config.listeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "", 9092, SecurityProtocol.PLAINTEXT),
            new Endpoint("CONTROLLER", "", 9093, SecurityProtocol.PLAINTEXT));
    assertThat(config.advertisedListeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "localhost", 9092, SecurityProtocol.PLAINTEXT),
            new Endpoint("CONTROLLER", "localhost", 9093, SecurityProtocol.PLAINTEXT));
    assertThat(config.advertisedBrokerListeners())
        .containsExactly(new Endpoint("PLAINTEXT", "localhost", 9092, SecurityProtocol.PLAINTEXT));
    assertThat(config.interBrokerListenerName()).isEqualTo("PLAINTEXT");
    assertThat(config.controllerListenerNames()).containsExactly("CONTROLLER");
    assertThat(config.controllerQuorumBootstrapServers()).containsExactly("localhost:9093");
    assertThat(config.logDirs()).containsExactly(Path.of("/tmp/kraft-combined-logs"));
    assertThat(config.metadataLogDir()).isEqualTo(Path.of("/tmp/kraft-combined-logs"));
    assertThat(config.numRecoveryThreadsPerDataDir()).isEqualTo(1);
    assertThat(config.offsetsTopicReplicationFactor()).isEqualTo((short) 1);
    assertThat(config.value("transaction.state.log.min.isr")).isEqualTo(1);
    assertThat(config.defaultLogConfig().retentionMs()).isEqualTo(7L * 24 * 3600 * 1000);
    // The share coordinator's settings are Brook's too.
    assertThat(config.unknownKeys()).isEmpty();
    assertThat(config.value("share.coordinator.state.topic.replication.factor"))
        .isEqualTo((short) 1);
    assertThat(config.value("share.coordinator.state.topic.min.isr")).isEqualTo(1);
    assertThat(config.originalString("log.retention.hours")).isEqualTo("168");
  }

  @Test
  void defaultsAreKafkas() {
    // Given: only what KRaft requires
    BrokerConfig config = config(combined());

    // Then: Kafka 4.x defaults (Kafka documentation, broker configs; KIP-1030 for 4.0 changes)
    Map<String, String> kafkaDefaults = new LinkedHashMap<>();
    kafkaDefaults.put("log.dir", "/tmp/kafka-logs");
    kafkaDefaults.put("num.partitions", "1");
    kafkaDefaults.put("default.replication.factor", "1");
    kafkaDefaults.put("min.insync.replicas", "1");
    kafkaDefaults.put("offsets.topic.replication.factor", "3");
    kafkaDefaults.put("offsets.topic.num.partitions", "50");
    kafkaDefaults.put("offsets.retention.minutes", "10080");
    kafkaDefaults.put("offsets.commit.timeout.ms", "5000");
    kafkaDefaults.put("transaction.state.log.replication.factor", "3");
    kafkaDefaults.put("transaction.state.log.min.isr", "2");
    kafkaDefaults.put("transaction.state.log.num.partitions", "50");
    kafkaDefaults.put("transaction.max.timeout.ms", "900000");
    kafkaDefaults.put("transactional.id.expiration.ms", "604800000");
    kafkaDefaults.put("producer.id.expiration.ms", "86400000");
    kafkaDefaults.put("auto.create.topics.enable", "true");
    kafkaDefaults.put("delete.topic.enable", "true");
    kafkaDefaults.put("message.max.bytes", "1048588");
    kafkaDefaults.put("log.segment.bytes", "1073741824");
    kafkaDefaults.put("log.roll.hours", "168");
    kafkaDefaults.put("log.retention.hours", "168");
    kafkaDefaults.put("log.retention.bytes", "-1");
    kafkaDefaults.put("log.retention.check.interval.ms", "300000");
    kafkaDefaults.put("log.cleanup.policy", "delete");
    kafkaDefaults.put("log.cleaner.enable", "true");
    kafkaDefaults.put("log.cleaner.threads", "1");
    kafkaDefaults.put("log.cleaner.backoff.ms", "15000");
    kafkaDefaults.put("log.cleaner.dedupe.buffer.size", "134217728");
    kafkaDefaults.put("log.cleaner.min.cleanable.ratio", "0.5");
    kafkaDefaults.put("log.cleaner.delete.retention.ms", "86400000");
    kafkaDefaults.put("log.index.size.max.bytes", "10485760");
    kafkaDefaults.put("log.index.interval.bytes", "4096");
    kafkaDefaults.put("log.flush.interval.messages", "9223372036854775807");
    kafkaDefaults.put("log.flush.scheduler.interval.ms", "9223372036854775807");
    kafkaDefaults.put("log.flush.offset.checkpoint.interval.ms", "60000");
    kafkaDefaults.put("log.flush.start.offset.checkpoint.interval.ms", "60000");
    kafkaDefaults.put("log.message.timestamp.type", "CreateTime");
    kafkaDefaults.put("log.message.timestamp.after.max.ms", "3600000");
    kafkaDefaults.put("log.preallocate", "false");
    kafkaDefaults.put("log.initial.task.delay.ms", "30000");
    kafkaDefaults.put("num.recovery.threads.per.data.dir", "2");
    kafkaDefaults.put("num.network.threads", "3");
    kafkaDefaults.put("num.io.threads", "8");
    kafkaDefaults.put("background.threads", "10");
    kafkaDefaults.put("socket.request.max.bytes", "104857600");
    kafkaDefaults.put("socket.send.buffer.bytes", "102400");
    kafkaDefaults.put("socket.receive.buffer.bytes", "102400");
    kafkaDefaults.put("queued.max.requests", "500");
    kafkaDefaults.put("max.connections", "2147483647");
    kafkaDefaults.put("max.connections.per.ip", "2147483647");
    kafkaDefaults.put("connections.max.idle.ms", "600000");
    kafkaDefaults.put("replica.lag.time.max.ms", "30000");
    kafkaDefaults.put("replica.fetch.max.bytes", "1048576");
    kafkaDefaults.put("replica.fetch.wait.max.ms", "500");
    kafkaDefaults.put("num.replica.fetchers", "1");
    kafkaDefaults.put("unclean.leader.election.enable", "false");
    kafkaDefaults.put("delete.records.purgatory.purge.interval.requests", "1");
    kafkaDefaults.put("fetch.max.bytes", "57671680");
    kafkaDefaults.put("group.initial.rebalance.delay.ms", "3000");
    kafkaDefaults.put("group.min.session.timeout.ms", "6000");
    kafkaDefaults.put("group.max.session.timeout.ms", "1800000");
    kafkaDefaults.put("group.max.size", "2147483647");
    kafkaDefaults.put("group.consumer.session.timeout.ms", "45000");
    kafkaDefaults.put("group.consumer.heartbeat.interval.ms", "5000");
    kafkaDefaults.put("broker.heartbeat.interval.ms", "2000");
    kafkaDefaults.put("broker.session.timeout.ms", "9000");
    kafkaDefaults.put("compression.type", "producer");
    kafkaDefaults.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL");
    kafkaDefaults.put("remote.log.storage.system.enable", "false");
    kafkaDefaults.put("log.local.retention.ms", "-2");
    kafkaDefaults.put("quota.window.num", "11");
    kafkaDefaults.put("quota.window.size.seconds", "1");

    for (Map.Entry<String, String> e : kafkaDefaults.entrySet()) {
      assertThat(config.valueString(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      assertThat(BrokerConfigDef.defaultValue(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      assertThat(config.isSet(e.getKey())).as(e.getKey()).isFalse();
    }
    assertThat(BrokerConfigDef.defaultValue("listeners")).isEqualTo("PLAINTEXT://:9092");
    assertThat(BrokerConfigDef.defaultValue("log.retention.ms")).isNull();
    assertThat(BrokerConfigDef.defaultValue("log.dirs")).isNull();
    assertThat(config.value("log.retention.ms")).isNull();
    assertThat(config.logDirs()).containsExactly(Path.of("/tmp/kafka-logs"));
    assertThat(config.defaultLogConfig()).isEqualTo(LogConfig.defaults());
    assertThat(config.unknownKeys()).isEmpty();
  }

  @Test
  void typedAccessors() {
    BrokerConfig config =
        config(
            combinedWith(
                "num.partitions", "6",
                "default.replication.factor", "3",
                "auto.create.topics.enable", "false",
                "socket.request.max.bytes", "1048576",
                "max.connections", "1000",
                "max.connections.per.ip", "100",
                "connections.max.idle.ms", "60000",
                "num.network.threads", "5",
                "queued.max.requests", "50",
                "num.recovery.threads.per.data.dir", "4",
                "log.flush.scheduler.interval.ms", "2000",
                "log.flush.offset.checkpoint.interval.ms", "3000",
                "log.flush.start.offset.checkpoint.interval.ms", "4000",
                "producer.id.expiration.ms", "5000",
                "producer.id.expiration.check.interval.ms", "6000",
                "log.dirs", "/data/a, /data/b",
                "broker.rack", "az-1"));

    assertThat(config.numPartitions()).isEqualTo(6);
    assertThat(config.defaultReplicationFactor()).isEqualTo((short) 3);
    assertThat(config.autoCreateTopicsEnable()).isFalse();
    assertThat(config.socketRequestMaxBytes()).isEqualTo(1_048_576);
    assertThat(config.maxConnections()).isEqualTo(1000);
    assertThat(config.maxConnectionsPerIp()).isEqualTo(100);
    assertThat(config.connectionsMaxIdleMs()).isEqualTo(60_000);
    assertThat(config.numNetworkThreads()).isEqualTo(5);
    assertThat(config.queuedMaxRequests()).isEqualTo(50);
    assertThat(config.brokerRack()).contains("az-1");
    assertThat(config.logManagerConfig())
        .isEqualTo(
            new LogManagerConfig(
                List.of(Path.of("/data/a"), Path.of("/data/b")), 4, 2000, 3000, 4000, 5000, 6000));
  }

  @Test
  void devDefaults(@TempDir Path dataDir) {
    // When
    BrokerConfig config = BrokerConfig.devDefaults(dataDir);

    // Then
    assertThat(config.nodeId()).isEqualTo(1);
    assertThat(config.processRoles())
        .containsExactlyInAnyOrder(ProcessRole.BROKER, ProcessRole.CONTROLLER);
    assertThat(config.listeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "localhost", 9092, SecurityProtocol.PLAINTEXT),
            new Endpoint("CONTROLLER", "localhost", 9093, SecurityProtocol.PLAINTEXT));
    assertThat(config.advertisedBrokerListeners())
        .containsExactly(new Endpoint("PLAINTEXT", "localhost", 9092, SecurityProtocol.PLAINTEXT));
    assertThat(config.controllerQuorumVoters()).containsExactly("1@localhost:9093");
    assertThat(config.logDirs()).containsExactly(dataDir.toAbsolutePath());
    assertThat(config.offsetsTopicReplicationFactor()).isEqualTo((short) 1);
    assertThat(config.value("transaction.state.log.replication.factor")).isEqualTo((short) 1);
    assertThat(config.value("transaction.state.log.min.isr")).isEqualTo(1);
    assertThat(config.groupInitialRebalanceDelayMs()).isZero();
    assertThat(config.unknownKeys()).isEmpty();
  }

  @Test
  void devDefaultsOnAnotherPortAdvertisingAHost(@TempDir Path dataDir) {
    // When
    BrokerConfig config = BrokerConfig.devDefaults(dataDir, 19092, "node.example.com");

    // Then: clients on every interface, the controller on the next port.
    assertThat(config.listeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "0.0.0.0", 19092, SecurityProtocol.PLAINTEXT),
            new Endpoint("CONTROLLER", "localhost", 19093, SecurityProtocol.PLAINTEXT));
    assertThat(config.advertisedBrokerListeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "node.example.com", 19092, SecurityProtocol.PLAINTEXT));
    assertThat(config.controllerQuorumVoters()).containsExactly("1@localhost:19093");
    assertThatThrownBy(() -> BrokerConfig.devDefaults(dataDir, 65535, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "num.partitions | -1 | at least 1",
        "node.id | abc | Not a number",
        "process.roles | worker | broker, controller",
        "listeners | FOO://:9092,CONTROLLER://:9093 | no security protocol is defined for listener FOO",
        "listeners | PLAINTEXT://:9092,PLAINTEXT://:9094,CONTROLLER://:9093 | different name",
        "listeners | PLAINTEXT://:9092,CONTROLLER://:9092 | different port",
        "listeners | PLAINTEXT:9092,CONTROLLER://:9093 | LISTENER_NAME://host:port",
        "listeners | PLAINTEXT://:99999,CONTROLLER://:9093 | LISTENER_NAME://host:port",
        "listener.security.protocol.map | CONTROLLER:PLAINTEXT,PLAINTEXT:PLAIN | unknown security protocol PLAIN",
        "log.segment.bytes | 1000 | at least 1048576",
        "message.max.bytes | -5 | at least 0",
        "compression.type | brotli | producer",
        "log.cleanup.policy | purge | compact, delete",
        "log.message.timestamp.type | Now | LogAppendTime",
        "log.cleaner.min.cleanable.ratio | 2 | no more than 1",
        "controller.quorum.voters | localhost:9093 | id@host:port",
        "controller.quorum.bootstrap.servers | localhost | host:port",
        "offsets.topic.replication.factor | 0 | at least 1",
        "default.replication.factor | 40000 | no more than 32767",
        "auto.create.topics.enable | maybe | true or false",
        "group.coordinator.rebalance.protocols | classic,eager | consumer",
        "log.roll.ms | 0 | at least 1",
        "log.retention.minutes | 0 | not 0",
        "socket.request.max.bytes | 0 | at least 1",
        "brook.log.max.open.files | 0 | at least 1",
        "brook.max.inflated.bytes.factor | 0 | at least 1",
        "brook.admin.listener | ftp://localhost:9644 | http://host:port",
        "brook.admin.listener | http://localhost | http://host:port",
        "brook.admin.listener | http://localhost:9644/metrics | without a path",
      })
  void invalidValuesNameTheKeyAndWhatIsAllowed(String key, String value, String allowed) {
    assertThatThrownBy(() -> config(combinedWith(key, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key)
        .hasMessageContaining(allowed);
  }

  @Test
  void theAdminListenerIsOffUnlessSet() {
    assertThat(config(combinedWith()).adminListener()).isNull();
    java.net.URI admin =
        config(combinedWith("brook.admin.listener", "http://127.0.0.1:9644")).adminListener();
    assertThat(admin.getHost()).isEqualTo("127.0.0.1");
    assertThat(admin.getPort()).isEqualTo(9644);
  }

  @Test
  void theOpenFileBoundReachesTheLogManager() {
    assertThat(config(combinedWith()).logManagerConfig().maxOpenFiles()).isEqualTo(8192);
    assertThat(
            config(combinedWith("brook.log.max.open.files", "1234"))
                .logManagerConfig()
                .maxOpenFiles())
        .isEqualTo(1234);
  }

  @Test
  void theInflationFactorReachesEveryTopicsRecordLimits() {
    assertThat(config(combinedWith()).defaultLogConfig().recordLimits().maxBatchInflatedBytes())
        .isEqualTo(32L * 1_048_588);
    assertThat(
            config(
                    combinedWith(
                        "brook.max.inflated.bytes.factor", "4", "message.max.bytes", "1000"))
                .defaultLogConfig()
                .recordLimits()
                .maxBatchInflatedBytes())
        .isEqualTo(4000);
  }

  @Test
  void processRolesAndNodeIdAreRequired() {
    assertThatThrownBy(() -> config(combinedWith("process.roles", null)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("process.roles");
    assertThatThrownBy(() -> config(combinedWith("node.id", null)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("node.id");
    assertThatThrownBy(() -> config(combinedWith("node.id", "-3"))).hasMessageContaining("node.id");
  }

  @Test
  void brokerIdIsASynonymOfNodeId() {
    assertThat(config(combinedWith("node.id", null, "broker.id", "1")).nodeId()).isEqualTo(1);
    assertThatThrownBy(() -> config(combinedWith("broker.id", "2")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("node.id")
        .hasMessageContaining("broker.id");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // the combination | key named | broken setting=value pairs
        "no controller listener names | controller.listener.names | controller.listener.names=",
        "controller listener not bound | controller.listener.names | listeners=PLAINTEXT://:9092",
        "no quorum | controller.quorum.voters | controller.quorum.voters=",
        "controller not a voter | node.id | controller.quorum.voters=2@localhost:9093",
        "0.0.0.0 advertised | advertised.listeners |"
            + " advertised.listeners=PLAINTEXT://0.0.0.0:9092",
        "0.0.0.0 listened and not overridden | listeners |"
            + " listeners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://:9093",
        "inter-broker listener not advertised | inter.broker.listener.name |"
            + " inter.broker.listener.name=CONTROLLER",
        "inter-broker listener unmapped | inter.broker.listener.name |"
            + " inter.broker.listener.name=INTERNAL",
        "fetch wait above lag time | replica.fetch.wait.max.ms |"
            + " replica.fetch.wait.max.ms=40000;replica.socket.timeout.ms=50000",
        "fetch wait above socket timeout | replica.socket.timeout.ms |"
            + " replica.socket.timeout.ms=100",
        "heartbeat not below session | group.consumer.heartbeat.interval.ms |"
            + " group.consumer.heartbeat.interval.ms=15000;group.consumer.session.timeout.ms=15000;"
            + "group.consumer.min.session.timeout.ms=15000",
        "queue smaller than one request | queued.max.request.bytes | queued.max.request.bytes=10",
        "queue of no bytes | queued.max.request.bytes | queued.max.request.bytes=0",
        "cleaner buffer too small | log.cleaner.dedupe.buffer.size |"
            + " log.cleaner.dedupe.buffer.size=1048576",
        "remote chunk larger than the chunk cache | brook.remote.log.chunk.size.bytes |"
            + " brook.remote.log.chunk.cache.total.size.bytes=1000;"
            + "brook.remote.log.chunk.size.bytes=1001",
        "min compaction lag above max | log.cleaner.min.compaction.lag.ms |"
            + " log.cleaner.min.compaction.lag.ms=5000;log.cleaner.max.compaction.lag.ms=1000",
      })
  void crossConfigRules(String rule, String key, String settings) {
    Map<String, String> props = combined();
    for (String pair : settings.split(";")) {
      String[] kv = pair.split("=", 2);
      props.put(kv[0].trim(), kv[1].trim());
    }
    assertThatThrownBy(() -> config(props))
        .as(rule)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void bothInterBrokerSettingsAreRejected() {
    assertThatThrownBy(
            () ->
                config(
                    combinedWith(
                        "inter.broker.listener.name", "PLAINTEXT",
                        "security.inter.broker.protocol", "PLAINTEXT")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("inter.broker.listener.name")
        .hasMessageContaining("security.inter.broker.protocol");
  }

  @Test
  void roleSpecificListenerRules() {
    // A broker-only node talks to the controllers but does not listen as one.
    Map<String, String> broker =
        Map.of(
            "process.roles", "broker",
            "node.id", "2",
            "listeners", "PLAINTEXT://:9092",
            "controller.listener.names", "CONTROLLER",
            "controller.quorum.voters", "1@localhost:9093");
    assertThat(config(broker).isController()).isFalse();
    Map<String, String> brokerBindingController = new LinkedHashMap<>(broker);
    brokerBindingController.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093");
    assertThatThrownBy(() -> config(brokerBindingController)).hasMessageContaining("listeners");
    Map<String, String> brokerAsVoter = new LinkedHashMap<>(broker);
    brokerAsVoter.put("controller.quorum.voters", "2@localhost:9093");
    assertThatThrownBy(() -> config(brokerAsVoter)).hasMessageContaining("node.id");

    // A controller-only node listens only on controller listeners.
    Map<String, String> controller =
        Map.of(
            "process.roles", "controller",
            "node.id", "1",
            "listeners", "CONTROLLER://:9093",
            "controller.listener.names", "CONTROLLER",
            "controller.quorum.voters", "1@localhost:9093");
    assertThat(config(controller).isBroker()).isFalse();
    Map<String, String> controllerWithClients = new LinkedHashMap<>(controller);
    controllerWithClients.put("listeners", "CONTROLLER://:9093,PLAINTEXT://:9092");
    assertThatThrownBy(() -> config(controllerWithClients)).hasMessageContaining("listeners");
  }

  @Test
  void unknownKeysAreCollectedNotFatal() {
    // Given
    Properties props = new Properties();
    props.putAll(combined());
    props.put("metric.reporters", "com.example.Reporter");
    props.put("zookeeper.connect", "localhost:2181");
    props.put("log.retention.horus", "1");

    // When
    BrokerConfig config = BrokerConfig.from(props);

    // Then
    assertThat(config.unknownKeys())
        .containsExactly("log.retention.horus", "metric.reporters", "zookeeper.connect");
    assertThat(config.originals()).containsEntry("zookeeper.connect", "localhost:2181");
    assertThat(config.defaultLogConfig().retentionMs()).isEqualTo(LogConfig.DEFAULT_RETENTION_MS);
  }

  @Test
  void keysPassedToTheTieredStoragePluginsAreNotUnknown() {
    // Given: plugin configs under Kafka's default prefixes
    Properties props = new Properties();
    props.putAll(combined());
    props.put("rsm.config.dir", "/var/brook-remote");
    props.put("rsm.config.s3.bucket", "logs");
    props.put("rlmm.config.remote.log.metadata.topic.replication.factor", "3");
    props.put("rsm.confg.dir", "/typo");

    // When
    BrokerConfig config = BrokerConfig.from(props);

    // Then: only the misspelt prefix is unknown; the store gets its keys without the prefix
    assertThat(config.unknownKeys()).containsExactly("rsm.confg.dir");
    assertThat(config.remoteStorageManagerSettings())
        .containsEntry("dir", "/var/brook-remote")
        .containsEntry("s3.bucket", "logs");
  }

  @Test
  void theRemoteChunkCacheSitsNextToTheFirstLogDirAndZeroTurnsItOff() {
    RemoteLogManagerConfig defaults =
        config(combinedWith("log.dirs", "/data/a,/data/b")).remoteLogManagerConfig();
    assertThat(defaults.chunkCacheDir()).isEqualTo(Path.of("/data/a-remote-chunk-cache"));
    assertThat(defaults.chunkCacheBytes()).isEqualTo(1L << 30);
    assertThat(defaults.chunkBytes()).isEqualTo(4 << 20);
    assertThat(defaults.chunkCacheEnabled()).isTrue();

    // A chunk size above the total is fine when the cache is off.
    RemoteLogManagerConfig off =
        config(
                combinedWith(
                    "log.dirs", "/data/a",
                    "brook.remote.log.chunk.cache.total.size.bytes", "0",
                    "brook.remote.log.chunk.size.bytes", "8388608"))
            .remoteLogManagerConfig();
    assertThat(off.chunkCacheEnabled()).isFalse();
    assertThatThrownBy(
            () -> config(combinedWith("brook.remote.log.chunk.cache.total.size.bytes", "-1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("brook.remote.log.chunk.cache.total.size.bytes");
    assertThatThrownBy(() -> config(combinedWith("brook.remote.log.chunk.size.bytes", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("brook.remote.log.chunk.size.bytes");
  }

  @Test
  void configuredPluginPrefixesReplaceKafkasDefaults() {
    Properties props = new Properties();
    props.putAll(combined());
    props.put("remote.log.storage.manager.impl.prefix", "store.");
    props.put("remote.log.metadata.manager.impl.prefix", "meta.");
    props.put("store.s3.bucket", "logs");
    props.put("meta.anything", "x");
    props.put("rsm.config.s3.bucket", "other");

    BrokerConfig config = BrokerConfig.from(props);

    assertThat(config.unknownKeys()).containsExactly("rsm.config.s3.bucket");
    assertThat(config.remoteStorageManagerSettings()).containsEntry("s3.bucket", "logs");
  }

  @Test
  void retentionMsBeatsMinutesBeatsHours() {
    assertThat(retentionMs("log.retention.hours", "2")).isEqualTo(2 * 3_600_000L);
    assertThat(retentionMs("log.retention.hours", "2", "log.retention.minutes", "3"))
        .isEqualTo(3 * 60_000L);
    assertThat(
            retentionMs(
                "log.retention.hours", "2", "log.retention.minutes", "3", "log.retention.ms", "4"))
        .isEqualTo(4L);
    assertThat(retentionMs("log.retention.ms", "-1")).isEqualTo(-1L);
    // Kafka turns any negative broker retention into "unlimited".
    assertThat(retentionMs("log.retention.hours", "-5")).isEqualTo(-1L);
    assertThat(retentionMs("log.retention.ms", "-100")).isEqualTo(-1L);
  }

  private static long retentionMs(String... keyValues) {
    return config(combinedWith(keyValues)).defaultLogConfig().retentionMs();
  }

  @Test
  void defaultLogConfigReflectsBrokerLogSettings() {
    // Given
    BrokerConfig config =
        config(
            combinedWith(
                "log.segment.bytes", "2097152",
                "log.roll.hours", "1",
                "log.roll.jitter.hours", "2",
                "log.index.size.max.bytes", "4096",
                "log.index.interval.bytes", "100",
                "message.max.bytes", "2000000",
                "log.flush.interval.messages", "10",
                "log.flush.scheduler.interval.ms", "700",
                "log.retention.bytes", "123456789",
                "log.cleanup.policy", "compact",
                "log.cleaner.delete.retention.ms", "1000",
                "log.cleaner.min.cleanable.ratio", "0.3",
                "log.segment.delete.delay.ms", "5",
                "log.preallocate", "true",
                "log.message.timestamp.type", "LogAppendTime",
                "min.insync.replicas", "2",
                "unclean.leader.election.enable", "true",
                "compression.type", "lz4",
                "compression.lz4.level", "12",
                "log.local.retention.ms", "1000"));

    // When
    LogConfig defaults = config.defaultLogConfig();

    // Then
    assertThat(defaults.segmentBytes()).isEqualTo(2 * 1024 * 1024);
    assertThat(defaults.segmentMs()).isEqualTo(3_600_000);
    assertThat(defaults.segmentJitterMs()).isEqualTo(2 * 3_600_000);
    assertThat(defaults.segmentIndexBytes()).isEqualTo(4096);
    assertThat(defaults.indexIntervalBytes()).isEqualTo(100);
    assertThat(defaults.maxMessageBytes()).isEqualTo(2_000_000);
    assertThat(defaults.flushMessages()).isEqualTo(10);
    assertThat(defaults.flushMs()).as("falls back to the scheduler interval").isEqualTo(700);
    assertThat(defaults.retentionBytes()).isEqualTo(123_456_789);
    assertThat(defaults.compacted()).isTrue();
    assertThat(defaults.cleanupPolicy()).containsExactly("compact");
    assertThat(defaults.deleteRetentionMs()).isEqualTo(1000);
    assertThat(defaults.minCleanableDirtyRatio()).isEqualTo(0.3);
    assertThat(defaults.fileDeleteDelayMs()).isEqualTo(5);
    assertThat(defaults.preallocate()).isTrue();
    assertThat(defaults.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(defaults.minInSyncReplicas()).isEqualTo(2);
    assertThat(defaults.uncleanLeaderElectionEnable()).isTrue();
    assertThat(defaults.compressionType()).isEqualTo(TopicCompression.LZ4);
    assertThat(defaults.compressionLz4Level()).isEqualTo(12);
    assertThat(defaults.localRetentionMs()).isEqualTo(1000);

    // And a topic override still wins over the broker default.
    assertThat(
            TopicConfigs.fromOverrides(Map.of("segment.bytes", "4194304"), defaults).segmentBytes())
        .isEqualTo(4 * 1024 * 1024);
  }

  @Test
  void rollMsBeatsRollHoursAndFlushIntervalBeatsScheduler() {
    LogConfig defaults =
        config(
                combinedWith(
                    "log.roll.hours", "5",
                    "log.roll.ms", "60000",
                    "log.flush.scheduler.interval.ms", "700",
                    "log.flush.interval.ms", "800"))
            .defaultLogConfig();

    assertThat(defaults.segmentMs()).isEqualTo(60_000);
    assertThat(defaults.flushMs()).isEqualTo(800);
  }

  @Test
  void emptyAdvertisedHostsBecomeTheCanonicalHostName() {
    BrokerConfig config =
        config(combinedWith("advertised.listeners", "PLAINTEXT://:19092,CONTROLLER://:19093"));

    assertThat(config.listeners().get(0).host()).isEmpty();
    assertThat(config.advertisedListeners())
        .extracting(Endpoint::connectionString)
        .containsExactly(
            "PLAINTEXT://broker-1.example.com:19092", "CONTROLLER://broker-1.example.com:19093");
    // Without advertised.listeners, the listeners are advertised, host resolved the same way.
    assertThat(config(combined()).advertisedListeners().get(0).host())
        .isEqualTo("broker-1.example.com");
  }

  @Test
  void theHostNameIsLookedUpOnlyWhenAdvertisedListenersAreAskedFor() {
    AtomicInteger lookups = new AtomicInteger();
    BrokerConfig config =
        BrokerConfig.from(
            combined(),
            () -> {
              lookups.incrementAndGet();
              return "broker-1.example.com";
            });

    assertThat(lookups).hasValue(0);
    config.advertisedListeners();
    config.advertisedBrokerListeners();
    assertThat(lookups).hasValue(1);
  }

  @Test
  void knownKeysNeedAValue() {
    Map<String, String> props = combined();
    props.put("delete.topic.enable", null);

    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("delete.topic.enable");
  }

  @Test
  void listenerNamesAndHostsParseLikeKafka() {
    BrokerConfig config =
        config(
            combinedWith(
                "listeners",
                "plaintext://[::1]:9092,CONTROLLER://127.0.0.1:9093,EXTERNAL://10.0.0.1:9092",
                "listener.security.protocol.map",
                "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,external:plaintext",
                "advertised.listeners",
                "PLAINTEXT://broker:9092,EXTERNAL://broker.example.com:443"));

    assertThat(config.listeners())
        .containsExactly(
            new Endpoint("PLAINTEXT", "::1", 9092, SecurityProtocol.PLAINTEXT),
            new Endpoint("CONTROLLER", "127.0.0.1", 9093, SecurityProtocol.PLAINTEXT),
            new Endpoint("EXTERNAL", "10.0.0.1", 9092, SecurityProtocol.PLAINTEXT));
    assertThat(config.listeners().get(0).connectionString()).isEqualTo("PLAINTEXT://[::1]:9092");
    assertThat(config.securityProtocolMap())
        .containsEntry("EXTERNAL", SecurityProtocol.PLAINTEXT)
        .hasSize(3);
    assertThat(
            Listeners.parseSecurityProtocolMap(
                "listener.security.protocol.map", "CONTROLLER:PLAINTEXT,external:sasl_ssl"))
        .containsEntry("EXTERNAL", SecurityProtocol.SASL_SSL);
  }

  @Test
  void controllerListenersArePlaintextByDefaultInKraft() {
    // Given: no listener.security.protocol.map, a listener named CONTROLLER
    BrokerConfig config = config(combined());

    // Then
    assertThat(config.securityProtocolMap())
        .containsEntry("CONTROLLER", SecurityProtocol.PLAINTEXT);
    // ...but not when the map is configured explicitly
    assertThatThrownBy(
            () ->
                config(
                    combinedWith("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("CONTROLLER");
  }

  @Test
  void describeAccess() {
    BrokerConfig config = config(combinedWith("log.cleanup.policy", "compact, delete"));

    assertThat(config.value("log.cleanup.policy")).isEqualTo(List.of("compact", "delete"));
    assertThat(config.valueString("log.cleanup.policy")).isEqualTo("compact,delete");
    assertThat(config.originalString("log.cleanup.policy")).isEqualTo("compact, delete");
    assertThat(config.originalString("num.partitions")).isNull();
    assertThat(config.valueString("broker.rack")).isNull();
    assertThatThrownBy(() -> config.value("no.such.config"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void everyTopicSynonymIsABrokerConfigOfTheSameKind() {
    for (String topic : TopicConfigs.names()) {
      for (String broker : TopicConfigs.brokerSynonyms(topic)) {
        assertThat(BrokerConfigDef.isKnown(broker)).as(topic + " <- " + broker).isTrue();
      }
    }
  }

  @Test
  void definitionsAreDocumentedAndGrouped() {
    Set<String> names = BrokerConfigDef.names();
    assertThat(names).hasSizeGreaterThan(150);
    for (String name : names) {
      assertThat(BrokerConfigDef.documentation(name)).as(name).isNotBlank();
      assertThat(BrokerConfigDef.namesIn(BrokerConfigDef.area(name))).contains(name);
    }
    assertThat(BrokerConfigDef.usedByBrook("log.dirs")).isTrue();
    assertThat(BrokerConfigDef.usedByBrook("log.segment.bytes")).isTrue();
    assertThat(BrokerConfigDef.usedByBrook("log.retention.hours")).isTrue();
    assertThat(BrokerConfigDef.usedByBrook("remote.log.storage.system.enable")).isTrue();
    assertThat(BrokerConfigDef.usedByBrook("remote.log.manager.copy.max.bytes.per.second"))
        .isFalse();
    assertThat(BrokerConfigDef.area("listeners")).isEqualTo(ConfigArea.NODE);
    assertThat(BrokerConfigDef.area("log.cleaner.threads")).isEqualTo(ConfigArea.RETENTION);
  }
}
