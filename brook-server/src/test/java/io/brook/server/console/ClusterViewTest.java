package io.brook.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's paging and health counts on a built image of 3 brokers, 2,000 topics and 24,000
 * partitions (too many to create on a broker in the default suite).
 */
class ClusterViewTest {
  private static final ClusterView.Defaults DEFAULTS =
      new ClusterView.Defaults(604_800_000L, "delete", 2);
  private static final int TOPICS = 2_000;
  private static final int PARTITIONS = 12;
  private static MetadataImage image;

  @BeforeAll
  static void build() {
    List<MetadataRecord> records = new ArrayList<>();
    for (int b = 1; b <= 3; b++) {
      records.add(
          new RegisterBrokerRecord(
              b,
              Uuid.randomUuid(),
              1,
              List.of(new BrokerEndpoint("PLAINTEXT", "host" + b, 9092, "PLAINTEXT")),
              Optional.empty(),
              false));
    }
    for (int t = 0; t < TOPICS; t++) {
      // Not in name order, so the page must sort.
      String name = String.format("topic-%04d", (t * 7919) % TOPICS);
      Uuid id = Uuid.randomUuid();
      records.add(new TopicRecord(name, id));
      for (int p = 0; p < PARTITIONS; p++) {
        int leader = 1 + (p % 3);
        List<Integer> replicas = List.of(1, 2, 3);
        // Topic 0's partition 0 has no leader; every topic's partition 1 has lost one replica
        // from its ISR (under-replicated, still at min ISR 2); partition 2 of even topics is at
        // one replica (under min ISR).
        List<Integer> isr =
            p == 1 ? List.of(1, 2) : (p == 2 && t % 2 == 0 ? List.of(leader) : replicas);
        int partitionLeader = t == 0 && p == 0 ? -1 : leader;
        records.add(
            new PartitionRecord(id, p, replicas, isr, partitionLeader, 0, 0, List.of(), List.of()));
      }
    }
    records.add(new ConfigRecord(ConfigResource.Type.TOPIC, "topic-0003", "retention.ms", "60000"));
    records.add(
        new ConfigRecord(ConfigResource.Type.TOPIC, "topic-0003", "cleanup.policy", "compact"));
    image = MetadataImage.EMPTY.apply(records, records.size());
  }

  @Test
  void pagesAreSortedByNameAndCoverEveryTopicOnce() {
    List<String> seen = new ArrayList<>();
    int offset = 0;
    while (true) {
      ClusterView.Page<ClusterView.TopicRow> page =
          ClusterView.topics(image, null, offset, 300, DEFAULTS);
      assertThat(page.total()).isEqualTo(TOPICS);
      if (page.rows().isEmpty()) {
        break;
      }
      page.rows().forEach(r -> seen.add(r.name()));
      offset += page.limit();
    }
    assertThat(seen).hasSize(TOPICS).isSorted().doesNotHaveDuplicates();
    assertThat(seen.get(0)).isEqualTo("topic-0000");
  }

  @Test
  void aRowCarriesItsCountsAndEffectiveConfigs() {
    ClusterView.Page<ClusterView.TopicRow> page = ClusterView.topics(image, null, 3, 2, DEFAULTS);
    assertThat(page.offset()).isEqualTo(3);
    assertThat(page.rows())
        .extracting(ClusterView.TopicRow::name)
        .containsExactly("topic-0003", "topic-0004");
    ClusterView.TopicRow set = page.rows().get(0);
    assertThat(set.partitions()).isEqualTo(PARTITIONS);
    assertThat(set.replicationFactor()).isEqualTo(3);
    assertThat(set.retentionMs()).isEqualTo(60_000);
    assertThat(set.cleanupPolicy()).isEqualTo("compact");
    ClusterView.TopicRow defaults = page.rows().get(1);
    assertThat(defaults.retentionMs()).isEqualTo(604_800_000L);
    assertThat(defaults.cleanupPolicy()).isEqualTo("delete");
  }

  @Test
  void searchIsCaseInsensitiveAndPagedAfterFiltering() {
    ClusterView.Page<ClusterView.TopicRow> page =
        ClusterView.topics(image, "TOPIC-19", 5, 3, DEFAULTS);
    // topic-1900 .. topic-1999
    assertThat(page.total()).isEqualTo(100);
    assertThat(page.rows())
        .extracting(ClusterView.TopicRow::name)
        .containsExactly("topic-1905", "topic-1906", "topic-1907");
  }

  @Test
  void outOfRangePagesAreEmptyAndLimitsAreCapped() {
    assertThat(ClusterView.topics(image, null, 5_000, 50, DEFAULTS).rows()).isEmpty();
    assertThat(ClusterView.topics(image, null, 5_000, 50, DEFAULTS).offset()).isEqualTo(TOPICS);
    assertThat(ClusterView.topics(image, null, 0, 100_000, DEFAULTS).rows())
        .hasSize(ClusterView.MAX_PAGE);
    assertThat(ClusterView.topics(image, "no-such-topic", 0, 50, DEFAULTS).total()).isZero();
  }

  @Test
  void healthCountsEveryPartitionOfTheCluster() {
    ClusterView.Health health = ClusterView.health(image, DEFAULTS);
    assertThat(health.topics()).isEqualTo(TOPICS);
    assertThat(health.partitions()).isEqualTo(TOPICS * PARTITIONS);
    assertThat(health.offline()).isEqualTo(1);
    // Partition 1 of every topic, and partition 2 of every even topic.
    assertThat(health.underReplicated()).isEqualTo(TOPICS + TOPICS / 2);
    assertThat(health.underMinIsr()).isEqualTo(TOPICS / 2);
    // Leaders are spread over the three brokers; the leaderless partition counts for none.
    assertThat(health.leaders().values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(TOPICS * PARTITIONS - 1);
    assertThat(health.leaders().keySet()).containsExactlyInAnyOrder(1, 2, 3);
  }

  @Test
  void theTopicsAreTheImagesTopics() {
    assertThat(
            ClusterView.topics(image, null, 0, ClusterView.MAX_PAGE, DEFAULTS).rows().stream()
                .map(ClusterView.TopicRow::name)
                .collect(Collectors.toSet()))
        .allMatch(name -> image.topic(name).isPresent());
  }
}
