package io.brook.server.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;

/**
 * The sampling windows quotas are measured over. The quota rates themselves (client quotas, {@code
 * leader/follower.replication.throttled.rate}) are dynamic configs, set with AlterClientQuotas /
 * IncrementalAlterConfigs rather than in {@code server.properties}. The log-directory move windows
 * are not used yet (docs/quotas.md). Also Brook's broker-wide fair share.
 */
final class QuotaSettings {

  /** Kafka measures every quota over 11 samples: 10 complete windows plus the current one. */
  private static final int SAMPLES = 11;

  private QuotaSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.QUOTAS)
        .uses(
            "quota.window.num",
            INT,
            SAMPLES,
            atLeast(1),
            LOW,
            "Samples of the client produce, fetch and request rates; the quotas' token bucket holds"
                + " `quota.window.num − 1` samples' worth of the quota (its burst).")
        .uses(
            "quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            LOW,
            "Length of one client quota sample.")
        .uses(
            "replication.quota.window.num",
            INT,
            SAMPLES,
            atLeast(1),
            LOW,
            "Samples kept for replication throttling.")
        .uses(
            "replication.quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            LOW,
            "Length of one replication quota sample.")
        .accepts(
            "alter.log.dirs.replication.quota.window.num",
            INT,
            SAMPLES,
            atLeast(1),
            LOW,
            "Samples kept for throttling replica moves between log directories.")
        .accepts(
            "alter.log.dirs.replication.quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            LOW,
            "Length of one log-directory move quota sample.")
        .uses(
            "controller.quota.window.num",
            INT,
            SAMPLES,
            atLeast(1),
            LOW,
            "Samples the controller mutation quota's token bucket holds (its burst).")
        .uses(
            "controller.quota.window.size.seconds",
            INT,
            1,
            atLeast(1),
            LOW,
            "Length of one controller mutation quota sample.")
        .uses(
            "brook.quota.fair.share.bytes.per.second",
            LONG,
            0L,
            atLeast(0),
            LOW,
            "Produce bytes per second past which the broker throttles its heaviest clients down to a"
                + " fair share of it, quotas or not; 0 turns the fair share off.");
  }
}
