package io.brook.metadata.image;

import io.brook.metadata.authorizer.AclIndex;
import io.brook.metadata.authorizer.StandardAcl;
import io.brook.metadata.record.AccessControlEntryRecord;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.metadata.record.ClusterIdRecord;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.FeatureLevelRecord;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.ProducerIdsRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.RemoveAccessControlEntryRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.RemoveUserScramCredentialRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.metadata.record.UnfenceBrokerRecord;
import io.brook.metadata.record.UnregisterBrokerRecord;
import io.brook.metadata.record.UserScramCredentialRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Replays records onto a base image, copying each part of it (brokers, topics, one topic's
 * partitions, configs) only when a record first changes it. Single use, single thread.
 */
final class ImageBuilder {
  private final MetadataImage base;
  private TreeMap<Integer, BrokerRegistration> brokers;
  private HashMap<Uuid, TopicImage> topicsById;
  private TreeMap<String, Uuid> topicIdsByName;

  /** Partitions of topics changed in this batch; folded into their TopicImage by build(). */
  private final Map<Uuid, TreeMap<Integer, PartitionImage>> partitionEdits = new HashMap<>();

  private Map<ConfigResource.Type, Map<String, Map<String, String>>> configs;
  private long nextProducerId;
  private String clusterId;
  private TreeMap<String, Short> features;
  private TreeMap<String, Map<Byte, UserScramCredentialRecord>> scram;
  private HashMap<Map<String, String>, Map<String, Double>> clientQuotas;

  /** The ACLs once a record of this batch changed them; indexed once, by build(). */
  private LinkedHashMap<Uuid, StandardAcl> acls;

  ImageBuilder(MetadataImage base) {
    this.base = base;
    this.nextProducerId = base.nextProducerId();
    this.clusterId = base.clusterId().orElse(null);
  }

  void replay(MetadataRecord record) {
    if (record instanceof RegisterBrokerRecord r) {
      replayRegisterBroker(r);
    } else if (record instanceof UnregisterBrokerRecord r) {
      currentBroker(r.brokerId(), r.brokerEpoch(), r);
      brokers().remove(r.brokerId());
    } else if (record instanceof FenceBrokerRecord r) {
      BrokerRegistration b = currentBroker(r.brokerId(), r.brokerEpoch(), r);
      brokers().put(b.id(), b.withFenced(true));
    } else if (record instanceof UnfenceBrokerRecord r) {
      BrokerRegistration b = currentBroker(r.brokerId(), r.brokerEpoch(), r);
      brokers().put(b.id(), b.withFenced(false));
    } else if (record instanceof TopicRecord r) {
      replayTopic(r);
    } else if (record instanceof RemoveTopicRecord r) {
      replayRemoveTopic(r);
    } else if (record instanceof PartitionRecord r) {
      replayPartition(r);
    } else if (record instanceof PartitionChangeRecord r) {
      replayPartitionChange(r);
    } else if (record instanceof ConfigRecord r) {
      replayConfig(r);
    } else if (record instanceof ProducerIdsRecord r) {
      if (r.nextProducerId() <= nextProducerId) {
        throw refuse(r, "next producer id must grow beyond " + nextProducerId);
      }
      nextProducerId = r.nextProducerId();
    } else if (record instanceof ClusterIdRecord r) {
      // Written once: a second id would split the cluster's nodes into two clusters.
      if (clusterId != null && !clusterId.equals(r.clusterId())) {
        throw refuse(r, "the cluster id is already " + clusterId);
      }
      if (r.clusterId() == null || r.clusterId().isBlank()) {
        throw refuse(r, "the cluster id must not be empty");
      }
      clusterId = r.clusterId();
    } else if (record instanceof FeatureLevelRecord r) {
      if (r.name() == null || r.name().isBlank() || r.featureLevel() < 0) {
        throw refuse(r, "a feature needs a name and a level of at least 0");
      }
      if (features == null) {
        features = new TreeMap<>(base.features());
      }
      if (r.featureLevel() == 0) {
        features.remove(r.name());
      } else {
        features.put(r.name(), r.featureLevel());
      }
    } else if (record instanceof UserScramCredentialRecord r) {
      if (r.mechanism() != 1 && r.mechanism() != 2) {
        throw refuse(r, "unknown SCRAM mechanism type " + r.mechanism());
      }
      Map<Byte, UserScramCredentialRecord> ofUser =
          new TreeMap<>(scram().getOrDefault(r.name(), Map.of()));
      ofUser.put(r.mechanism(), r);
      scram().put(r.name(), Collections.unmodifiableMap(ofUser));
    } else if (record instanceof RemoveUserScramCredentialRecord r) {
      Map<Byte, UserScramCredentialRecord> ofUser =
          new TreeMap<>(scram().getOrDefault(r.name(), Map.of()));
      if (ofUser.remove(r.mechanism()) == null) {
        throw refuse(r, "user " + r.name() + " has no credential of that mechanism");
      }
      if (ofUser.isEmpty()) {
        scram().remove(r.name());
      } else {
        scram().put(r.name(), Collections.unmodifiableMap(ofUser));
      }
    } else if (record instanceof ClientQuotaRecord r) {
      replayClientQuota(r);
    } else if (record instanceof AccessControlEntryRecord r) {
      replayAcl(r);
    } else if (record instanceof RemoveAccessControlEntryRecord r) {
      if (acls().remove(r.id()) == null) {
        throw refuse(r, "no ACL has this id");
      }
    } else {
      throw new IllegalStateException("unknown record " + record);
    }
  }

  MetadataImage build(long offset) {
    Map<Uuid, TopicImage> finalTopics = topicsById == null ? base.topicsById() : topicsById;
    if (!partitionEdits.isEmpty()) {
      HashMap<Uuid, TopicImage> withEdits = topicsById();
      for (Map.Entry<Uuid, TreeMap<Integer, PartitionImage>> e : partitionEdits.entrySet()) {
        TopicImage topic = withEdits.get(e.getKey());
        withEdits.put(e.getKey(), new TopicImage(topic.name(), topic.id(), e.getValue()));
      }
      finalTopics = withEdits;
    }
    return new MetadataImage(
        offset,
        brokers == null ? base.brokers() : Collections.unmodifiableMap(brokers),
        finalTopics == base.topicsById() ? finalTopics : Collections.unmodifiableMap(finalTopics),
        topicIdsByName == null
            ? base.topicIdsByName()
            : Collections.unmodifiableMap(topicIdsByName),
        configs == null ? base.allConfigs() : freezeConfigs(configs),
        nextProducerId,
        clusterId,
        acls == null ? base.acls() : AclIndex.of(acls.values()),
        scram == null ? base.scramCredentials() : Collections.unmodifiableMap(scram),
        clientQuotas == null ? base.clientQuotas() : Collections.unmodifiableMap(clientQuotas),
        features == null ? base.features() : Collections.unmodifiableMap(features));
  }

  // ---- client quotas

  private void replayClientQuota(ClientQuotaRecord r) {
    if (r.entity().isEmpty()) {
      throw refuse(r, "a client quota entity needs at least one type");
    }
    if (!r.remove() && !(r.value() > 0)) {
      throw refuse(r, "a client quota must be positive");
    }
    if (clientQuotas == null) {
      clientQuotas = new HashMap<>(base.clientQuotas());
    }
    Map<String, Double> ofEntity = new TreeMap<>(clientQuotas.getOrDefault(r.entity(), Map.of()));
    if (r.remove()) {
      ofEntity.remove(r.key());
    } else {
      ofEntity.put(r.key(), r.value());
    }
    if (ofEntity.isEmpty()) {
      clientQuotas.remove(r.entity());
    } else {
      clientQuotas.put(r.entity(), Collections.unmodifiableMap(ofEntity));
    }
  }

  private TreeMap<String, Map<Byte, UserScramCredentialRecord>> scram() {
    if (scram == null) {
      scram = new TreeMap<>(base.scramCredentials());
    }
    return scram;
  }

  // ---- brokers

  private void replayRegisterBroker(RegisterBrokerRecord r) {
    if (r.brokerId() < 0) {
      throw refuse(r, "broker id must not be negative");
    }
    BrokerRegistration existing = brokers().get(r.brokerId());
    if (existing != null && r.brokerEpoch() <= existing.epoch()) {
      throw refuse(r, "broker epoch must grow beyond the current " + existing.epoch());
    }
    brokers()
        .put(
            r.brokerId(),
            new BrokerRegistration(
                r.brokerId(),
                r.incarnationId(),
                r.brokerEpoch(),
                r.endpoints(),
                r.rack(),
                r.fenced()));
  }

  private BrokerRegistration currentBroker(int brokerId, long epoch, MetadataRecord r) {
    BrokerRegistration b = (brokers == null ? base.brokers() : brokers).get(brokerId);
    if (b == null) {
      throw refuse(r, "broker " + brokerId + " is not registered");
    }
    if (b.epoch() != epoch) {
      throw refuse(r, "broker " + brokerId + " has epoch " + b.epoch());
    }
    return b;
  }

  private TreeMap<Integer, BrokerRegistration> brokers() {
    if (brokers == null) {
      brokers = new TreeMap<>(base.brokers());
    }
    return brokers;
  }

  // ---- topics and partitions

  private void replayTopic(TopicRecord r) {
    if (r.topicId().equals(Uuid.ZERO_UUID)) {
      throw refuse(r, "the zero topic id is reserved");
    }
    if (topicIdsByName().containsKey(r.name())) {
      throw refuse(r, "a topic named " + r.name() + " exists");
    }
    if (topicsById().containsKey(r.topicId())) {
      throw refuse(r, "a topic with id " + r.topicId() + " exists");
    }
    topicsById().put(r.topicId(), new TopicImage(r.name(), r.topicId(), Map.of()));
    topicIdsByName().put(r.name(), r.topicId());
  }

  private void replayRemoveTopic(RemoveTopicRecord r) {
    TopicImage topic = topicsById().remove(r.topicId());
    if (topic == null) {
      throw refuse(r, "no topic has id " + r.topicId());
    }
    topicIdsByName().remove(topic.name());
    partitionEdits.remove(r.topicId());
    Map<String, Map<String, String>> topicConfigs = configs().get(ConfigResource.Type.TOPIC);
    if (topicConfigs != null) {
      topicConfigs.remove(topic.name());
      if (topicConfigs.isEmpty()) {
        configs().remove(ConfigResource.Type.TOPIC);
      }
    }
  }

  private void replayPartition(PartitionRecord r) {
    TreeMap<Integer, PartitionImage> partitions = editPartitions(r.topicId(), r);
    if (r.partitionId() != partitions.size()) {
      throw refuse(r, "partition ids must be added in order; the next one is " + partitions.size());
    }
    if (r.leaderEpoch() < 0 || r.partitionEpoch() < 0) {
      throw refuse(r, "epochs must not be negative");
    }
    checkPlacement(r, r.replicas(), r.isr(), r.leader());
    checkReassignment(r, r.replicas(), r.addingReplicas(), r.removingReplicas());
    checkElr(r, r.replicas(), r.isr(), r.eligibleLeaderReplicas(), r.lastKnownElr());
    partitions.put(
        r.partitionId(),
        new PartitionImage(
            r.replicas(),
            r.isr(),
            r.leader(),
            r.leaderEpoch(),
            r.partitionEpoch(),
            r.addingReplicas(),
            r.removingReplicas(),
            r.eligibleLeaderReplicas(),
            r.lastKnownElr()));
  }

  private void replayPartitionChange(PartitionChangeRecord r) {
    TreeMap<Integer, PartitionImage> partitions = editPartitions(r.topicId(), r);
    PartitionImage current = partitions.get(r.partitionId());
    if (current == null) {
      throw refuse(r, "partition " + r.partitionId() + " does not exist");
    }
    List<Integer> replicas = r.replicas().orElse(current.replicas());
    List<Integer> isr = r.isr().orElse(current.isr());
    int leader = r.leader().orElse(current.leader());
    List<Integer> adding = r.addingReplicas().orElse(current.addingReplicas());
    List<Integer> removing = r.removingReplicas().orElse(current.removingReplicas());
    List<Integer> elr = r.eligibleLeaderReplicas().orElse(current.eligibleLeaderReplicas());
    List<Integer> lastKnownElr = r.lastKnownElr().orElse(current.lastKnownElr());
    checkPlacement(r, replicas, isr, leader);
    checkReassignment(r, replicas, adding, removing);
    checkElr(r, replicas, isr, elr, lastKnownElr);
    boolean replicaDropped = !new HashSet<>(replicas).containsAll(current.replicas());
    int leaderEpoch =
        leader != current.leader() || replicaDropped
            ? current.leaderEpoch() + 1
            : current.leaderEpoch();
    partitions.put(
        r.partitionId(),
        new PartitionImage(
            replicas,
            isr,
            leader,
            leaderEpoch,
            current.partitionEpoch() + 1,
            adding,
            removing,
            elr,
            lastKnownElr));
  }

  /**
   * The ELR holds distinct replicas outside the ISR; the last known ELR names at most one replica
   * (the last known leader).
   */
  private static void checkElr(
      MetadataRecord r,
      List<Integer> replicas,
      List<Integer> isr,
      List<Integer> elr,
      List<Integer> lastKnownElr) {
    Set<Integer> elrSet = new HashSet<>(elr);
    if (elrSet.size() != elr.size() || !replicas.containsAll(elrSet)) {
      throw refuse(r, "eligible leader replicas must be distinct replicas");
    }
    for (int member : isr) {
      if (elrSet.contains(member)) {
        throw refuse(r, "a replica cannot be both in the ISR and eligible leader replica");
      }
    }
    if (lastKnownElr.size() > 1 || !replicas.containsAll(lastKnownElr)) {
      throw refuse(r, "the last known ELR must be at most one replica");
    }
  }

  /** Adding and removing replicas are disjoint, distinct members of the replicas. */
  private static void checkReassignment(
      MetadataRecord r, List<Integer> replicas, List<Integer> adding, List<Integer> removing) {
    Set<Integer> addingSet = new HashSet<>(adding);
    Set<Integer> removingSet = new HashSet<>(removing);
    if (addingSet.size() != adding.size() || removingSet.size() != removing.size()) {
      throw refuse(r, "adding and removing replicas must be distinct");
    }
    if (!replicas.containsAll(addingSet) || !replicas.containsAll(removingSet)) {
      throw refuse(r, "adding and removing replicas must be replicas");
    }
    addingSet.retainAll(removingSet);
    if (!addingSet.isEmpty()) {
      throw refuse(r, "a replica cannot be both added and removed");
    }
    if (adding.size() >= replicas.size() || removing.size() >= replicas.size()) {
      throw refuse(r, "a reassignment needs at least one original and one target replica");
    }
  }

  private static void checkPlacement(
      MetadataRecord r, List<Integer> replicas, List<Integer> isr, int leader) {
    if (replicas.isEmpty()) {
      throw refuse(r, "a partition needs at least one replica");
    }
    Set<Integer> replicaSet = new HashSet<>(replicas);
    if (replicaSet.size() != replicas.size()) {
      throw refuse(r, "replicas must be distinct");
    }
    for (int replica : replicas) {
      if (replica < 0) {
        throw refuse(r, "replica ids must not be negative");
      }
    }
    if (new HashSet<>(isr).size() != isr.size() || !replicaSet.containsAll(isr)) {
      throw refuse(r, "the ISR must be distinct replicas");
    }
    if (leader != PartitionImage.NO_LEADER && !isr.contains(leader)) {
      throw refuse(r, "the leader must be in the ISR");
    }
  }

  private TreeMap<Integer, PartitionImage> editPartitions(Uuid topicId, MetadataRecord r) {
    TreeMap<Integer, PartitionImage> edits = partitionEdits.get(topicId);
    if (edits != null) {
      return edits;
    }
    TopicImage topic = (topicsById == null ? base.topicsById() : topicsById).get(topicId);
    if (topic == null) {
      throw refuse(r, "no topic has id " + topicId);
    }
    edits = new TreeMap<>(topic.partitions());
    partitionEdits.put(topicId, edits);
    return edits;
  }

  private HashMap<Uuid, TopicImage> topicsById() {
    if (topicsById == null) {
      topicsById = new HashMap<>(base.topicsById());
    }
    return topicsById;
  }

  private TreeMap<String, Uuid> topicIdsByName() {
    if (topicIdsByName == null) {
      topicIdsByName = new TreeMap<>(base.topicIdsByName());
    }
    return topicIdsByName;
  }

  // ---- configs

  private void replayConfig(ConfigRecord r) {
    if (r.resourceType() == ConfigResource.Type.TOPIC
        && !(topicIdsByName == null ? base.topicIdsByName() : topicIdsByName)
            .containsKey(r.resourceName())) {
      throw refuse(r, "no topic is named " + r.resourceName());
    }
    if (r.resourceType() == ConfigResource.Type.BROKER && !isBrokerResourceName(r.resourceName())) {
      throw refuse(r, "a broker config resource is a broker id or empty");
    }
    Map<ConfigResource.Type, Map<String, Map<String, String>>> all = configs();
    if (r.value() == null) {
      Map<String, Map<String, String>> ofType = all.get(r.resourceType());
      Map<String, String> ofResource = ofType == null ? null : ofType.get(r.resourceName());
      if (ofResource != null) {
        ofResource.remove(r.name());
        if (ofResource.isEmpty()) {
          ofType.remove(r.resourceName());
        }
        if (ofType.isEmpty()) {
          all.remove(r.resourceType());
        }
      }
    } else {
      all.computeIfAbsent(r.resourceType(), t -> new TreeMap<>())
          .computeIfAbsent(r.resourceName(), n -> new TreeMap<>())
          .put(r.name(), r.value());
    }
  }

  /** {@code ""} (the cluster default) or the decimal id of a broker. */
  static boolean isBrokerResourceName(String name) {
    if (name.isEmpty()) {
      return true;
    }
    try {
      return Integer.parseInt(name) >= 0 && String.valueOf(Integer.parseInt(name)).equals(name);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private Map<ConfigResource.Type, Map<String, Map<String, String>>> configs() {
    if (configs == null) {
      configs = MetadataImage.emptyConfigs();
      for (Map.Entry<ConfigResource.Type, Map<String, Map<String, String>>> byType :
          base.allConfigs().entrySet()) {
        Map<String, Map<String, String>> copy = new TreeMap<>();
        byType.getValue().forEach((name, values) -> copy.put(name, new TreeMap<>(values)));
        configs.put(byType.getKey(), copy);
      }
    }
    return configs;
  }

  private static Map<ConfigResource.Type, Map<String, Map<String, String>>> freezeConfigs(
      Map<ConfigResource.Type, Map<String, Map<String, String>>> mutable) {
    Map<ConfigResource.Type, Map<String, Map<String, String>>> frozen =
        MetadataImage.emptyConfigs();
    for (Map.Entry<ConfigResource.Type, Map<String, Map<String, String>>> byType :
        mutable.entrySet()) {
      Map<String, Map<String, String>> ofType = new TreeMap<>();
      byType
          .getValue()
          .forEach((name, values) -> ofType.put(name, Collections.unmodifiableMap(values)));
      frozen.put(byType.getKey(), Collections.unmodifiableMap(ofType));
    }
    return Collections.unmodifiableMap(frozen);
  }

  // ---- ACLs

  private void replayAcl(AccessControlEntryRecord r) {
    StandardAcl acl;
    try {
      acl = StandardAcl.fromRecord(r);
    } catch (IllegalArgumentException e) {
      throw refuse(r, e.getMessage());
    }
    if (acls().putIfAbsent(r.id(), acl) != null) {
      throw refuse(r, "an ACL with this id exists");
    }
  }

  private LinkedHashMap<Uuid, StandardAcl> acls() {
    if (acls == null) {
      acls = new LinkedHashMap<>(base.acls().byId());
    }
    return acls;
  }

  private static IllegalStateException refuse(MetadataRecord r, String why) {
    return new IllegalStateException("cannot apply " + r + ": " + why);
  }
}
