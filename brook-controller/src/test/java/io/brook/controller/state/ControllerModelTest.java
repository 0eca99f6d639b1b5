package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.quorum.InMemoryMetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random controller operations through a quorum, with the image's invariants checked after every
 * one, and a replay of every record written, and of the final image's snapshot records, compared
 * with the final image. A failing seed is printed in the assertion message; pin it as a value
 * below.
 */
class ControllerModelTest {
  private static final int OPERATIONS = 250;
  private static final String[] NAMES = {"a.b", "a_b", "ab", "x", "x.1", "x_1", "y-2", "orders"};
  private static final String[] RACKS = {"r1", "r2", "r3"};

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 20240611, 7_777_777})
  void randomOperationsKeepTheInvariants(long seed) throws IOException {
    Random random = new Random(seed);
    List<MetadataRecord> allRecords = new ArrayList<>();
    List<ProducerIdBlock> blocks = new ArrayList<>();
    Map<Integer, Uuid> incarnations = new HashMap<>();
    MetadataImage last;
    try (InMemoryMetadataQuorum quorum = new InMemoryMetadataQuorum()) {
      ClusterController controller =
          new ClusterController(
              new ControllerConfig(2, (short) 2), quorum::image, new Random(seed * 31));
      Model model = new Model(quorum, allRecords);
      for (int op = 0; op < OPERATIONS; op++) {
        String step = model.step(random, controller, blocks, incarnations);
        MetadataImage image = quorum.image();
        checkInvariants(image, "seed " + seed + " after operation " + op + " (" + step + ")");
      }
      last = quorum.image();
    }

    System.out.printf(
        "seed=%d offset=%d topics=%d partitions=%d brokers=%d changes=%d blocks=%d%n",
        seed,
        last.offset(),
        last.topics().size(),
        last.topics().stream().mapToInt(TopicImage::numPartitions).sum(),
        last.brokers().size(),
        allRecords.stream()
            .filter(r -> r instanceof io.brook.metadata.record.PartitionChangeRecord)
            .count(),
        blocks.size());
    // Then: the snapshot records replay to the same image, and so do all the records written
    assertThat(MetadataImage.EMPTY.apply(last.toRecords(), last.offset()))
        .as("seed %d: snapshot replay", seed)
        .isEqualTo(last);
    assertThat(MetadataImage.EMPTY.apply(allRecords, last.offset()))
        .as("seed %d: record replay", seed)
        .isEqualTo(last);
    for (int i = 1; i < blocks.size(); i++) {
      assertThat(blocks.get(i).firstProducerId())
          .as("seed %d: producer id blocks", seed)
          .isGreaterThan(blocks.get(i - 1).lastProducerId());
    }
  }

  /** Drives the quorum and keeps every record it wrote. */
  private record Model(InMemoryMetadataQuorum quorum, List<MetadataRecord> records) {
    <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
      return quorum.submit(
          image -> {
            ControllerResult<T> result = op.apply(image);
            records.addAll(result.records());
            return result;
          });
    }

    String step(
        Random random,
        ClusterController controller,
        List<ProducerIdBlock> blocks,
        Map<Integer, Uuid> incarnations)
        throws IOException {
      int brokerId = random.nextInt(6);
      String name = NAMES[random.nextInt(NAMES.length)];
      int kind = random.nextInt(100);
      if (kind < 15) {
        Uuid incarnation =
            random.nextBoolean()
                ? incarnations.computeIfAbsent(brokerId, id -> Uuid.randomUuid())
                : Uuid.randomUuid();
        incarnations.put(brokerId, incarnation);
        Optional<String> rack =
            random.nextInt(4) == 0 ? Optional.empty() : Optional.of(RACKS[brokerId % 3]);
        submit(
            image ->
                controller.registerBroker(
                    brokerId,
                    incarnation,
                    List.of(new BrokerEndpoint("PLAINTEXT", "h" + brokerId, 9092, "PLAINTEXT")),
                    rack));
        return "register " + brokerId;
      } else if (kind < 25) {
        submit(image -> controller.fenceBroker(brokerId));
        return "fence " + brokerId;
      } else if (kind < 33) {
        submit(image -> controller.unfenceBroker(brokerId));
        return "unfence " + brokerId;
      } else if (kind < 36) {
        submit(image -> controller.unregisterBroker(brokerId));
        return "unregister " + brokerId;
      } else if (kind < 56) {
        Map<Integer, List<Integer>> manual = new HashMap<>();
        int partitions = random.nextInt(6) - 1;
        short rf = (short) (random.nextInt(5) - 1);
        if (random.nextInt(4) == 0) {
          int n = 1 + random.nextInt(3);
          int size = 1 + random.nextInt(3);
          for (int p = 0; p < n; p++) {
            List<Integer> replicas = new ArrayList<>();
            for (int r = 0; r < size; r++) {
              replicas.add(random.nextInt(6));
            }
            manual.put(p, replicas);
          }
          partitions = -1;
          rf = -1;
        }
        Map<String, String> configs =
            random.nextBoolean() ? Map.of("retention.ms", "" + random.nextInt(9)) : Map.of();
        int finalPartitions = partitions;
        short finalRf = rf;
        submit(
            image ->
                controller.createTopic(
                    name,
                    finalPartitions,
                    finalRf,
                    manual,
                    configs,
                    random.nextInt(10) == 0,
                    ConfigValidator.NONE));
        return "create " + name + " " + partitions + "x" + rf + " " + manual;
      } else if (kind < 64) {
        if (random.nextBoolean()) {
          submit(image -> controller.deleteTopic(name));
        } else {
          Uuid id = quorum.image().topic(name).map(TopicImage::id).orElseGet(Uuid::randomUuid);
          submit(image -> controller.deleteTopic(id));
        }
        return "delete " + name;
      } else if (kind < 74) {
        int count = random.nextInt(7);
        submit(image -> controller.createPartitions(name, count, Optional.empty(), false));
        return "partitions " + name + " " + count;
      } else if (kind < 84) {
        ConfigResource resource =
            random.nextBoolean()
                ? new ConfigResource(ConfigResource.Type.TOPIC, name)
                : new ConfigResource(
                    ConfigResource.Type.BROKER, random.nextBoolean() ? "" : "" + brokerId);
        Map<String, Optional<String>> changes =
            Map.of(
                "a",
                random.nextBoolean() ? Optional.empty() : Optional.of("" + random.nextInt(3)),
                "b",
                random.nextBoolean() ? Optional.empty() : Optional.of("" + random.nextInt(3)));
        ApiError error =
            submit(
                image -> controller.alterConfigs(resource, changes, false, ConfigValidator.NONE));
        return "configs " + resource + " " + changes + " " + error;
      } else if (kind < 94) {
        BrokerRegistration broker = quorum.image().brokers().get(brokerId);
        try {
          long epoch = broker == null ? 0 : broker.epoch();
          blocks.add(submit(image -> controller.allocateProducerIds(brokerId, epoch)));
        } catch (MetadataException expected) {
          assertThat(broker).isNull();
        }
        return "producer ids " + brokerId;
      } else {
        // What a Raft snapshot holds: the image's records, which replay to the same image.
        MetadataImage image = quorum.image();
        assertThat(MetadataImage.EMPTY.apply(image.toRecords(), image.offset())).isEqualTo(image);
        return "snapshot";
      }
    }
  }

  static void checkInvariants(MetadataImage image, String where) {
    Set<Uuid> ids = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (TopicImage topic : image.topics()) {
      assertThat(ids.add(topic.id())).as("%s: topic id %s unique", where, topic.id()).isTrue();
      assertThat(names.add(topic.name())).as("%s: name unique", where).isTrue();
      assertThat(image.topic(topic.id())).as(where).contains(topic);
      assertThat(image.topic(topic.name())).as(where).contains(topic);
      assertThat(topic.partitions()).as("%s: %s has partitions", where, topic.name()).isNotEmpty();
      for (int p = 0; p < topic.numPartitions(); p++) {
        PartitionImage partition = topic.partitions().get(p);
        String what = where + ": " + topic.name() + "-" + p + " " + partition;
        assertThat(partition).as("%s: partition ids are 0..n-1", what).isNotNull();
        assertThat(partition.replicas()).as(what).isNotEmpty().doesNotHaveDuplicates();
        assertThat(partition.isr()).as(what).doesNotHaveDuplicates();
        assertThat(partition.replicas()).as(what).containsAll(partition.isr());
        // The ELR (tracked by default): replicas outside the ISR; the ISR empties only into it or
        // into the last known leader.
        assertThat(partition.eligibleLeaderReplicas()).as(what).doesNotHaveDuplicates();
        assertThat(partition.replicas()).as(what).containsAll(partition.eligibleLeaderReplicas());
        for (int member : partition.eligibleLeaderReplicas()) {
          assertThat(partition.isr()).as("%s: ELR outside the ISR", what).doesNotContain(member);
        }
        assertThat(partition.lastKnownElr()).as(what).hasSizeLessThanOrEqualTo(1);
        if (partition.isr().isEmpty()) {
          assertThat(partition.hasLeader()).as("%s: an empty ISR has no leader", what).isFalse();
          assertThat(partition.eligibleLeaderReplicas().size() + partition.lastKnownElr().size())
              .as("%s: an empty ISR keeps who may lead again", what)
              .isPositive();
        }
        if (partition.hasLeader()) {
          assertThat(partition.isr()).as("%s: leader in ISR", what).contains(partition.leader());
          BrokerRegistration leader = image.brokers().get(partition.leader());
          assertThat(leader).as("%s: leader registered", what).isNotNull();
          assertThat(leader.fenced()).as("%s: leader unfenced", what).isFalse();
        } else {
          for (int member : partition.isr()) {
            BrokerRegistration b = image.brokers().get(member);
            assertThat(b == null || b.fenced())
                .as("%s: leaderless while ISR member %d could lead", what, member)
                .isTrue();
          }
          if (partition.isr().isEmpty()) {
            for (int member : partition.eligibleLeaderReplicas()) {
              BrokerRegistration b = image.brokers().get(member);
              assertThat(b == null || b.fenced())
                  .as("%s: leaderless while ELR member %d could lead", what, member)
                  .isTrue();
            }
          }
        }
        if (partition.isr().size() > 1) {
          for (int member : partition.isr()) {
            BrokerRegistration b = image.brokers().get(member);
            assertThat(b != null && !b.fenced())
                .as("%s: only a last ISR member may be fenced or gone", what)
                .isTrue();
          }
        }
      }
    }
    List<String> all = new ArrayList<>(names);
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        assertThat(Topic.hasCollision(all.get(i), all.get(j)))
            .as("%s: %s and %s collide", where, all.get(i), all.get(j))
            .isFalse();
      }
    }
    for (String topic : image.configs(ConfigResource.Type.TOPIC).keySet()) {
      assertThat(image.topic(topic)).as("%s: configs of a live topic", where).isPresent();
    }
  }
}
