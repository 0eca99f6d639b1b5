package io.brook.metadata.image;

import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.metadata.record.ClusterIdRecord;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.FeatureLevelRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.ProducerIdsRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The cluster metadata at one offset of the metadata log: brokers, topics with their partitions,
 * config overrides, the producer-id counter and the ACLs.
 *
 * <p>Immutable and thread-safe: publish it through a volatile field and read it from any thread.
 * The only way to a new image is {@link #apply}, which replays records; a live write and a reload
 * after a restart take the same path, so they cannot disagree.
 *
 * <p>Offsets: every record of the log has its own offset, and {@link #offset()} is the offset of
 * the last record applied ({@code -1} for {@link #EMPTY}). Offsets only grow; gaps are allowed (a
 * Raft log also holds entries that are not metadata records).
 */
public final class MetadataImage {
  /** The image before the first record. */
  public static final MetadataImage EMPTY =
      new MetadataImage(
          -1,
          Map.of(),
          Map.of(),
          Map.of(),
          Map.of(),
          0,
          null,
          AclIndex.EMPTY,
          Map.of(),
          Map.of(),
          Map.of());

  private final long offset;
  private final Map<Integer, BrokerRegistration> brokers;
  private final Map<Uuid, TopicImage> topicsById;
  private final Map<String, Uuid> topicIdsByName;
  private final Map<ConfigResource.Type, Map<String, Map<String, String>>> configs;
  private final long nextProducerId;
  private final String clusterId;
  private final AclIndex acls;

  /** SCRAM credentials by user, then by Kafka's mechanism type. */
  private final Map<String, Map<Byte, UserScramCredentialRecord>> scramCredentials;

  /** Client quotas by entity (type to name, {@code null} for a default), then by quota key. */
  private final Map<Map<String, String>, Map<String, Double>> clientQuotas;

  /** The finalized feature levels by name; a feature at level 0 is absent. */
  private final Map<String, Short> features;

  /** All maps must already be unmodifiable; {@link ImageBuilder} guarantees it. */
  MetadataImage(
      long offset,
      Map<Integer, BrokerRegistration> brokers,
      Map<Uuid, TopicImage> topicsById,
      Map<String, Uuid> topicIdsByName,
      Map<ConfigResource.Type, Map<String, Map<String, String>>> configs,
      long nextProducerId,
      String clusterId,
      AclIndex acls,
      Map<String, Map<Byte, UserScramCredentialRecord>> scramCredentials,
      Map<Map<String, String>, Map<String, Double>> clientQuotas,
      Map<String, Short> features) {
    this.scramCredentials = scramCredentials;
    this.clientQuotas = clientQuotas;
    this.features = features;
    this.offset = offset;
    this.brokers = brokers;
    this.topicsById = topicsById;
    this.topicIdsByName = topicIdsByName;
    this.configs = configs;
    this.nextProducerId = nextProducerId;
    this.clusterId = clusterId;
    this.acls = acls;
  }

  /** The offset of the last record applied, {@code -1} before the first. */
  public long offset() {
    return offset;
  }

  /** The registered brokers by id, in id order. */
  public Map<Integer, BrokerRegistration> brokers() {
    return brokers;
  }

  /** One registered broker. */
  public Optional<BrokerRegistration> broker(int brokerId) {
    return Optional.ofNullable(brokers.get(brokerId));
  }

  /** A topic by name. */
  public Optional<TopicImage> topic(String name) {
    Uuid id = topicIdsByName.get(name);
    return id == null ? Optional.empty() : Optional.of(topicsById.get(id));
  }

  /** A topic by id. */
  public Optional<TopicImage> topic(Uuid id) {
    return Optional.ofNullable(topicsById.get(id));
  }

  /** One partition, if its topic and the partition exist. */
  public Optional<PartitionImage> partition(String topic, int partitionId) {
    return topic(topic).flatMap(t -> t.partition(partitionId));
  }

  /** All topics, in name order. */
  public Collection<TopicImage> topics() {
    List<TopicImage> topics = new ArrayList<>(topicIdsByName.size());
    for (Uuid id : topicIdsByName.values()) {
      topics.add(topicsById.get(id));
    }
    return Collections.unmodifiableList(topics);
  }

  /** The names of all topics, in order. */
  public Collection<String> topicNames() {
    return Collections.unmodifiableSet(topicIdsByName.keySet());
  }

  /**
   * The config overrides of one resource: a topic by name, or a broker by id string ({@code ""} for
   * the cluster-wide broker default). Empty when there are none.
   */
  public Map<String, String> configs(ConfigResource.Type type, String name) {
    Map<String, Map<String, String>> ofType = configs.get(type);
    if (ofType == null) {
      return Map.of();
    }
    Map<String, String> ofResource = ofType.get(name);
    return ofResource == null ? Map.of() : ofResource;
  }

  /** The config overrides of all resources of one type, by resource name. */
  public Map<String, Map<String, String>> configs(ConfigResource.Type type) {
    return configs.getOrDefault(type, Map.of());
  }

  /** The next producer id not yet handed out in a block. */
  public long nextProducerId() {
    return nextProducerId;
  }

  /** The finalized feature levels by name (features at level 0 are absent), in name order. */
  public Map<String, Short> features() {
    return features;
  }

  /** The finalized level of one feature, 0 when it is not finalized. */
  public short featureLevel(String name) {
    return features.getOrDefault(name, (short) 0);
  }

  /** The cluster id the first active controller recorded; empty until then. */
  public Optional<String> clusterId() {
    return Optional.ofNullable(clusterId);
  }

  /** The ACLs, indexed for the authorizer. */
  public AclIndex acls() {
    return acls;
  }

  /**
   * A user's SCRAM credential for one mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512), if it has one.
   */
  public Optional<UserScramCredentialRecord> scramCredential(String user, byte mechanism) {
    Map<Byte, UserScramCredentialRecord> ofUser = scramCredentials.get(user);
    return ofUser == null ? Optional.empty() : Optional.ofNullable(ofUser.get(mechanism));
  }

  /** Every user's SCRAM credentials, by user (in name order) and mechanism type. */
  public Map<String, Map<Byte, UserScramCredentialRecord>> scramCredentials() {
    return scramCredentials;
  }

  /**
   * The client quotas (KIP-546) by entity, then by quota key. An entity maps its types ({@code
   * user}, {@code client-id}, {@code ip}) to names, a {@code null} name being that type's default.
   */
  public Map<Map<String, String>, Map<String, Double>> clientQuotas() {
    return clientQuotas;
  }

  /**
   * Replays records onto this image. Pure: this image does not change.
   *
   * @param records the records, in log order
   * @param lastOffset the offset of the last of {@code records}; the first has offset at least
   *     {@code lastOffset - records.size() + 1}, which must be above {@link #offset()} (for an
   *     empty list, {@code lastOffset} must not be below {@link #offset()})
   * @return the image after the records
   * @throws IllegalStateException if a record cannot apply to the image it meets
   * @throws IllegalArgumentException if {@code lastOffset} does not move forward
   */
  public MetadataImage apply(List<MetadataRecord> records, long lastOffset) {
    if (records.isEmpty() ? lastOffset < offset : lastOffset - records.size() < offset) {
      throw new IllegalArgumentException(
          "records ending at offset "
              + lastOffset
              + " ("
              + records.size()
              + " record(s)) do not follow the image's offset "
              + offset);
    }
    ImageBuilder builder = new ImageBuilder(this);
    for (MetadataRecord record : records) {
      builder.replay(record);
    }
    return builder.build(lastOffset);
  }

  /**
   * The records that rebuild this image from {@link #EMPTY}: {@code EMPTY.apply(toRecords(),
   * offset())} equals this image. Brokers first, then each topic with its partitions, then configs,
   * then the producer-id counter, the cluster id and the ACLs. Used to compact the journal (and,
   * later, to snapshot).
   */
  public List<MetadataRecord> toRecords() {
    List<MetadataRecord> records = new ArrayList<>();
    for (BrokerRegistration b : brokers.values()) {
      records.add(
          new RegisterBrokerRecord(
              b.id(), b.incarnationId(), b.epoch(), b.endpoints(), b.rack(), b.fenced()));
    }
    for (TopicImage topic : topics()) {
      records.add(new TopicRecord(topic.name(), topic.id()));
      for (Map.Entry<Integer, PartitionImage> e : topic.partitions().entrySet()) {
        PartitionImage p = e.getValue();
        records.add(
            new PartitionRecord(
                topic.id(),
                e.getKey(),
                p.replicas(),
                p.isr(),
                p.leader(),
                p.leaderEpoch(),
                p.partitionEpoch(),
                p.addingReplicas(),
                p.removingReplicas(),
                p.eligibleLeaderReplicas(),
                p.lastKnownElr()));
      }
    }
    for (Map.Entry<ConfigResource.Type, Map<String, Map<String, String>>> byType :
        configs.entrySet()) {
      for (Map.Entry<String, Map<String, String>> byResource : byType.getValue().entrySet()) {
        for (Map.Entry<String, String> config : byResource.getValue().entrySet()) {
          records.add(
              new ConfigRecord(
                  byType.getKey(), byResource.getKey(), config.getKey(), config.getValue()));
        }
      }
    }
    if (nextProducerId > 0) {
      records.add(new ProducerIdsRecord(-1, -1, nextProducerId));
    }
    if (clusterId != null) {
      records.add(new ClusterIdRecord(clusterId));
    }
    features.forEach((name, level) -> records.add(new FeatureLevelRecord(name, level)));
    for (StandardAcl acl : acls.byId().values()) {
      records.add(acl.toRecord());
    }
    for (Map<Byte, UserScramCredentialRecord> ofUser : scramCredentials.values()) {
      records.addAll(ofUser.values());
    }
    clientQuotas.forEach(
        (entity, quotas) ->
            quotas.forEach(
                (key, value) -> records.add(ClientQuotaRecord.of(entity, key, value, false))));
    return records;
  }

  Map<Uuid, TopicImage> topicsById() {
    return topicsById;
  }

  Map<String, Uuid> topicIdsByName() {
    return topicIdsByName;
  }

  Map<ConfigResource.Type, Map<String, Map<String, String>>> allConfigs() {
    return configs;
  }

  static Map<ConfigResource.Type, Map<String, Map<String, String>>> emptyConfigs() {
    return new EnumMap<>(ConfigResource.Type.class);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MetadataImage other)) {
      return false;
    }
    return offset == other.offset
        && nextProducerId == other.nextProducerId
        && Objects.equals(clusterId, other.clusterId)
        && scramCredentials.equals(other.scramCredentials)
        && clientQuotas.equals(other.clientQuotas)
        && features.equals(other.features)
        && brokers.equals(other.brokers)
        && topicsById.equals(other.topicsById)
        && topicIdsByName.equals(other.topicIdsByName)
        && configs.equals(other.configs)
        && acls.equals(other.acls);
  }

  @Override
  public int hashCode() {
    return Objects.hash(offset, nextProducerId, clusterId, brokers, topicsById, configs);
  }

  @Override
  public String toString() {
    return "MetadataImage(offset="
        + offset
        + ", brokers="
        + brokers.values()
        + ", topics="
        + topics()
        + ", configs="
        + configs
        + ", nextProducerId="
        + nextProducerId
        + ", clusterId="
        + clusterId
        + ", acls="
        + acls.byId().size()
        + ")";
  }
}
