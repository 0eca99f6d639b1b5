package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.ClusterIdRecord;
import io.brook.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller's operations. Each reads the current image from the supplier and returns the
 * records to append with the response; none changes anything itself.
 *
 * <p>Use it inside {@link io.brook.metadata.quorum.MetadataQuorum#submit}, with the quorum's image
 * as the supplier, so that every operation sees the image its records will be applied to:
 *
 * <pre>{@code
 * ClusterController controller = new ClusterController(config, quorum::image, new Random());
 * TopicResult result = quorum.submit(image -> controller.createTopic("orders", 3, (short) 1,
 *     Map.of(), Map.of(), false, ConfigValidator.NONE));
 * }</pre>
 *
 * <p>Not thread-safe (the random source and the read-then-write of each operation): call it from
 * one thread at a time, which {@code submit} guarantees.
 *
 * <p>Request errors come back as {@link ApiError} values with Kafka's codes and messages. The
 * broker-to-controller calls ({@link #allocateProducerIds}, {@link #registerBroker}, {@link
 * #alterPartition}) throw {@link MetadataException} for calls a correct broker never makes, such as
 * a stale broker epoch.
 */
public final class ClusterController {
  private final ControllerConfig config;
  private final Supplier<MetadataImage> image;
  private final TopicControl topics;
  private final AclControl acls;
  private final BrokerFences fences;

  /**
   * @param config defaults and limits
   * @param image the current image; must be the image the returned records will be applied to
   * @param random the source of topic ids and placement start positions (seed it in tests)
   */
  public ClusterController(ControllerConfig config, Supplier<MetadataImage> image, Random random) {
    this(config, image, random, new BrokerFences());
  }

  /**
   * @param fences where each broker was fenced, fed the images as they are applied; a controller
   *     built without one learns a fence only from the image a heartbeat reads
   */
  public ClusterController(
      ControllerConfig config, Supplier<MetadataImage> image, Random random, BrokerFences fences) {
    this.config = Objects.requireNonNull(config, "config");
    this.image = Objects.requireNonNull(image, "image");
    this.fences = Objects.requireNonNull(fences, "fences");
    this.topics = new TopicControl(config, Objects.requireNonNull(random, "random"));
    this.acls = new AclControl(random);
  }

  /** Admits every partition mutation: no {@code controller_mutation_rate} applies. */
  public static final IntPredicate UNLIMITED = partitions -> true;

  private static final ApiError THROTTLED =
      new ApiError(Errors.THROTTLING_QUOTA_EXCEEDED, Errors.THROTTLING_QUOTA_EXCEEDED.message());

  /**
   * Creates a topic, as one topic of Kafka's {@code CreateTopics}.
   *
   * @param name the topic's name
   * @param numPartitions the number of partitions, or -1 for the default (must be -1 with a manual
   *     assignment)
   * @param replicationFactor the replication factor, or -1 for the default (must be -1 with a
   *     manual assignment)
   * @param manualAssignment replicas by partition index, 0 to n-1; empty for automatic placement
   * @param configs the topic's config overrides (null values are ignored)
   * @param validateOnly check everything, then return the result without records
   * @param validator checks the config overrides
   * @return no records on error or with {@code validateOnly}; else the topic, its config and its
   *     partition records
   */
  public ControllerResult<TopicResult> createTopic(
      String name,
      int numPartitions,
      short replicationFactor,
      Map<Integer, List<Integer>> manualAssignment,
      Map<String, String> configs,
      boolean validateOnly,
      ConfigValidator validator) {
    return topics.createTopic(
        image.get(),
        Objects.requireNonNull(name, "name"),
        numPartitions,
        replicationFactor,
        Objects.requireNonNull(manualAssignment, "manualAssignment"),
        Objects.requireNonNull(configs, "configs"),
        validateOnly,
        Objects.requireNonNull(validator, "validator"));
  }

  /**
   * Creates several topics in one operation (one Raft entry in a cluster), each validated against
   * the image with the topics before it already created, as if created one by one. Stops before the
   * topic whose records would take the operation past {@link
   * ControllerConfig#maxRecordsPerOperation()}: the result then has fewer entries than {@code
   * topics}, and the caller submits the rest as another operation.
   *
   * @return one result per topic handled, in order, and all their records
   */
  public ControllerResult<List<TopicResult>> createTopics(
      List<NewTopic> topics, boolean validateOnly, ConfigValidator validator) {
    return createTopics(topics, validateOnly, validator, UNLIMITED);
  }

  /**
   * As {@link #createTopics(List, boolean, ConfigValidator)}, charging each valid new topic's
   * partitions to {@code mutations} (the client's {@code controller_mutation_rate}, KIP-599): a
   * topic it refuses fails with {@code THROTTLING_QUOTA_EXCEEDED} and is not created. A validation
   * ({@code validateOnly}) is not charged.
   */
  public ControllerResult<List<TopicResult>> createTopics(
      List<NewTopic> topics,
      boolean validateOnly,
      ConfigValidator validator,
      IntPredicate mutations) {
    MetadataImage current = image.get();
    List<MetadataRecord> records = new ArrayList<>();
    List<TopicResult> results = new ArrayList<>();
    for (NewTopic topic : topics) {
      ControllerResult<TopicResult> one =
          this.topics.createTopic(
              current,
              topic.name(),
              topic.numPartitions(),
              topic.replicationFactor(),
              topic.manualAssignment(),
              topic.configs(),
              validateOnly,
              Objects.requireNonNull(validator, "validator"));
      if (!results.isEmpty()
          && records.size() + one.records().size() > config.maxRecordsPerOperation()) {
        break;
      }
      TopicResult result = one.response();
      if (!validateOnly && result.error().isSuccess() && !mutations.test(result.numPartitions())) {
        results.add(TopicResult.failed(topic.name(), THROTTLED));
        continue;
      }
      results.add(result);
      if (!one.records().isEmpty()) {
        records.addAll(one.records());
        current = current.apply(one.records(), current.offset() + one.records().size());
      }
    }
    return ControllerResult.of(records, results);
  }

  /** Deletes a topic by name: {@code UNKNOWN_TOPIC_OR_PARTITION} if there is none. */
  public ControllerResult<ApiError> deleteTopic(String name) {
    return deleteTopic(name, UNLIMITED);
  }

  /**
   * Deletes a topic by name, charging its partitions to {@code mutations} ({@code
   * THROTTLING_QUOTA_EXCEEDED} and no change if refused).
   */
  public ControllerResult<ApiError> deleteTopic(String name, IntPredicate mutations) {
    MetadataImage current = image.get();
    return charged(
        topics.deleteTopic(current, Objects.requireNonNull(name, "name")),
        () -> current.topic(name).map(t -> t.numPartitions()).orElse(0),
        mutations);
  }

  /** Deletes a topic by id: {@code UNKNOWN_TOPIC_ID} if there is none. */
  public ControllerResult<ApiError> deleteTopic(Uuid topicId) {
    return deleteTopic(topicId, UNLIMITED);
  }

  /** Deletes a topic by id, charging its partitions to {@code mutations}. */
  public ControllerResult<ApiError> deleteTopic(Uuid topicId, IntPredicate mutations) {
    MetadataImage current = image.get();
    return charged(
        topics.deleteTopic(current, Objects.requireNonNull(topicId, "topicId")),
        () -> current.topic(topicId).map(t -> t.numPartitions()).orElse(0),
        mutations);
  }

  /**
   * A change that passed validation, if {@code mutations} admits its partitions; else {@code
   * THROTTLING_QUOTA_EXCEEDED} without records. Changes without records (failures, validations) are
   * not charged.
   */
  private static ControllerResult<ApiError> charged(
      ControllerResult<ApiError> change, Supplier<Integer> partitions, IntPredicate mutations) {
    if (change.records().isEmpty() || change.response().isFailure()) {
      return change;
    }
    return mutations.test(partitions.get()) ? change : ControllerResult.of(THROTTLED);
  }

  /**
   * Adds partitions to a topic, as one topic of Kafka's {@code CreatePartitions}.
   *
   * @param topic the topic's name
   * @param newTotalCount the partition count after the change; must be higher than today's
   * @param assignments the replicas of each new partition, in order, or empty for automatic
   *     placement with the replication factor of partition 0
   * @param validateOnly check everything, then answer without records
   */
  public ControllerResult<ApiError> createPartitions(
      String topic,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly) {
    return createPartitions(topic, newTotalCount, assignments, validateOnly, UNLIMITED);
  }

  /** As {@link #createPartitions}, charging the new partitions to {@code mutations}. */
  public ControllerResult<ApiError> createPartitions(
      String topic,
      int newTotalCount,
      Optional<List<List<Integer>>> assignments,
      boolean validateOnly,
      IntPredicate mutations) {
    MetadataImage current = image.get();
    return charged(
        topics.createPartitions(
            current,
            Objects.requireNonNull(topic, "topic"),
            newTotalCount,
            Objects.requireNonNull(assignments, "assignments"),
            validateOnly),
        () -> newTotalCount - current.topic(topic).map(t -> t.numPartitions()).orElse(0),
        mutations);
  }

  /**
   * Sets and deletes config overrides of a topic or a broker (by id string, or {@code ""} for the
   * cluster-wide default), like Kafka's {@code IncrementalAlterConfigs} SET and DELETE. Changes
   * that change nothing produce no record.
   *
   * @param changes new values by config name; an empty value deletes the override
   * @param validator checks the resource's overrides as they would be after the change
   */
  public ControllerResult<ApiError> alterConfigs(
      ConfigResource resource,
      Map<String, Optional<String>> changes,
      boolean validateOnly,
      ConfigValidator validator) {
    return ConfigControl.alterConfigs(
        image.get(),
        Objects.requireNonNull(resource, "resource"),
        Objects.requireNonNull(changes, "changes"),
        validateOnly,
        Objects.requireNonNull(validator, "validator"));
  }

  /** Creates ACLs (Kafka's CreateAcls): one result per binding; see {@link AclControl}. */
  public ControllerResult<List<ApiError>> createAcls(List<AclBinding> bindings) {
    return acls.create(image.get(), Objects.requireNonNull(bindings, "bindings"));
  }

  /** Deletes the ACLs each filter matches (Kafka's DeleteAcls); one result per filter. */
  public ControllerResult<List<AclControl.FilterResult>> deleteAcls(
      List<AclBindingFilter> filters) {
    return acls.delete(image.get(), Objects.requireNonNull(filters, "filters"));
  }

  /**
   * Records the cluster id, once, with the new cluster's feature levels: the first active
   * controller proposes the id its own node was formatted with, or a new one. Every later call
   * answers the recorded id, so nodes that race to propose agree on the winner.
   *
   * @param proposed the id to record if none is
   * @return the cluster's id
   */
  public ControllerResult<String> initializeClusterId(String proposed) {
    Objects.requireNonNull(proposed, "proposed");
    Optional<String> recorded = image.get().clusterId();
    if (recorded.isPresent()) {
      return ControllerResult.of(recorded.get());
    }
    // A new cluster: its feature levels are finalized with its id, at Kafka 4.x's defaults.
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new ClusterIdRecord(proposed));
    records.addAll(FeatureControl.newClusterRecords());
    return ControllerResult.of(records, proposed);
  }

  /** UpdateFeatures ({@link FeatureControl#update}). */
  public ControllerResult<Map<String, ApiError>> updateFeatures(
      List<FeatureControl.Update> updates, boolean validateOnly) {
    return FeatureControl.update(image.get(), updates, validateOnly);
  }

  /**
   * Hands a block of {@link ControllerConfig#producerIdBlockSize()} producer ids to a broker.
   *
   * @throws MetadataException {@code BROKER_ID_NOT_REGISTERED} or {@code STALE_BROKER_EPOCH}
   */
  public ControllerResult<ProducerIdBlock> allocateProducerIds(int brokerId, long brokerEpoch) {
    return ProducerIdControl.allocate(
        image.get(), brokerId, brokerEpoch, config.producerIdBlockSize());
  }

  /**
   * Registers a broker, unfenced, with a new epoch (the offset its record will have), and elects it
   * leader of the leaderless partitions whose ISR holds it. Registering again with the same
   * incarnation id, endpoints and rack while unfenced returns the current epoch and no records.
   *
   * @return the broker's epoch
   * @throws MetadataException {@code INVALID_REQUEST} for a negative broker id
   */
  public ControllerResult<Long> registerBroker(
      int brokerId, Uuid incarnationId, List<BrokerEndpoint> endpoints, Optional<String> rack) {
    return BrokerControl.registerBroker(
        image.get(),
        config,
        brokerId,
        Objects.requireNonNull(incarnationId, "incarnationId"),
        List.copyOf(endpoints),
        Objects.requireNonNull(rack, "rack"));
  }

  /**
   * Registers a broker fenced, as a KRaft cluster does: it is unfenced by a later {@link
   * #brokerHeartbeat} once its metadata has caught up. A new incarnation of a broker that is still
   * unfenced first loses its ISR memberships and leaderships. A broker that does not say it shut
   * down cleanly leaves every eligible leader replica set.
   *
   * @param previousBrokerEpoch the epoch the broker had when it last shut down cleanly, or -1
   * @return the broker's epoch (the offset of its registration record)
   */
  public ControllerResult<Long> registerBrokerFenced(
      int brokerId,
      Uuid incarnationId,
      List<BrokerEndpoint> endpoints,
      Optional<String> rack,
      long previousBrokerEpoch) {
    return BrokerLifecycleControl.registerFenced(
        image.get(),
        config,
        brokerId,
        Objects.requireNonNull(incarnationId, "incarnationId"),
        List.copyOf(endpoints),
        Objects.requireNonNull(rack, "rack"),
        previousBrokerEpoch);
  }

  /**
   * {@link #registerBrokerFenced(int, Uuid, List, Optional, long)} without a clean shutdown signal.
   */
  public ControllerResult<Long> registerBrokerFenced(
      int brokerId, Uuid incarnationId, List<BrokerEndpoint> endpoints, Optional<String> rack) {
    return registerBrokerFenced(brokerId, incarnationId, endpoints, rack, -1L);
  }

  /**
   * A broker's heartbeat: unfences it once {@code metadataOffset} has reached its registration and
   * the fence it is under ({@link BrokerFences}), or fences it (moving its leaderships away) when
   * it asks to shut down.
   */
  public ControllerResult<HeartbeatResult> brokerHeartbeat(
      int brokerId,
      long brokerEpoch,
      long metadataOffset,
      boolean wantFence,
      boolean wantShutDown) {
    return BrokerLifecycleControl.heartbeat(
        image.get(),
        config,
        brokerId,
        brokerEpoch,
        metadataOffset,
        wantFence,
        wantShutDown,
        fences);
  }

  /**
   * The replicas of {@code brokerId} whose log directory failed leave their ISRs and lose their
   * leaderships, in one batch; see {@link BrokerLifecycleControl#replicasOffline}.
   *
   * @param partitions partition indexes by topic id
   */
  public ControllerResult<ApiError> replicasOffline(
      int brokerId, long brokerEpoch, Map<Uuid, Set<Integer>> partitions) {
    return BrokerLifecycleControl.replicasOffline(
        image.get(), config, brokerId, brokerEpoch, Map.copyOf(partitions));
  }

  /**
   * Preferred-leader election (Kafka's ElectLeaders with PREFERRED, and {@code
   * auto.leader.rebalance.enable}): the first replica of each partition leads again where it is
   * unfenced and in sync.
   *
   * @param partitions partition ids by topic name, or empty for all partitions
   */
  public ControllerResult<Map<String, Map<Integer, ApiError>>> electPreferredLeaders(
      Optional<Map<String, List<Integer>>> partitions) {
    return LeaderElectionControl.electPreferred(
        image.get(), Objects.requireNonNull(partitions, "partitions"));
  }

  /**
   * Unclean leader election (Kafka's ElectLeaders with UNCLEAN): each leaderless partition gets its
   * first unfenced replica as leader, in sync or not, with an ISR of that replica alone. An
   * administrator asks for it, so the topic's {@code unclean.leader.election.enable} is not
   * consulted. Records only the ISR held may be lost.
   *
   * @param partitions partition ids by topic name, or empty for all partitions
   * @return per topic and partition: {@code NONE} (elected), {@code ELECTION_NOT_NEEDED} (it has a
   *     leader), {@code ELIGIBLE_LEADERS_NOT_AVAILABLE} or {@code UNKNOWN_TOPIC_OR_PARTITION}
   */
  public ControllerResult<Map<String, Map<Integer, ApiError>>> electUncleanLeaders(
      Optional<Map<String, List<Integer>>> partitions) {
    return LeaderElectionControl.electUnclean(
        image.get(), config, Objects.requireNonNull(partitions, "partitions"));
  }

  /**
   * A partition leader's request for new ISRs (Kafka's AlterPartition): checked as {@link
   * IsrControl} describes, then changed through the reassignment rules, so an expand can complete a
   * reassignment.
   *
   * @param brokerId the requesting broker, which must lead every partition it names
   * @param brokerEpoch its registration's epoch
   * @return one result per partition, in request order, with the partition's state after the change
   *     on success
   * @throws MetadataException {@code STALE_BROKER_EPOCH} if the broker is not registered in that
   *     epoch (the whole request fails)
   */
  public ControllerResult<List<IsrChangeResult>> alterPartition(
      int brokerId, long brokerEpoch, List<IsrChangeRequest> partitions) {
    return IsrControl.alterPartition(
        image.get(), config, brokerId, brokerEpoch, List.copyOf(partitions));
  }

  /**
   * Starts or cancels partition reassignments (Kafka's AlterPartitionReassignments), in order.
   * Stops before the partition whose record would take the operation past {@link
   * ControllerConfig#maxRecordsPerOperation()}: the result then has fewer entries than {@code
   * requests}, and the caller submits the rest as another operation.
   *
   * @param allowReplicationFactorChange false to refuse targets whose size differs from the
   *     partition's replica count
   * @return per request handled, in order: {@code NONE}, {@code UNKNOWN_TOPIC_OR_PARTITION}, {@code
   *     INVALID_REPLICA_ASSIGNMENT}, {@code INVALID_REPLICATION_FACTOR} or {@code
   *     NO_REASSIGNMENT_IN_PROGRESS}
   */
  public ControllerResult<List<ApiError>> alterPartitionReassignments(
      List<PartitionReassignment> requests, boolean allowReplicationFactorChange) {
    return ReassignmentControl.alter(
        image.get(),
        List.copyOf(requests),
        allowReplicationFactorChange,
        config.maxRecordsPerOperation());
  }

  /**
   * The partitions with a reassignment in progress (Kafka's ListPartitionReassignments), by topic
   * name and partition id; their images carry the replicas and the adding and removing sets.
   *
   * @param partitions partition ids by topic name, or empty for all partitions; unknown ones are
   *     left out
   */
  public Map<String, Map<Integer, PartitionImage>> listPartitionReassignments(
      Optional<Map<String, List<Integer>>> partitions) {
    return ReassignmentControl.list(image.get(), Objects.requireNonNull(partitions, "partitions"));
  }

  /** Whether a preferred-leader election would move any leader. */
  public boolean leadersImbalanced() {
    return LeaderElectionControl.imbalanced(image.get());
  }

  /**
   * Fences a broker: removes it from every ISR where it is not the last member and moves its
   * leaderships to the first other unfenced ISR member in replica order, or to no leader (-1).
   * {@code BROKER_ID_NOT_REGISTERED} if unknown; no records if already fenced.
   */
  public ControllerResult<ApiError> fenceBroker(int brokerId) {
    return BrokerControl.fenceBroker(image.get(), config, brokerId);
  }

  /**
   * {@link #fenceBroker(int)} if the broker's registration still has {@code expectedEpoch}, else
   * {@code STALE_BROKER_EPOCH} and no records (the broker re-registered since the caller looked).
   */
  public ControllerResult<ApiError> fenceBroker(int brokerId, long expectedEpoch) {
    return BrokerControl.fenceBroker(image.get(), config, brokerId, expectedEpoch);
  }

  /**
   * Unfences a broker and elects it leader of the leaderless partitions whose ISR holds it. {@code
   * BROKER_ID_NOT_REGISTERED} if unknown; no records if not fenced.
   */
  public ControllerResult<ApiError> unfenceBroker(int brokerId) {
    return BrokerControl.unfenceBroker(image.get(), config, brokerId);
  }

  /**
   * Unregisters a broker, first moving it out of ISRs and leaderships as {@link #fenceBroker} does.
   * {@code BROKER_ID_NOT_REGISTERED} if unknown.
   */
  public ControllerResult<ApiError> unregisterBroker(int brokerId) {
    return BrokerControl.unregisterBroker(image.get(), config, brokerId);
  }
}
