package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;

/** Topic creation and deletion, and new partitions of existing topics. */
final class TopicControl {
  private final ControllerConfig config;
  private final Random random;

  TopicControl(ControllerConfig config, Random random) {
    this.config = config;
    this.random = random;
  }

  /** The replicas and ISR of one new partition. */
  private record NewPartition(List<Integer> replicas, List<Integer> isr) {}

  ControllerResult<TopicResult> createTopic(
      MetadataImage image,
      String name,
      int numPartitions,
      short replicationFactor,
      Map<Integer, List<Integer>> manualAssignment,
      Map<String, String> configs,
      boolean validateOnly,
      ConfigValidator validator) {
    ApiError nameError = checkNewName(image, name);
    if (nameError.isFailure()) {
      return ControllerResult.of(TopicResult.failed(name, nameError));
    }
    Map<String, String> creationConfigs = new TreeMap<>();
    configs.forEach(
        (key, value) -> {
          if (value != null) {
            creationConfigs.put(key, value);
          }
        });

    List<NewPartition> partitions;
    if (!manualAssignment.isEmpty()) {
      if (replicationFactor != -1) {
        return failed(
            name,
            Errors.INVALID_REQUEST,
            "A manual partition assignment was specified, but replication factor was not set to"
                + " -1.");
      }
      if (numPartitions != -1) {
        return failed(
            name,
            Errors.INVALID_REQUEST,
            "A manual partition assignment was specified, but numPartitions was not set to -1.");
      }
      partitions = new ArrayList<>(manualAssignment.size());
      OptionalInt expectedRf = OptionalInt.empty();
      TreeSet<Integer> partitionIds = new TreeSet<>(manualAssignment.keySet());
      for (int partitionId : partitionIds) {
        List<Integer> replicas = manualAssignment.get(partitionId);
        ApiError error = ManualAssignment.check(replicas, image.brokers(), expectedRf);
        if (error.isFailure()) {
          return ControllerResult.of(TopicResult.failed(name, error));
        }
        expectedRf = OptionalInt.of(replicas.size());
        List<Integer> isr = ManualAssignment.isr(replicas, image);
        if (isr.isEmpty()) {
          return ControllerResult.of(
              TopicResult.failed(name, ManualAssignment.allFenced(partitionId)));
        }
        partitions.add(new NewPartition(List.copyOf(replicas), isr));
      }
      if (!ManualAssignment.isZeroBasedSequence(partitionIds)) {
        return failed(
            name,
            Errors.INVALID_REPLICA_ASSIGNMENT,
            "partitions should be a consecutive 0-based integer sequence");
      }
    } else {
      if (numPartitions < -1 || numPartitions == 0) {
        return failed(
            name,
            Errors.INVALID_PARTITIONS,
            "Number of partitions was set to an invalid non-positive value.");
      }
      if (replicationFactor < -1 || replicationFactor == 0) {
        return failed(
            name,
            Errors.INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.");
      }
      int partitionCount = numPartitions == -1 ? config.defaultNumPartitions() : numPartitions;
      short rf = replicationFactor == -1 ? config.defaultReplicationFactor() : replicationFactor;
      if (tooManyRecords(partitionCount + 1L + creationConfigs.size())) {
        return failed(name, Errors.POLICY_VIOLATION, EXCESSIVE_BATCH);
      }
      try {
        partitions = new ArrayList<>(partitionCount);
        for (List<Integer> replicas :
            ReplicaPlacer.place(unfencedBrokers(image), partitionCount, rf, random)) {
          partitions.add(new NewPartition(replicas, replicas));
        }
      } catch (ReplicaPlacer.PlacementException e) {
        return failed(
            name,
            Errors.INVALID_REPLICATION_FACTOR,
            "Unable to replicate the partition " + rf + " time(s): " + e.getMessage());
      }
    }
    if (tooManyRecords(partitions.size() + 1L + creationConfigs.size())) {
      return failed(name, Errors.POLICY_VIOLATION, EXCESSIVE_BATCH);
    }
    ApiError configError = ConfigControl.validate(validator, creationConfigs);
    if (configError.isFailure()) {
      return ControllerResult.of(TopicResult.failed(name, configError));
    }
    short rf = (short) partitions.get(0).replicas().size();
    if (validateOnly) {
      return ControllerResult.of(
          new TopicResult(name, Uuid.ZERO_UUID, partitions.size(), rf, ApiError.NONE));
    }
    Uuid topicId = newTopicId(image);
    List<MetadataRecord> records = new ArrayList<>(partitions.size() + 1 + creationConfigs.size());
    records.add(new TopicRecord(name, topicId));
    creationConfigs.forEach(
        (key, value) -> records.add(new ConfigRecord(ConfigResource.Type.TOPIC, name, key, value)));
    for (int p = 0; p < partitions.size(); p++) {
      NewPartition partition = partitions.get(p);
      records.add(newPartitionRecord(topicId, p, partition));
    }
    return ControllerResult.of(
        records, new TopicResult(name, topicId, partitions.size(), rf, ApiError.NONE));
  }

  ControllerResult<ApiError> deleteTopic(MetadataImage image, String name) {
    Optional<TopicImage> topic = image.topic(name);
    if (topic.isEmpty()) {
      return ControllerResult.of(ApiError.of(Errors.UNKNOWN_TOPIC_OR_PARTITION));
    }
    return ControllerResult.of(List.of(new RemoveTopicRecord(topic.get().id())), ApiError.NONE);
  }

  ControllerResult<ApiError> deleteTopic(MetadataImage image, Uuid topicId) {
    if (image.topic(topicId).isEmpty()) {
      return ControllerResult.of(ApiError.of(Errors.UNKNOWN_TOPIC_ID));
    }
    return ControllerResult.of(List.of(new RemoveTopicRecord(topicId)), ApiError.NONE);
  }

  ControllerResult<ApiError> createPartitions(
      MetadataImage image,
      String name,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly) {
    Optional<TopicImage> found = image.topic(name);
    if (found.isEmpty()) {
      return ControllerResult.of(ApiError.of(Errors.UNKNOWN_TOPIC_OR_PARTITION));
    }
    TopicImage topic = found.get();
    int current = topic.numPartitions();
    if (newTotalCount < current) {
      return error(
          Errors.INVALID_PARTITIONS,
          "Topic currently has "
              + current
              + " partitions, which is higher than the requested "
              + newTotalCount
              + ".");
    }
    if (newTotalCount == current) {
      return error(Errors.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
    }
    int additional = newTotalCount - current;
    if (tooManyRecords(additional)) {
      return error(Errors.POLICY_VIOLATION, EXCESSIVE_BATCH);
    }
    int rf =
        topic
            .partition(0)
            .map(p -> p.replicas().size())
            .orElse((int) config.defaultReplicationFactor());
    List<NewPartition> partitions = new ArrayList<>(additional);
    if (assignments.isPresent()) {
      List<List<Integer>> lists = assignments.get();
      if (lists.size() != additional) {
        return error(
            Errors.INVALID_REPLICA_ASSIGNMENT,
            "Attempted to add "
                + additional
                + " additional partition(s), but only "
                + lists.size()
                + " assignment(s) were specified.");
      }
      for (int i = 0; i < lists.size(); i++) {
        List<Integer> replicas = lists.get(i);
        ApiError error = ManualAssignment.check(replicas, image.brokers(), OptionalInt.of(rf));
        if (error.isFailure()) {
          return ControllerResult.of(error);
        }
        List<Integer> isr = ManualAssignment.isr(replicas, image);
        if (isr.isEmpty()) {
          return ControllerResult.of(ManualAssignment.allFenced(current + i));
        }
        partitions.add(new NewPartition(List.copyOf(replicas), isr));
      }
    } else {
      try {
        for (List<Integer> replicas :
            ReplicaPlacer.place(unfencedBrokers(image), additional, rf, random)) {
          partitions.add(new NewPartition(replicas, replicas));
        }
      } catch (ReplicaPlacer.PlacementException e) {
        return error(Errors.INVALID_REPLICATION_FACTOR, e.getMessage());
      }
    }
    if (validateOnly) {
      return ControllerResult.of(ApiError.NONE);
    }
    List<MetadataRecord> records = new ArrayList<>(additional);
    for (int i = 0; i < partitions.size(); i++) {
      records.add(newPartitionRecord(topic.id(), current + i, partitions.get(i)));
    }
    return ControllerResult.of(records, ApiError.NONE);
  }

  /** Kafka's checks of a new topic's name, in its order: legal, new, no '.'/'_' collision. */
  static ApiError checkNewName(MetadataImage image, String name) {
    try {
      Topic.validate(name);
    } catch (InvalidTopicException e) {
      return new ApiError(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
    }
    if (image.topic(name).isPresent()) {
      return new ApiError(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
    }
    if (Topic.hasCollisionChars(name)) {
      for (String existing : image.topicNames()) {
        if (Topic.hasCollision(name, existing)) {
          return new ApiError(
              Errors.INVALID_TOPIC_EXCEPTION,
              "Topic '" + name + "' collides with existing topic: " + existing);
        }
      }
    }
    return ApiError.NONE;
  }

  private static final String EXCESSIVE_BATCH =
      "Unable to perform excessively large batch operation.";

  private boolean tooManyRecords(long records) {
    return records > config.maxRecordsPerOperation();
  }

  private static PartitionRecord newPartitionRecord(
      Uuid topicId, int partitionId, NewPartition partition) {
    return new PartitionRecord(
        topicId, partitionId, partition.replicas(), partition.isr(), partition.isr().get(0), 0, 0);
  }

  static List<BrokerRegistration> unfencedBrokers(MetadataImage image) {
    List<BrokerRegistration> unfenced = new ArrayList<>();
    for (BrokerRegistration b : image.brokers().values()) {
      if (!b.fenced()) {
        unfenced.add(b);
      }
    }
    return unfenced;
  }

  /**
   * A random topic id that is not reserved, does not start with '-' (awkward on command lines, as
   * Kafka also avoids) and is not in use.
   */
  private Uuid newTopicId(MetadataImage image) {
    while (true) {
      Uuid id = new Uuid(random.nextLong(), random.nextLong());
      if (!Uuid.RESERVED.contains(id)
          && !id.toString().startsWith("-")
          && image.topic(id).isEmpty()) {
        return id;
      }
    }
  }

  private static ControllerResult<TopicResult> failed(String name, Errors error, String message) {
    return ControllerResult.of(TopicResult.failed(name, new ApiError(error, message)));
  }

  private static ControllerResult<ApiError> error(Errors error, String message) {
    return ControllerResult.of(new ApiError(error, message));
  }
}
