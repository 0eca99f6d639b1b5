package io.brook.broker.api;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeCluster (Admin.describeCluster): cluster id, controller, and the brokers. */
public final class DescribeClusterHandler extends KafkaApi {
  /** DescribeCluster endpoint types (KIP-919): 1 = brokers, 2 = controllers. */
  private static final byte BROKERS = 1;

  private final BrokerIdentity identity;
  private final ReplicaManager replicaManager;

  public DescribeClusterHandler(BrokerIdentity identity, ReplicaManager replicaManager) {
    super(ApiKeys.DESCRIBE_CLUSTER);
    this.identity = identity;
    this.replicaManager = replicaManager;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    DescribeClusterRequestData request = (DescribeClusterRequestData) message;
    DescribeClusterResponseData response =
        new DescribeClusterResponseData()
            .setClusterId(identity.clusterId())
            .setControllerId(identity.controllerId())
            .setEndpointType(BROKERS)
            .setClusterAuthorizedOperations(Integer.MIN_VALUE);
    if (request.endpointType() != BROKERS && request.endpointType() != 0) {
      return CompletableFuture.completedFuture(
          response
              .setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
              .setErrorMessage("only broker endpoints are served"));
    }
    for (BrokerRegistration broker : replicaManager.image().brokers().values()) {
      if (broker.fenced() && !request.includeFencedBrokers()) {
        continue;
      }
      for (BrokerEndpoint endpoint : broker.endpoints()) {
        if (endpoint.listenerName().equals(context.listenerName())) {
          response
              .brokers()
              .add(
                  new DescribeClusterBroker()
                      .setBrokerId(broker.id())
                      .setHost(endpoint.host())
                      .setPort(endpoint.port())
                      .setRack(broker.rack().orElse(null))
                      .setIsFenced(broker.fenced()));
        }
      }
    }
    return CompletableFuture.completedFuture(response);
  }
}
