package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.AutoTopicCreator;
import io.brook.broker.admin.ConfigDescriber;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.protocol.ApiHandler;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The Kafka APIs the broker answers from its own replicas and metadata: the data plane, the
 * describe APIs and the transaction markers. The coordinators' APIs are {@code GroupApis} and
 * {@code TxnApis}; the admin APIs the controller decides are the controller's, which the broker
 * forwards.
 */
public final class BrokerApis {
  private BrokerApis() {}

  public static List<ApiHandler> handlers(
      BrokerIdentity identity,
      ReplicaManager replicaManager,
      DiskWork disk,
      AutoTopicCreator autoCreate,
      ConfigDescriber describer,
      List<Path> logDirs,
      ReadReplicaSelector readReplicas,
      int fetchMaxBytes,
      FetchSessions fetchSessions,
      List<CoordinatorMarkerWriter> markerWriters,
      Optional<TxnPartitionVerifier> txnVerifier) {
    return List.of(
        new ProduceHandler(replicaManager, disk, txnVerifier),
        new FetchHandler(replicaManager, readReplicas, fetchMaxBytes, fetchSessions),
        new ListOffsetsHandler(replicaManager, disk),
        new MetadataHandler(identity, replicaManager, autoCreate),
        new DescribeTopicPartitionsHandler(replicaManager),
        new OffsetForLeaderEpochHandler(replicaManager),
        new DeleteRecordsHandler(replicaManager),
        new DescribeProducersHandler(replicaManager),
        new DescribeClusterHandler(identity, replicaManager),
        new WriteTxnMarkersHandler(replicaManager, markerWriters, disk),
        new DescribeLogDirsHandler(replicaManager, logDirs),
        new DescribeConfigsHandler(identity, replicaManager, describer));
  }
}
