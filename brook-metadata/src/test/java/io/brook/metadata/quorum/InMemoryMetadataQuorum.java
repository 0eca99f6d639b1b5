package io.brook.metadata.quorum;

import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MetadataQuorum} of one voter that keeps its records in memory: for the tests of modules
 * that drive the controller and the broker without running Ratis (brook-broker, brook-coordinator,
 * this module). Nodes run {@code RaftMetadataQuorum} (brook-controller).
 *
 * <p>The data plane's tests, which run without the controller, write its records directly with
 * {@link #registerBroker}, {@link #createTopic} and {@link #deleteTopic}.
 *
 * <p>{@link #submit} holds this object's monitor while it runs the operation, applies its records
 * to a new image, publishes it through a volatile field and notifies the listeners on the caller's
 * thread. Readers never lock.
 */
public final class InMemoryMetadataQuorum implements MetadataQuorum {
  private static final Logger log = LoggerFactory.getLogger(InMemoryMetadataQuorum.class);

  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private boolean closed;

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public synchronized <T> T submit(Function<MetadataImage, ControllerResult<T>> op) {
    if (closed) {
      throw new IllegalStateException("the metadata quorum is closed");
    }
    MetadataImage current = image;
    ControllerResult<T> result = op.apply(current);
    if (result.records().isEmpty()) {
      return result.response();
    }
    MetadataImage next =
        current.apply(result.records(), current.offset() + result.records().size());
    image = next;
    for (Consumer<MetadataImage> listener : listeners) {
      notify(listener, next);
    }
    return result.response();
  }

  @Override
  public synchronized void addListener(Consumer<MetadataImage> listener) {
    Objects.requireNonNull(listener, "listener");
    notify(listener, image);
    listeners.add(listener);
  }

  /** A listener that throws is logged and stays registered, as on a real quorum. */
  private static void notify(Consumer<MetadataImage> listener, MetadataImage image) {
    try {
      listener.accept(image);
    } catch (RuntimeException e) {
      log.error("Metadata listener failed listener={} offset={}", listener, image.offset(), e);
    }
  }

  /**
   * Registers broker {@code id}, unfenced, with one PLAINTEXT endpoint on localhost, as the
   * controller records a registration (its epoch is the offset of its record).
   */
  public void registerBroker(int id, int port) {
    List<BrokerEndpoint> endpoints =
        List.of(new BrokerEndpoint("PLAINTEXT", "localhost", port, "PLAINTEXT"));
    submit(
        image ->
            ControllerResult.of(
                List.of(
                    new RegisterBrokerRecord(
                        id,
                        Uuid.randomUuid(),
                        image.offset() + 1,
                        endpoints,
                        Optional.empty(),
                        false)),
                null));
  }

  /**
   * Creates a topic with the replicas of each partition (partitions {@code 0..n-1}), all in sync,
   * the first one leading, and its config overrides.
   */
  public Uuid createTopic(
      String name, Map<Integer, List<Integer>> replicas, Map<String, String> configs) {
    Uuid id = Uuid.randomUuid();
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new TopicRecord(name, id));
    for (int p = 0; p < replicas.size(); p++) {
      List<Integer> partition = replicas.get(p);
      records.add(new PartitionRecord(id, p, partition, partition, partition.get(0), 0, 0));
    }
    configs.forEach(
        (key, value) -> records.add(new ConfigRecord(ConfigResource.Type.TOPIC, name, key, value)));
    submit(image -> ControllerResult.of(records, null));
    return id;
  }

  /** Creates a topic of {@code partitions} partitions, each with broker {@code leader} alone. */
  public Uuid createTopic(String name, int partitions, int leader, Map<String, String> configs) {
    Map<Integer, List<Integer>> replicas = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      replicas.put(p, List.of(leader));
    }
    return createTopic(name, replicas, configs);
  }

  /** Deletes a topic, which must exist. */
  public void deleteTopic(String name) {
    TopicImage topic = image.topic(name).orElseThrow();
    submit(image -> ControllerResult.of(List.of(new RemoveTopicRecord(topic.id())), null));
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
