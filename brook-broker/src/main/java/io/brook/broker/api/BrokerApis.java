package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.AutoTopicCreator;
import io.brook.broker.admin.ConfigDescriber;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.quota.ReplicationQuota;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.ToIntFunction;

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
      Optional<TxnPartitionVerifier> txnVerifier,
      RequestAuthorizer authorizer,
      ToIntFunction<RequestContext> fetchQuotaWindowBytes,
      ReplicationQuota leaderThrottle) {
    return List.of(
        new ProduceHandler(replicaManager, disk, txnVerifier, authorizer),
        new FetchHandler(
            replicaManager,
            readReplicas,
            fetchMaxBytes,
            fetchSessions,
            authorizer,
            fetchQuotaWindowBytes,
            leaderThrottle),
        new ListOffsetsHandler(replicaManager, disk, authorizer),
        new MetadataHandler(identity, replicaManager, autoCreate, authorizer),
        new DescribeTopicPartitionsHandler(replicaManager, authorizer),
        new OffsetForLeaderEpochHandler(replicaManager),
        new DeleteRecordsHandler(replicaManager),
        new DescribeProducersHandler(replicaManager),
        new DescribeClusterHandler(identity, replicaManager),
        new WriteTxnMarkersHandler(replicaManager, markerWriters, disk),
        new DescribeLogDirsHandler(replicaManager, logDirs),
        new DescribeConfigsHandler(identity, replicaManager, describer, authorizer),
        new DescribeAclsHandler(authorizer, () -> replicaManager.image().acls()),
        new DescribeUserScramCredentialsHandler(replicaManager::image),
        new DescribeClientQuotasHandler(replicaManager::image));
  }
}
