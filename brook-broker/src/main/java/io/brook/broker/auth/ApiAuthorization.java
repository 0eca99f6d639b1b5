package io.brook.broker.auth;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DelegationTokenAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Kafka's per-API authorization for the APIs whose resources a request names as a whole (a group, a
 * transactional id, the cluster), checked before the handler runs: a denied request is answered
 * with the API's own error response for the resource's authorization error (for example
 * GROUP_AUTHORIZATION_FAILED), as the network layer builds it for a failed handler. Listings
 * (ListGroups, ListTransactions) are filtered afterwards instead. The APIs that touch topics one by
 * one (Produce, Fetch, Metadata, ListOffsets, CreateTopics, DeleteTopics, CreatePartitions, the
 * config APIs) check each topic in their handler, through the same {@link RequestAuthorizer}.
 *
 * <p>Where a request names several groups, transactional ids or topics (DescribeGroups,
 * ConsumerGroupDescribe, DeleteGroups, a batched FindCoordinator or OffsetFetch,
 * DescribeTransactions, the topics of OffsetCommit and TxnOffsetCommit), {@link
 * PerEntryAuthorization} answers each denied entry with its own error and serves the rest, as Kafka
 * does; so it does for the topics of OffsetDelete, DeleteRecords, DescribeProducers,
 * OffsetForLeaderEpoch and AddPartitionsToTxn v3 and below.
 */
public final class ApiAuthorization {
  /** One resource a request needs, and the operation on it. */
  record Need(AclOperation operation, ResourceType type, String name) {
    static Need cluster(AclOperation operation) {
      return new Need(operation, ResourceType.CLUSTER, CLUSTER);
    }

    static Need group(AclOperation operation, String group) {
      return new Need(operation, ResourceType.GROUP, group);
    }

    static Need txn(AclOperation operation, String transactionalId) {
      return new Need(operation, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    static Need topic(AclOperation operation, String topic) {
      return new Need(operation, ResourceType.TOPIC, topic);
    }
  }

  private static final String CLUSTER =
      io.brook.metadata.authorizer.StandardAuthorizer.CLUSTER_NAME;

  private ApiAuthorization() {}

  /**
   * The handlers with their API's checks in front; unchanged when no authorizer is configured.
   *
   * @param topicNames a topic's name by id (null when unknown), for requests that name topics by id
   */
  public static List<ApiHandler> wrap(
      List<ApiHandler> handlers, RequestAuthorizer authorizer, Function<Uuid, String> topicNames) {
    if (!authorizer.enabled()) {
      return handlers;
    }
    List<ApiHandler> wrapped = new ArrayList<>(handlers.size());
    for (ApiHandler handler : handlers) {
      wrapped.add(new Gated(handler, authorizer, topicNames));
    }
    return wrapped;
  }

  /** A handler behind its API's checks. */
  private static final class Gated implements ApiHandler {
    private final ApiHandler handler;
    private final RequestAuthorizer authorizer;
    private final Function<Uuid, String> topicNames;

    Gated(ApiHandler handler, RequestAuthorizer authorizer, Function<Uuid, String> topicNames) {
      this.handler = handler;
      this.authorizer = authorizer;
      this.topicNames = topicNames;
    }

    @Override
    public ApiKeys apiKey() {
      return handler.apiKey();
    }

    @Override
    public short minVersion() {
      return handler.minVersion();
    }

    @Override
    public short maxVersion() {
      return handler.maxVersion();
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
      ApiException denied = check(context, request);
      if (denied != null) {
        return CompletableFuture.failedFuture(denied);
      }
      if (PerEntryAuthorization.handles(apiKey(), request)) {
        return handlePerEntry(context, request);
      }
      CompletionStage<ApiMessage> answer = handler.handle(context, request);
      return switch (apiKey()) {
        case LIST_GROUPS, LIST_TRANSACTIONS ->
            answer.thenApply(response -> filterListing(context, response));
        case DESCRIBE_SHARE_GROUP_OFFSETS ->
            answer.thenApply(response -> filterShareOffsets(context, response));
        default -> answer;
      };
    }

    /** Serves the entries the principal may act on, and answers the others with their error. */
    private CompletionStage<ApiMessage> handlePerEntry(RequestContext context, ApiMessage request) {
      PerEntryAuthorization.Denied denied =
          PerEntryAuthorization.split(apiKey(), request, context, authorizer, topicNames);
      CompletionStage<ApiMessage> answer =
          PerEntryAuthorization.anythingLeft(apiKey(), request)
              ? handler.handle(context, request)
              : CompletableFuture.completedFuture(PerEntryAuthorization.emptyResponse(apiKey()));
      return answer.thenApply(
          response -> {
            if (response != null) {
              denied.addTo(response);
            }
            return response;
          });
    }

    private ApiException check(RequestContext context, ApiMessage request) {
      if (apiKey() == ApiKeys.INIT_PRODUCER_ID
          && ((InitProducerIdRequestData) request).transactionalId() == null) {
        // An idempotent producer: IDEMPOTENT_WRITE on the cluster, or WRITE on any topic.
        return authorizer.authorizeClusterQuietly(context, AclOperation.IDEMPOTENT_WRITE)
                || authorizer.authorizeAny(context, AclOperation.WRITE, ResourceType.TOPIC)
            ? null
            : new ClusterAuthorizationException(
                "Cluster authorization failed: IDEMPOTENT_WRITE on the cluster or WRITE on a"
                    + " topic is needed");
      }
      for (Need need : needs(apiKey(), request, context, topicNames)) {
        if (!authorizer.authorize(context, need.operation(), need.type(), need.name())) {
          return denial(need);
        }
      }
      return null;
    }

    /**
     * A share group's offsets keep the topics the principal may DESCRIBE (named topics were checked
     * before; this drops those of a request for all topics, as Kafka does).
     */
    private ApiMessage filterShareOffsets(RequestContext context, ApiMessage response) {
      if (response instanceof DescribeShareGroupOffsetsResponseData offsets) {
        offsets
            .groups()
            .forEach(
                g ->
                    g.topics()
                        .removeIf(
                            t ->
                                !authorizer.authorizeQuietly(
                                    context,
                                    AclOperation.DESCRIBE,
                                    ResourceType.TOPIC,
                                    t.topicName())));
      }
      return response;
    }

    /** A listing keeps what the principal may describe (all of it with DESCRIBE on the cluster). */
    private ApiMessage filterListing(RequestContext context, ApiMessage response) {
      if (response == null || authorizer.authorizeClusterQuietly(context, AclOperation.DESCRIBE)) {
        return response;
      }
      if (response instanceof ListGroupsResponseData groups) {
        groups
            .groups()
            .removeIf(
                g ->
                    !authorizer.authorizeQuietly(
                        context, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId()));
      } else if (response instanceof ListTransactionsResponseData txns) {
        txns.transactionStates()
            .removeIf(
                t ->
                    !authorizer.authorizeQuietly(
                        context,
                        AclOperation.DESCRIBE,
                        ResourceType.TRANSACTIONAL_ID,
                        t.transactionalId()));
      }
      return response;
    }
  }

  /** The authorization error of a denied resource, with Kafka's error code for its type. */
  static ApiException denial(Need need) {
    String what = need.operation() + " on " + need.type() + ":" + need.name();
    return switch (need.type()) {
      case TOPIC -> new TopicAuthorizationException("Topic authorization failed: " + what);
      case GROUP -> new GroupAuthorizationException("Group authorization failed: " + what);
      case TRANSACTIONAL_ID ->
          new TransactionalIdAuthorizationException(
              "Transactional id authorization failed: " + what);
      case DELEGATION_TOKEN ->
          new DelegationTokenAuthorizationException(
              "Delegation token authorization failed: " + what);
      default -> new ClusterAuthorizationException("Cluster authorization failed: " + what);
    };
  }

  /** Kafka's table: what each API needs of the resources its request names as a whole. */
  static List<Need> needs(
      ApiKeys api, ApiMessage request, RequestContext context, Function<Uuid, String> topicNames) {
    List<Need> needs = new ArrayList<>(2);
    switch (api) {
      case WRITE_TXN_MARKERS,
          ALTER_PARTITION,
          BROKER_REGISTRATION,
          BROKER_HEARTBEAT,
          ALLOCATE_PRODUCER_IDS,
          ASSIGN_REPLICAS_TO_DIRS,
          CONTROLLED_SHUTDOWN,
          INITIALIZE_SHARE_GROUP_STATE,
          READ_SHARE_GROUP_STATE,
          WRITE_SHARE_GROUP_STATE,
          DELETE_SHARE_GROUP_STATE,
          READ_SHARE_GROUP_STATE_SUMMARY ->
          needs.add(Need.cluster(AclOperation.CLUSTER_ACTION));
      case DESCRIBE_CLUSTER,
          DESCRIBE_ACLS,
          LIST_PARTITION_REASSIGNMENTS,
          DESCRIBE_LOG_DIRS,
          DESCRIBE_QUORUM,
          DESCRIBE_USER_SCRAM_CREDENTIALS ->
          needs.add(Need.cluster(AclOperation.DESCRIBE));
      case CREATE_ACLS,
          DELETE_ACLS,
          ELECT_LEADERS,
          ALTER_PARTITION_REASSIGNMENTS,
          ALTER_USER_SCRAM_CREDENTIALS,
          UPDATE_FEATURES ->
          needs.add(Need.cluster(AclOperation.ALTER));
      case DESCRIBE_CLIENT_QUOTAS -> needs.add(Need.cluster(AclOperation.DESCRIBE_CONFIGS));
      case ALTER_CLIENT_QUOTAS -> needs.add(Need.cluster(AclOperation.ALTER_CONFIGS));
      case JOIN_GROUP ->
          needs.add(Need.group(AclOperation.READ, ((JoinGroupRequestData) request).groupId()));
      case SYNC_GROUP ->
          needs.add(Need.group(AclOperation.READ, ((SyncGroupRequestData) request).groupId()));
      case HEARTBEAT ->
          needs.add(Need.group(AclOperation.READ, ((HeartbeatRequestData) request).groupId()));
      case LEAVE_GROUP ->
          needs.add(Need.group(AclOperation.READ, ((LeaveGroupRequestData) request).groupId()));
      case CONSUMER_GROUP_HEARTBEAT ->
          needs.add(
              Need.group(
                  AclOperation.READ, ((ConsumerGroupHeartbeatRequestData) request).groupId()));
      case SHARE_GROUP_HEARTBEAT ->
          needs.add(
              Need.group(AclOperation.READ, ((ShareGroupHeartbeatRequestData) request).groupId()));
      case SHARE_FETCH ->
          // Each topic: READ, checked by the handler.
          needs.add(Need.group(AclOperation.READ, ((ShareFetchRequestData) request).groupId()));
      case SHARE_ACKNOWLEDGE ->
          needs.add(
              Need.group(AclOperation.READ, ((ShareAcknowledgeRequestData) request).groupId()));
      case SHARE_GROUP_DESCRIBE ->
          // All or nothing (Kafka answers per group).
          ((ShareGroupDescribeRequestData) request)
              .groupIds()
              .forEach(id -> needs.add(Need.group(AclOperation.DESCRIBE, id)));
      case DESCRIBE_SHARE_GROUP_OFFSETS ->
          // All or nothing (Kafka answers per group and topic); without topics, the topics
          // described are those the principal may DESCRIBE (filtered from the response).
          ((DescribeShareGroupOffsetsRequestData) request)
              .groups()
              .forEach(
                  g -> {
                    needs.add(Need.group(AclOperation.DESCRIBE, g.groupId()));
                    if (g.topics() != null) {
                      g.topics()
                          .forEach(
                              t -> needs.add(Need.topic(AclOperation.DESCRIBE, t.topicName())));
                    }
                  });
      case ALTER_SHARE_GROUP_OFFSETS ->
          // Each topic: PerEntryAuthorization.
          needs.add(
              Need.group(
                  AclOperation.READ, ((AlterShareGroupOffsetsRequestData) request).groupId()));
      case DELETE_SHARE_GROUP_OFFSETS ->
          // Each topic: PerEntryAuthorization.
          needs.add(
              Need.group(
                  AclOperation.DELETE, ((DeleteShareGroupOffsetsRequestData) request).groupId()));
      case OFFSET_COMMIT -> {
        OffsetCommitRequestData commit = (OffsetCommitRequestData) request;
        // Each topic: PerEntryAuthorization.
        needs.add(Need.group(AclOperation.READ, commit.groupId()));
      }
      case TXN_OFFSET_COMMIT -> {
        TxnOffsetCommitRequestData commit = (TxnOffsetCommitRequestData) request;
        needs.add(Need.txn(AclOperation.WRITE, commit.transactionalId()));
        needs.add(Need.group(AclOperation.READ, commit.groupId()));
      }
      case OFFSET_DELETE ->
          // Each topic: PerEntryAuthorization.
          needs.add(Need.group(AclOperation.DELETE, ((OffsetDeleteRequestData) request).groupId()));
      case OFFSET_FETCH -> {
        OffsetFetchRequestData fetch = (OffsetFetchRequestData) request;
        if (fetch.groups().isEmpty()) {
          needs.add(Need.group(AclOperation.DESCRIBE, fetch.groupId()));
          if (fetch.topics() != null) {
            fetch.topics().forEach(t -> needs.add(Need.topic(AclOperation.DESCRIBE, t.name())));
          }
        }
        // A batch of groups (v8+): each group and topic in PerEntryAuthorization.
      }
      case DESCRIBE_GROUPS, CONSUMER_GROUP_DESCRIBE, DELETE_GROUPS, DESCRIBE_TRANSACTIONS -> {
        // Each group or transactional id: PerEntryAuthorization.
      }
      case FIND_COORDINATOR -> {
        FindCoordinatorRequestData find = (FindCoordinatorRequestData) request;
        boolean txn = find.keyType() == CoordinatorType.TRANSACTION.id();
        if (find.coordinatorKeys().isEmpty()) { // a batch (v4+): PerEntryAuthorization
          String key = find.key();
          needs.add(
              txn ? Need.txn(AclOperation.DESCRIBE, key) : Need.group(AclOperation.DESCRIBE, key));
        }
      }
      case INIT_PRODUCER_ID ->
          needs.add(
              Need.txn(
                  AclOperation.WRITE, ((InitProducerIdRequestData) request).transactionalId()));
      case END_TXN ->
          needs.add(Need.txn(AclOperation.WRITE, ((EndTxnRequestData) request).transactionalId()));
      case ADD_OFFSETS_TO_TXN -> {
        AddOffsetsToTxnRequestData add = (AddOffsetsToTxnRequestData) request;
        needs.add(Need.txn(AclOperation.WRITE, add.transactionalId()));
        needs.add(Need.group(AclOperation.READ, add.groupId()));
      }
      case ADD_PARTITIONS_TO_TXN -> {
        AddPartitionsToTxnRequestData add = (AddPartitionsToTxnRequestData) request;
        if (context.apiVersion() >= 4) {
          // Batched verification requests come from brokers.
          needs.add(Need.cluster(AclOperation.CLUSTER_ACTION));
        } else {
          // Each topic: PerEntryAuthorization.
          needs.add(Need.txn(AclOperation.WRITE, add.v3AndBelowTransactionalId()));
        }
      }
      case DELETE_RECORDS, DESCRIBE_PRODUCERS, OFFSET_FOR_LEADER_EPOCH -> {
        // Each topic: PerEntryAuthorization.
      }
      default -> {
        // Checked per topic in the handler, or open to all (ApiVersions).
      }
    }
    return needs;
  }

  /** A topic named by name, or by id in newer versions (an unknown id is left to the handler). */
  private static void addTopic(
      List<Need> needs,
      AclOperation operation,
      String name,
      Uuid id,
      Function<Uuid, String> topicNames) {
    String resolved =
        name != null && !name.isEmpty()
            ? name
            : id == null || Uuid.ZERO_UUID.equals(id) ? null : topicNames.apply(id);
    if (resolved != null) {
      needs.add(Need.topic(operation, resolved));
    }
  }
}
