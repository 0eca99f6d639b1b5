package io.brook.tests.cluster.faults;

import io.brook.cli.verify.ReplicationChecker;
import io.brook.cli.verify.ReplicationChecker.Stored;
import io.brook.storage.s3.S3SegmentStore;
import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.tiered.S3ProxyServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Tiered storage under faults: an idempotent acks=all producer (the producer workload's client)
 * writes a topic with {@code remote.storage.enable=true} whose segments roll every second, are
 * copied to the S3 store (s3proxy in the campaign's JVM, which the nodes reach over the same links
 * the faults cut) and are deleted from local disk a second later, so copies, local deletions and
 * leadership moves of tiered partitions all happen during the faults.
 *
 * <p>The check, once every send settled: within {@link #TIERING_BOUND} every partition's local log
 * starts past offset 0 (its oldest records are then only in the store); then a fresh consumer reads
 * each partition from offset 0, through the store, and every acknowledged record is there exactly
 * once at its acknowledged offset, in send order, with nothing that was not sent ({@link
 * ReplicationChecker}, as for the producer workload).
 */
final class TieredWorkload implements CampaignWorkload {
  private static final int PARTITIONS = 3;

  /**
   * How long after the cluster recovered every partition may take to have copied and deleted
   * locally its first segment. The copy task runs every {@code remote.log.manager.task.interval.ms}
   * (200 ms here) and local retention right after it; a store the faults cut off is retried.
   */
  private static final Duration TIERING_BOUND = Duration.ofSeconds(60);

  private String bootstrap;
  private String topic;
  private ProducerWorkload producer;
  private Map<TopicPartition, Long> localStarts = Map.of();

  /** The cluster settings the workload needs: tiered storage on, in the S3 store {@code s3}. */
  static Map<String, String> brokerSettings(S3ProxyServer s3) {
    Map<String, String> config = new HashMap<>();
    config.put("remote.log.storage.system.enable", "true");
    config.put("remote.log.manager.task.interval.ms", "200");
    config.put("remote.log.storage.manager.class.name", S3SegmentStore.class.getName());
    s3.settings("campaign/", ClusterHarness.TEST_HOST)
        .forEach((k, v) -> config.put("rsm.config." + k, v));
    return config;
  }

  @Override
  public String name() {
    return "tiered";
  }

  @Override
  public void start(String bootstrap, String prefix) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = prefix + "-tiered";
    TopicReader.create(
        bootstrap,
        Map.of(topic, PARTITIONS),
        Map.of(
            "remote.storage.enable", "true",
            "segment.ms", "1000",
            "local.retention.ms", "1000",
            "retention.ms", "-1"));
    producer = new ProducerWorkload(bootstrap, topic, PARTITIONS, 1);
    producer.start();
  }

  @Override
  public Result finish() throws Exception {
    producer.stop();
    List<String> violations = new ArrayList<>();
    String untiered = awaitTiered();
    if (untiered != null) {
      violations.add(untiered);
    }
    Map<Integer, List<Stored>> read = TopicReader.readStored(bootstrap, topic, PARTITIONS);
    List<String> found = ReplicationChecker.violations(read, producer.log(), Map.of(), List.of());
    found.stream().limit(40).forEach(violations::add);
    if (found.size() > 40) {
      violations.add("... and " + (found.size() - 40) + " more");
    }
    System.out.printf(
        "[%s] %d acknowledged, %d read from offset 0 through the store (local logs starting at %s),"
            + " %d violations%n",
        topic,
        producer.log().acks().size(),
        read.values().stream().mapToInt(List::size).sum(),
        localStarts,
        found.size());
    return new Result(producer.log().acks().size(), violations);
  }

  /**
   * Waits until every partition's local log starts past offset 0; the violation if one does not
   * within {@link #TIERING_BOUND}, else null.
   */
  private String awaitTiered() throws Exception {
    Map<TopicPartition, OffsetSpec> earliestLocal = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      earliestLocal.put(new TopicPartition(topic, p), OffsetSpec.earliestLocal());
    }
    long deadline = System.nanoTime() + TIERING_BOUND.toNanos();
    try (Admin admin = FaultScenario.admin(bootstrap)) {
      while (System.nanoTime() - deadline < 0) {
        try {
          Map<TopicPartition, Long> now =
              new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
          admin
              .listOffsets(earliestLocal)
              .all()
              .get(15, TimeUnit.SECONDS)
              .forEach((tp, info) -> now.put(tp, info.offset()));
          localStarts = now;
          if (now.values().stream().allMatch(offset -> offset > 0)) {
            return null;
          }
        } catch (ExecutionException | TimeoutException e) {
          // A leader moving, or an answer slower than 15 s: ask again.
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
    }
    return "local logs still start at "
        + localStarts
        + " "
        + TIERING_BOUND.toSeconds()
        + " s after the recovery: their first segments were not tiered";
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close();
    }
  }
}
