package io.brook.server.console;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The console's aggregates, computed from one metadata image on the server so a page never receives
 * the whole cluster: a page of topics (searched and sorted by name) and the partition health
 * counts, each one pass over what it needs. Pure functions of the image, so they are tested on
 * built images with thousands of topics without starting a broker.
 */
final class ClusterView {
  /** The most rows one page may ask for. */
  static final int MAX_PAGE = 500;

  private ClusterView() {}

  /** Topic-level defaults, for topics that do not set them. */
  record Defaults(long retentionMs, String cleanupPolicy, int minInSyncReplicas) {}

  /** One row of the topic list. */
  record TopicRow(
      String name,
      String topicId,
      int partitions,
      int replicationFactor,
      long retentionMs,
      String cleanupPolicy) {}

  record Page<T>(int total, int offset, int limit, List<T> rows) {}

  /**
   * The topics whose name contains {@code search} (case-insensitive; null or empty for all), sorted
   * by name, from {@code offset}, at most {@code limit}.
   */
  static Page<TopicRow> topics(
      MetadataImage image, String search, int offset, int limit, Defaults defaults) {
    return topics(image, name -> true, search, offset, limit, defaults);
  }

  /** As {@link #topics(MetadataImage, String, int, int, Defaults)}, of the {@code shown} only. */
  static Page<TopicRow> topics(
      MetadataImage image,
      Predicate<String> shown,
      String search,
      int offset,
      int limit,
      Defaults defaults) {
    String needle = search == null ? "" : search.toLowerCase(Locale.ROOT);
    List<String> names = new ArrayList<>();
    for (String name : image.topicNames()) {
      if (shown.test(name) && matches(name, needle)) {
        names.add(name);
      }
    }
    names.sort(null);
    Page<String> shownNames = page(names, offset, limit);
    List<TopicRow> rows = new ArrayList<>(shownNames.rows().size());
    for (String name : shownNames.rows()) {
      TopicImage topic = image.topic(name).orElseThrow();
      Map<String, String> configs = image.configs(ConfigResource.Type.TOPIC, name);
      rows.add(
          new TopicRow(
              name,
              topic.id().toString(),
              topic.numPartitions(),
              topic.partitions().isEmpty()
                  ? 0
                  : topic.partitions().values().iterator().next().replicas().size(),
              parseLong(configs.get("retention.ms"), defaults.retentionMs()),
              configs.getOrDefault("cleanup.policy", defaults.cleanupPolicy())));
    }
    return new Page<>(shownNames.total(), shownNames.offset(), shownNames.limit(), rows);
  }

  /** Whether {@code name} contains {@code search} (lower case; empty matches every name). */
  static boolean matches(String name, String search) {
    return search.isEmpty() || name.toLowerCase(Locale.ROOT).contains(search);
  }

  /**
   * The rows of {@code all} (already filtered and sorted) from {@code offset}, at most {@code
   * limit} of them and never more than {@link #MAX_PAGE}: the one way every console list is cut
   * before it leaves the server. An offset past the end gives an empty page at the end.
   */
  static <T> Page<T> page(List<T> all, int offset, int limit) {
    int from = Math.min(Math.max(offset, 0), all.size());
    int to = Math.min(from + Math.max(Math.min(limit, MAX_PAGE), 0), all.size());
    return new Page<>(all.size(), from, to - from, new ArrayList<>(all.subList(from, to)));
  }

  /**
   * Partition health over the whole cluster, and each broker's leader count.
   *
   * @param underReplicated partitions whose ISR is smaller than their replica set
   * @param underMinIsr partitions whose ISR is smaller than their {@code min.insync.replicas}
   * @param offline partitions without a leader
   */
  record Health(
      int topics,
      int partitions,
      int underReplicated,
      int underMinIsr,
      int offline,
      Map<Integer, Integer> leaders) {}

  static Health health(MetadataImage image, Defaults defaults) {
    int topics = 0;
    int partitions = 0;
    int underReplicated = 0;
    int underMinIsr = 0;
    int offline = 0;
    Map<Integer, Integer> leaders = new HashMap<>();
    for (BrokerRegistration broker : image.brokers().values()) {
      leaders.put(broker.id(), 0);
    }
    for (TopicImage topic : image.topics()) {
      topics++;
      int minIsr =
          (int)
              parseLong(
                  image.configs(ConfigResource.Type.TOPIC, topic.name()).get("min.insync.replicas"),
                  defaults.minInSyncReplicas());
      for (PartitionImage partition : topic.partitions().values()) {
        partitions++;
        int isr = partition.isr().size();
        if (isr < partition.replicas().size()) {
          underReplicated++;
        }
        if (isr < minIsr) {
          underMinIsr++;
        }
        if (!partition.hasLeader()) {
          offline++;
        } else {
          leaders.merge(partition.leader(), 1, Integer::sum);
        }
      }
    }
    return new Health(topics, partitions, underReplicated, underMinIsr, offline, leaders);
  }

  private static long parseLong(String value, long fallback) {
    if (value == null) {
      return fallback;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
