package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicConfigsTest {

  /**
   * Kafka 4.x topic config defaults, written out by hand from the Kafka documentation (topic-level
   * configs) and KIP-1030 (Kafka 4.0 changed message.timestamp.after.max.ms to one hour).
   */
  private static final Map<String, String> KAFKA_4_DEFAULTS =
      Map.ofEntries(
          Map.entry("cleanup.policy", "delete"),
          Map.entry("compression.gzip.level", "-1"),
          Map.entry("compression.lz4.level", "9"),
          Map.entry("compression.type", "producer"),
          Map.entry("compression.zstd.level", "3"),
          Map.entry("delete.retention.ms", "86400000"),
          Map.entry("file.delete.delay.ms", "60000"),
          Map.entry("flush.messages", "9223372036854775807"),
          Map.entry("flush.ms", "9223372036854775807"),
          Map.entry("follower.replication.throttled.replicas", ""),
          Map.entry("index.interval.bytes", "4096"),
          Map.entry("leader.replication.throttled.replicas", ""),
          Map.entry("local.retention.bytes", "-2"),
          Map.entry("local.retention.ms", "-2"),
          Map.entry("max.compaction.lag.ms", "9223372036854775807"),
          Map.entry("max.message.bytes", "1048588"),
          Map.entry("message.timestamp.after.max.ms", "3600000"),
          Map.entry("message.timestamp.before.max.ms", "9223372036854775807"),
          Map.entry("message.timestamp.type", "CreateTime"),
          Map.entry("min.cleanable.dirty.ratio", "0.5"),
          Map.entry("min.compaction.lag.ms", "0"),
          Map.entry("min.insync.replicas", "1"),
          Map.entry("preallocate", "false"),
          Map.entry("remote.copy.lag.bytes", "0"),
          Map.entry("remote.copy.lag.ms", "0"),
          Map.entry("remote.log.copy.disable", "false"),
          Map.entry("remote.log.delete.on.disable", "false"),
          Map.entry("remote.storage.enable", "false"),
          Map.entry("retention.bytes", "-1"),
          Map.entry("retention.ms", "604800000"),
          Map.entry("segment.bytes", "1073741824"),
          Map.entry("segment.index.bytes", "10485760"),
          Map.entry("segment.jitter.ms", "0"),
          // Brook's own addition, off by default so that the defaults behave as Kafka's.
          Map.entry("retention.deadline.enable", "false"),
          Map.entry("segment.ms", "604800000"),
          Map.entry("unclean.leader.election.enable", "false"));

  @Test
  void defaultsAreKafkas() {
    // When
    Map<String, String> described = TopicConfigs.toStrings(LogConfig.defaults());

    // Then
    assertThat(described).isEqualTo(new TreeMap<>(KAFKA_4_DEFAULTS));
    assertThat(TopicConfigs.names()).isEqualTo(new TreeMap<>(KAFKA_4_DEFAULTS).keySet());
  }

  @Test
  void configDefDefaultsAgreeWithLogConfigDefaults() {
    Map<String, String> described = TopicConfigs.toStrings(LogConfig.defaults());
    ConfigDef def = TopicConfigs.configDef();

    for (String name : TopicConfigs.names()) {
      assertThat(TopicConfigs.defaultValue(name)).as(name).isEqualTo(described.get(name));
      ConfigDef.ConfigKey key = def.configKeys().get(name);
      assertThat(ConfigDef.convertToString(def.defaultValues().get(name), key.type))
          .as(name)
          .isEqualTo(described.get(name));
    }
  }

  @Test
  void everyLogConfigComponentIsATopicConfig() {
    // compacted mirrors cleanup.policy, and maxInflatedBytesFactor is a broker-wide setting
    // (brook.max.inflated.bytes.factor) carried in every topic's config: neither is a topic config.
    assertThat(TopicConfigs.names()).hasSize(LogConfig.class.getRecordComponents().length - 2);
  }

  @Test
  void overridesParse() {
    // Given
    Map<String, String> overrides = new HashMap<>();
    overrides.put("retention.ms", "3600000");
    overrides.put("retention.bytes", "1073741824");
    overrides.put("cleanup.policy", "compact, delete");
    overrides.put("segment.bytes", "2097152");
    overrides.put("min.cleanable.dirty.ratio", "0.25");
    overrides.put("compression.type", "zstd");
    overrides.put("compression.zstd.level", "-5");
    overrides.put("message.timestamp.type", "LogAppendTime");
    overrides.put("min.insync.replicas", "2");
    overrides.put("unclean.leader.election.enable", "true");
    overrides.put("preallocate", "TRUE");
    overrides.put("leader.replication.throttled.replicas", "0:1, 1:2");
    overrides.put("follower.replication.throttled.replicas", "*");

    // When
    LogConfig config = TopicConfigs.fromOverrides(overrides, LogConfig.defaults());

    // Then
    assertThat(config.retentionMs()).isEqualTo(3_600_000);
    assertThat(config.retentionBytes()).isEqualTo(1L << 30);
    assertThat(config.cleanupPolicy()).containsExactly("compact", "delete");
    assertThat(config.compacted()).isTrue();
    assertThat(config.deletes()).isTrue();
    assertThat(config.segmentBytes()).isEqualTo(2 * 1024 * 1024);
    assertThat(config.minCleanableDirtyRatio()).isEqualTo(0.25);
    assertThat(config.compressionType()).isEqualTo(TopicCompression.ZSTD);
    assertThat(config.compressionZstdLevel()).isEqualTo(-5);
    assertThat(config.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(config.minInSyncReplicas()).isEqualTo(2);
    assertThat(config.uncleanLeaderElectionEnable()).isTrue();
    assertThat(config.preallocate()).isTrue();
    assertThat(config.leaderReplicationThrottledReplicas()).containsExactly("0:1", "1:2");
    assertThat(config.followerReplicationThrottledReplicas()).containsExactly("*");
    assertThat(TopicConfigs.toStrings(config))
        .containsEntry("cleanup.policy", "compact,delete")
        .containsEntry("leader.replication.throttled.replicas", "0:1,1:2")
        .containsEntry("message.timestamp.type", "LogAppendTime");
  }

  @Test
  void unsetConfigsComeFromTheBrokerDefaults() {
    // Given
    LogConfig brokerDefaults =
        LogConfig.builder().retentionMs(1_000).segmentBytes(4 * 1024 * 1024).build();

    // When
    LogConfig config = TopicConfigs.fromOverrides(Map.of("retention.bytes", "100"), brokerDefaults);

    // Then
    assertThat(config).isEqualTo(brokerDefaults.toBuilder().retentionBytes(100).build());
    assertThat(TopicConfigs.fromOverrides(Map.of(), brokerDefaults)).isEqualTo(brokerDefaults);
  }

  @Test
  void cleanupPolicyDrivesCompacted() {
    LogConfig compact =
        TopicConfigs.fromOverrides(Map.of("cleanup.policy", "compact"), LogConfig.defaults());
    LogConfig none = TopicConfigs.fromOverrides(Map.of("cleanup.policy", ""), LogConfig.defaults());

    assertThat(compact.compacted()).isTrue();
    assertThat(compact.deletes()).isFalse();
    assertThat(none.cleanupPolicy()).isEmpty();
    assertThat(none.compacted()).isFalse();
    assertThat(none.deletes()).isFalse();
    assertThat(TopicConfigs.toStrings(none)).containsEntry("cleanup.policy", "");
  }

  @Test
  void builderCompactedIsShorthandForTheSinglePolicies() {
    assertThat(LogConfig.builder().compacted(true).build().cleanupPolicy())
        .containsExactly("compact");
    assertThat(LogConfig.builder().compacted(true).compacted(false).build().cleanupPolicy())
        .containsExactly("delete");
    LogConfig both = LogConfig.builder().cleanupPolicy(List.of("delete", "compact")).build();
    assertThat(both.toBuilder().compacted(true).build()).isEqualTo(both);
    assertThat(both.compacted()).isTrue();
  }

  @Test
  void recordRejectsCompactedThatContradictsThePolicy() {
    LogConfig config = LogConfig.defaults();

    assertThatThrownBy(
            () ->
                new LogConfig(
                    config.segmentBytes(),
                    config.segmentMs(),
                    config.segmentIndexBytes(),
                    config.indexIntervalBytes(),
                    config.maxMessageBytes(),
                    config.flushMessages(),
                    config.flushMs(),
                    config.timestampType(),
                    config.timestampBeforeMaxMs(),
                    config.timestampAfterMaxMs(),
                    true,
                    config.retentionMs(),
                    config.retentionBytes(),
                    Set.of("delete"),
                    config.deleteRetentionMs(),
                    config.minCompactionLagMs(),
                    config.maxCompactionLagMs(),
                    config.minCleanableDirtyRatio(),
                    config.fileDeleteDelayMs(),
                    config.segmentJitterMs(),
                    config.preallocate(),
                    config.minInSyncReplicas(),
                    config.uncleanLeaderElectionEnable(),
                    config.compressionType(),
                    config.compressionGzipLevel(),
                    config.compressionLz4Level(),
                    config.compressionZstdLevel(),
                    config.localRetentionMs(),
                    config.localRetentionBytes(),
                    config.remoteStorageEnable(),
                    config.remoteLogCopyDisable(),
                    config.remoteLogDeleteOnDisable(),
                    config.remoteCopyLagMs(),
                    config.remoteCopyLagBytes(),
                    config.leaderReplicationThrottledReplicas(),
                    config.followerReplicationThrottledReplicas(),
                    config.retentionDeadlineEnable(),
                    config.maxInflatedBytesFactor()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cleanup.policy");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "segment.bytes | 1048575 | at least 1048576",
        "segment.ms | 0 | at least 1",
        "segment.ms | abc | Not a number",
        "retention.ms | -2 | at least -1",
        "cleanup.policy | delete,purge | compact, delete",
        "cleanup.policy | Compact | compact, delete",
        "min.cleanable.dirty.ratio | 1.5 | no more than 1",
        "compression.type | brotli | producer",
        "compression.gzip.level | 0 | -1",
        "compression.lz4.level | 18 | no more than 17",
        "compression.zstd.level | 23 | no more than 22",
        "message.timestamp.type | NoTimestamp | LogAppendTime",
        "message.timestamp.after.max.ms | -1 | at least 0",
        "min.insync.replicas | 0 | at least 1",
        "max.compaction.lag.ms | 0 | at least 1",
        "preallocate | yes | true or false",
        "local.retention.ms | -3 | at least -2",
        "remote.copy.lag.ms | -2 | at least -1",
        "leader.replication.throttled.replicas | 0-1 | partitionId:brokerId",
        "follower.replication.throttled.replicas | *,0:1 | partitionId:brokerId",
      })
  void invalidValuesNameTheConfigAndWhatIsAllowed(String name, String value, String allowed) {
    assertThatThrownBy(() -> TopicConfigs.validate(Map.of(name, value)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("Invalid value")
        .hasMessageContaining("configuration " + name)
        .hasMessageContaining(allowed);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "retention.hours",
        "log.retention.ms",
        "message.format.version",
        "message.downconversion.enable",
        "message.timestamp.difference.max.ms"
      })
  void unknownNamesAreRejectedByName(String name) {
    assertThatThrownBy(() -> TopicConfigs.validate(Map.of(name, "1")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageStartingWith("Unknown topic config name: " + name);
  }

  @Test
  void removedConfigsSayWhy() {
    assertThatThrownBy(() -> TopicConfigs.validate(Map.of("message.format.version", "3.0")))
        .hasMessageContaining("removed in Kafka 4.0");
  }

  @Test
  void nullValuesAreRejected() {
    Map<String, String> overrides = new HashMap<>();
    overrides.put("retention.ms", null);

    assertThatThrownBy(() -> TopicConfigs.validate(overrides))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention.ms");
  }

  @Test
  void minCompactionLagMayNotExceedMax() {
    assertThatThrownBy(
            () ->
                TopicConfigs.validate(
                    Map.of("min.compaction.lag.ms", "2000", "max.compaction.lag.ms", "1000")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("min.compaction.lag.ms")
        .hasMessageContaining("max.compaction.lag.ms");
  }

  @Test
  void remoteStorageRules() {
    // Beyond Kafka: compacted topics may be tiered.
    TopicConfigs.validate(Map.of("remote.storage.enable", "true", "cleanup.policy", "compact"));
    TopicConfigs.validate(
        Map.of("remote.storage.enable", "true", "cleanup.policy", "compact,delete"));
    assertThatThrownBy(
            () ->
                TopicConfigs.validate(
                    Map.of(
                        "remote.storage.enable", "true",
                        "retention.ms", "1000",
                        "local.retention.ms", "2000")))
        .hasMessageContaining("configuration local.retention.ms");
    assertThatThrownBy(
            () ->
                TopicConfigs.validate(
                    Map.of(
                        "remote.storage.enable", "true",
                        "retention.bytes", "1000",
                        "local.retention.bytes", "-1")))
        .hasMessageContaining("configuration local.retention.bytes");
    assertThatThrownBy(
            () ->
                TopicConfigs.validate(
                    Map.of(
                        "remote.storage.enable", "true",
                        "local.retention.ms", "1000",
                        "remote.copy.lag.ms", "2000")))
        .hasMessageContaining("configuration remote.copy.lag.ms");
    // Without remote storage the same values are only stored.
    TopicConfigs.validate(Map.of("cleanup.policy", "compact", "local.retention.ms", "2000"));
  }

  @Test
  void printedConfigsParseBackToTheSameConfig() {
    // Given: every component away from its default
    LogConfig config =
        LogConfig.builder()
            .segmentBytes(8 * 1024 * 1024)
            .segmentMs(60_000)
            .segmentIndexBytes(4096)
            .indexIntervalBytes(1)
            .maxMessageBytes(2_000_000)
            .flushMessages(10)
            .flushMs(500)
            .timestampType(TimestampType.LOG_APPEND_TIME)
            .timestampBeforeMaxMs(1)
            .timestampAfterMaxMs(2)
            .cleanupPolicy(List.of())
            .retentionMs(-1)
            .retentionBytes(5_000_000_000L)
            .deleteRetentionMs(3)
            .minCompactionLagMs(4)
            .maxCompactionLagMs(5)
            .minCleanableDirtyRatio(0.125)
            .fileDeleteDelayMs(6)
            .segmentJitterMs(7)
            .preallocate(true)
            .minInSyncReplicas(3)
            .uncleanLeaderElectionEnable(true)
            .compressionType(TopicCompression.GZIP)
            .compressionGzipLevel(9)
            .compressionLz4Level(17)
            .compressionZstdLevel(-131072)
            .localRetentionMs(-1)
            .localRetentionBytes(5_000_000_000L)
            .remoteStorageEnable(true)
            .remoteLogCopyDisable(true)
            .remoteLogDeleteOnDisable(true)
            .remoteCopyLagMs(-1)
            .remoteCopyLagBytes(9)
            .leaderReplicationThrottledReplicas(List.of("0:1"))
            .followerReplicationThrottledReplicas(List.of("*"))
            .retentionDeadlineEnable(true)
            .build();

    // When
    Map<String, String> printed = TopicConfigs.toStrings(config);
    LogConfig parsed = TopicConfigs.fromOverrides(printed, LogConfig.defaults());

    // Then
    assertThat(parsed).isEqualTo(config);
    for (Map.Entry<String, String> e : printed.entrySet()) {
      assertThat(e.getValue()).as(e.getKey()).isNotEqualTo(KAFKA_4_DEFAULTS.get(e.getKey()));
    }
  }

  @Test
  void brokerSynonyms() {
    assertThat(TopicConfigs.brokerSynonym("retention.ms")).contains("log.retention.ms");
    assertThat(TopicConfigs.brokerSynonyms("retention.ms"))
        .containsExactly("log.retention.ms", "log.retention.minutes", "log.retention.hours");
    assertThat(TopicConfigs.brokerSynonym("segment.bytes")).contains("log.segment.bytes");
    assertThat(TopicConfigs.brokerSynonym("segment.ms")).contains("log.roll.ms");
    assertThat(TopicConfigs.brokerSynonym("cleanup.policy")).contains("log.cleanup.policy");
    assertThat(TopicConfigs.brokerSynonym("max.message.bytes")).contains("message.max.bytes");
    assertThat(TopicConfigs.brokerSynonym("min.insync.replicas")).contains("min.insync.replicas");
    assertThat(TopicConfigs.brokerSynonym("file.delete.delay.ms"))
        .contains("log.segment.delete.delay.ms");
    assertThat(TopicConfigs.brokerSynonym("min.cleanable.dirty.ratio"))
        .contains("log.cleaner.min.cleanable.ratio");
    assertThat(TopicConfigs.brokerSynonym("remote.storage.enable")).isEmpty();
    assertThat(TopicConfigs.brokerSynonym("no.such.config")).isEqualTo(Optional.empty());
  }

  @Test
  void describesEveryConfig() {
    for (String name : TopicConfigs.names()) {
      assertThat(TopicConfigs.isSensitive(name)).isFalse();
      assertThat(TopicConfigs.documentation(name)).as(name).isNotBlank();
      assertThat(TopicConfigs.type(name)).as(name).isNotNull();
    }
    assertThat(TopicConfigs.type("retention.ms")).isEqualTo(ConfigDef.Type.LONG);
    assertThat(TopicConfigs.type("cleanup.policy")).isEqualTo(ConfigDef.Type.LIST);
    assertThat(TopicConfigs.usedByBrook("segment.bytes")).isTrue();
    assertThat(TopicConfigs.usedByBrook("retention.ms")).isTrue();
    assertThat(TopicConfigs.usedByBrook("remote.storage.enable")).isTrue();
    assertThat(TopicConfigs.usedByBrook("remote.copy.lag.ms")).isFalse();
    assertThatThrownBy(() -> TopicConfigs.type("nope"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
