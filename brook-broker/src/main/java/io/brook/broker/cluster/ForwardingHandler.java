package io.brook.broker.cluster;

import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * An admin API that the active controller decides, served on a broker listener. On the active
 * controller the handler runs here, on {@code executor} (it waits for the quorum; a Netty event
 * loop must not); anywhere else the request goes, unchanged and at the client's version, to the
 * active controller over the controller channel, like Kafka's forwarding with {@code Envelope}.
 */
public final class ForwardingHandler implements ApiHandler {
  /** Admin APIs the active controller decides; any broker accepts and forwards them. */
  public static final Set<ApiKeys> CONTROLLER_DECIDED =
      Set.of(
          ApiKeys.CREATE_TOPICS,
          ApiKeys.DELETE_TOPICS,
          ApiKeys.CREATE_PARTITIONS,
          ApiKeys.ALTER_CONFIGS,
          ApiKeys.INCREMENTAL_ALTER_CONFIGS,
          ApiKeys.ELECT_LEADERS,
          ApiKeys.UPDATE_FEATURES,
          ApiKeys.DESCRIBE_QUORUM,
          ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
          ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
          ApiKeys.ALTER_CLIENT_QUOTAS,
          // Voter changes (KIP-853): Kafka 4.x brokers forward them to the controller too.
          ApiKeys.ADD_RAFT_VOTER,
          ApiKeys.REMOVE_RAFT_VOTER,
          // Listed by the controller too, so a move is listed as soon as it is started.
          ApiKeys.LIST_PARTITION_REASSIGNMENTS,
          ApiKeys.CREATE_ACLS,
          ApiKeys.DELETE_ACLS);

  private final ApiHandler local;
  private final MetadataQuorum quorum;
  private final ControllerClient controller;
  private final Executor executor;

  public ForwardingHandler(
      ApiHandler local, MetadataQuorum quorum, ControllerClient controller, Executor executor) {
    this.local = local;
    this.quorum = quorum;
    this.controller = controller;
    this.executor = executor;
  }

  @Override
  public ApiKeys apiKey() {
    return local.apiKey();
  }

  @Override
  public short minVersion() {
    return local.minVersion();
  }

  @Override
  public short maxVersion() {
    return local.maxVersion();
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    if (quorum.isActiveController()) {
      return OffloadedHandler.runOn(executor, local, context, request);
    }
    // The client's principal and id go along: the controller authorizes the request's resources
    // and charges it to the client's controller mutation quota.
    return controller.sendAdmin(
        apiKey(),
        context.apiVersion(),
        request,
        new ControllerEnvelope.Origin(
            context.principal(), context.clientAddress().getHostAddress(), context.clientId()));
  }
}
