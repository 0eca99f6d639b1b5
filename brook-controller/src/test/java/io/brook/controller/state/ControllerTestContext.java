package io.brook.controller.state;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.Uuid;

/**
 * A controller over an in-memory image, driven step by step on one thread: operations return their
 * result and, unless asked otherwise, replay its records onto the image.
 */
final class ControllerTestContext {
  MetadataImage image = MetadataImage.EMPTY;
  final ClusterController controller;

  private ControllerTestContext(ControllerConfig config, long seed) {
    this.controller = new ClusterController(config, () -> image, new Random(seed));
  }

  static Builder builder() {
    return new Builder();
  }

  static final class Builder {
    private ControllerConfig config = ControllerConfig.DEFAULT;
    private long seed = 42;
    private final List<Object[]> brokers = new ArrayList<>();
    private final List<Integer> fenced = new ArrayList<>();

    Builder withConfig(ControllerConfig newConfig) {
      this.config = newConfig;
      return this;
    }

    Builder withSeed(long newSeed) {
      this.seed = newSeed;
      return this;
    }

    Builder withBrokers(int... ids) {
      for (int id : ids) {
        brokers.add(new Object[] {id, null});
      }
      return this;
    }

    Builder withBroker(int id, String rack) {
      brokers.add(new Object[] {id, rack});
      return this;
    }

    Builder withFencedBrokers(int... ids) {
      for (int id : ids) {
        fenced.add(id);
      }
      return this;
    }

    ControllerTestContext build() {
      ControllerTestContext ctx = new ControllerTestContext(config, seed);
      for (Object[] b : brokers) {
        ctx.register((Integer) b[0], Optional.ofNullable((String) b[1]));
      }
      for (int id : fenced) {
        ctx.replay(ctx.controller.fenceBroker(id));
      }
      return ctx;
    }
  }

  long register(int id, Optional<String> rack) {
    return replay(
        controller.registerBroker(
            id,
            Uuid.randomUuid(),
            List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092 + id, "PLAINTEXT")),
            rack));
  }

  /** Applies the result's records to the image, each with the next offset, and returns it. */
  <T> T replay(ControllerResult<T> result) {
    image = image.apply(result.records(), image.offset() + result.records().size());
    return result.response();
  }

  TopicResult createTopic(String name, int partitions, int rf) {
    return replay(
        controller.createTopic(
            name, partitions, (short) rf, Map.of(), Map.of(), false, ConfigValidator.NONE));
  }

  TopicImage topic(String name) {
    return image.topic(name).orElseThrow();
  }

  PartitionImage partition(String name, int partition) {
    return image.partition(name, partition).orElseThrow();
  }
}
