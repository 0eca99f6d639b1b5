package io.brook.broker.auth;

import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Kafka's per-entry answers for the requests that name several groups, transactional ids or topics:
 * each entry is checked on its own, a denied one is taken out of the request and answered with its
 * own authorization error, and the rest are served. The resources a request names as a whole (the
 * group of an OffsetCommit, the transactional id of a TxnOffsetCommit) stay with {@link
 * ApiAuthorization}'s whole-request check, as in Kafka.
 *
 * <p>AddPartitionsToTxn (v0-3, from clients) is the one exception to "serve the rest": as in Kafka,
 * one denied topic fails the whole transaction's request, the denied partitions answered
 * TOPIC_AUTHORIZATION_FAILED and the others OPERATION_NOT_ATTEMPTED.
 */
final class PerEntryAuthorization {
  /** Adds the denied entries to the handler's response. */
  interface Denied {
    /** Nothing was denied. */
    Denied NONE = response -> {};

    void addTo(ApiMessage response);
  }

  /**
   * Removes the entries of {@code request} the principal may not act on, and returns how to answer
   * them.
   */
  static Denied split(
      ApiKeys api,
      ApiMessage request,
      RequestContext context,
      RequestAuthorizer authorizer,
      Function<Uuid, String> topicNames) {
    Checker check = new Checker(context, authorizer);
    return switch (api) {
      case DESCRIBE_GROUPS -> describeGroups((DescribeGroupsRequestData) request, check);
      case DELETE_GROUPS -> deleteGroups((DeleteGroupsRequestData) request, check);
      case CONSUMER_GROUP_DESCRIBE ->
          consumerGroupDescribe((ConsumerGroupDescribeRequestData) request, check);
      case FIND_COORDINATOR -> findCoordinator((FindCoordinatorRequestData) request, check);
      case DESCRIBE_TRANSACTIONS ->
          describeTransactions((DescribeTransactionsRequestData) request, check);
      case OFFSET_FETCH -> offsetFetch((OffsetFetchRequestData) request, check);
      case OFFSET_COMMIT -> offsetCommit((OffsetCommitRequestData) request, check, topicNames);
      case TXN_OFFSET_COMMIT ->
          txnOffsetCommit((TxnOffsetCommitRequestData) request, check, topicNames);
      case OFFSET_DELETE -> offsetDelete((OffsetDeleteRequestData) request, check);
      case ALTER_SHARE_GROUP_OFFSETS ->
          alterShareGroupOffsets((AlterShareGroupOffsetsRequestData) request, check);
      case DELETE_SHARE_GROUP_OFFSETS ->
          deleteShareGroupOffsets((DeleteShareGroupOffsetsRequestData) request, check);
      case DELETE_RECORDS -> deleteRecords((DeleteRecordsRequestData) request, check);
      case DESCRIBE_PRODUCERS -> describeProducers((DescribeProducersRequestData) request, check);
      case OFFSET_FOR_LEADER_EPOCH ->
          offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request, check);
      case ADD_PARTITIONS_TO_TXN ->
          addPartitionsToTxn((AddPartitionsToTxnRequestData) request, check);
      default -> Denied.NONE;
    };
  }

  /** Whether the API's entries are checked here rather than as a whole. */
  static boolean handles(ApiKeys api, ApiMessage request) {
    return switch (api) {
      case DESCRIBE_GROUPS,
          DELETE_GROUPS,
          CONSUMER_GROUP_DESCRIBE,
          DESCRIBE_TRANSACTIONS,
          OFFSET_COMMIT,
          TXN_OFFSET_COMMIT,
          OFFSET_DELETE,
          ALTER_SHARE_GROUP_OFFSETS,
          DELETE_SHARE_GROUP_OFFSETS,
          DELETE_RECORDS,
          DESCRIBE_PRODUCERS,
          OFFSET_FOR_LEADER_EPOCH ->
          true;
      // v4+ batches come from brokers, checked whole for CLUSTER_ACTION
      case ADD_PARTITIONS_TO_TXN ->
          ((AddPartitionsToTxnRequestData) request).transactions().isEmpty();
      case FIND_COORDINATOR -> !((FindCoordinatorRequestData) request).coordinatorKeys().isEmpty();
      case OFFSET_FETCH -> !((OffsetFetchRequestData) request).groups().isEmpty();
      default -> false;
    };
  }

  /**
   * Whether the handler has anything left to do once the denied entries are out (if not, the
   * response is the API's empty one plus the denied entries).
   */
  static boolean anythingLeft(ApiKeys api, ApiMessage request) {
    return switch (api) {
      case DESCRIBE_GROUPS -> !((DescribeGroupsRequestData) request).groups().isEmpty();
      case DELETE_GROUPS -> !((DeleteGroupsRequestData) request).groupsNames().isEmpty();
      case CONSUMER_GROUP_DESCRIBE ->
          !((ConsumerGroupDescribeRequestData) request).groupIds().isEmpty();
      case FIND_COORDINATOR -> !((FindCoordinatorRequestData) request).coordinatorKeys().isEmpty();
      case DESCRIBE_TRANSACTIONS ->
          !((DescribeTransactionsRequestData) request).transactionalIds().isEmpty();
      case OFFSET_FETCH -> !((OffsetFetchRequestData) request).groups().isEmpty();
      case DELETE_RECORDS -> !((DeleteRecordsRequestData) request).topics().isEmpty();
      case DESCRIBE_PRODUCERS -> !((DescribeProducersRequestData) request).topics().isEmpty();
      case OFFSET_FOR_LEADER_EPOCH ->
          !((OffsetForLeaderEpochRequestData) request).topics().isEmpty();
      case ADD_PARTITIONS_TO_TXN ->
          !((AddPartitionsToTxnRequestData) request).v3AndBelowTopics().isEmpty();
      // commits and OffsetDelete: the group is still checked and answered with no topics left
      default -> true;
    };
  }

  /** The API's response with nothing in it, for a request whose every entry was denied. */
  static ApiMessage emptyResponse(ApiKeys api) {
    return switch (api) {
      case DESCRIBE_GROUPS -> new DescribeGroupsResponseData();
      case DELETE_GROUPS -> new DeleteGroupsResponseData();
      case CONSUMER_GROUP_DESCRIBE -> new ConsumerGroupDescribeResponseData();
      case FIND_COORDINATOR -> new FindCoordinatorResponseData();
      case DESCRIBE_TRANSACTIONS -> new DescribeTransactionsResponseData();
      case OFFSET_FETCH -> new OffsetFetchResponseData();
      case DELETE_RECORDS -> new DeleteRecordsResponseData();
      case DESCRIBE_PRODUCERS -> new DescribeProducersResponseData();
      case OFFSET_FOR_LEADER_EPOCH -> new OffsetForLeaderEpochResponseData();
      case ADD_PARTITIONS_TO_TXN -> new AddPartitionsToTxnResponseData();
      default -> throw new IllegalArgumentException("no per-entry answer for " + api);
    };
  }

  private static Denied describeGroups(DescribeGroupsRequestData request, Checker check) {
    List<String> denied = check.removeDenied(request.groups(), AclOperation.DESCRIBE, GROUP);
    return message -> {
      DescribeGroupsResponseData response = (DescribeGroupsResponseData) message;
      response.setGroups(new ArrayList<>(response.groups())); // the handler's may be immutable
      denied.forEach(
          g ->
              response
                  .groups()
                  .add(
                      new DescribeGroupsResponseData.DescribedGroup()
                          .setGroupId(g)
                          .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
    };
  }

  private static Denied consumerGroupDescribe(
      ConsumerGroupDescribeRequestData request, Checker check) {
    List<String> denied = check.removeDenied(request.groupIds(), AclOperation.DESCRIBE, GROUP);
    return message -> {
      ConsumerGroupDescribeResponseData response = (ConsumerGroupDescribeResponseData) message;
      response.setGroups(new ArrayList<>(response.groups()));
      denied.forEach(
          g ->
              response
                  .groups()
                  .add(
                      new ConsumerGroupDescribeResponseData.DescribedGroup()
                          .setGroupId(g)
                          .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
    };
  }

  private static Denied deleteGroups(DeleteGroupsRequestData request, Checker check) {
    List<String> denied = check.removeDenied(request.groupsNames(), AclOperation.DELETE, GROUP);
    return response ->
        denied.forEach(
            g ->
                ((DeleteGroupsResponseData) response)
                    .results()
                    .add(
                        new DeleteGroupsResponseData.DeletableGroupResult()
                            .setGroupId(g)
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
  }

  private static Denied findCoordinator(FindCoordinatorRequestData request, Checker check) {
    boolean txn = request.keyType() == CoordinatorType.TRANSACTION.id();
    Errors error =
        txn ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : Errors.GROUP_AUTHORIZATION_FAILED;
    List<String> denied =
        check.removeDenied(
            request.coordinatorKeys(),
            AclOperation.DESCRIBE,
            txn ? ResourceType.TRANSACTIONAL_ID : GROUP);
    return message -> {
      FindCoordinatorResponseData response = (FindCoordinatorResponseData) message;
      response.setCoordinators(new ArrayList<>(response.coordinators()));
      denied.forEach(
          key ->
              response
                  .coordinators()
                  .add(
                      new FindCoordinatorResponseData.Coordinator()
                          .setKey(key)
                          .setNodeId(-1)
                          .setHost("")
                          .setPort(-1)
                          .setErrorCode(error.code())
                          .setErrorMessage(error.message())));
    };
  }

  private static Denied describeTransactions(
      DescribeTransactionsRequestData request, Checker check) {
    List<String> denied =
        check.removeDenied(
            request.transactionalIds(), AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID);
    return message -> {
      DescribeTransactionsResponseData response = (DescribeTransactionsResponseData) message;
      response.setTransactionStates(new ArrayList<>(response.transactionStates()));
      denied.forEach(
          id ->
              response
                  .transactionStates()
                  .add(
                      new DescribeTransactionsResponseData.TransactionState()
                          .setTransactionalId(id)
                          .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())));
    };
  }

  /**
   * A batched OffsetFetch (v8+): a group the principal may not describe is answered with
   * GROUP_AUTHORIZATION_FAILED; within an allowed group, the topics it may not describe are left
   * out of the request and answered per partition with TOPIC_AUTHORIZATION_FAILED.
   */
  private static Denied offsetFetch(OffsetFetchRequestData request, Checker check) {
    List<String> deniedGroups = new ArrayList<>();
    List<Consumer<OffsetFetchResponseData>> deniedTopics = new ArrayList<>();
    for (Iterator<OffsetFetchRequestData.OffsetFetchRequestGroup> it = request.groups().iterator();
        it.hasNext(); ) {
      OffsetFetchRequestData.OffsetFetchRequestGroup group = it.next();
      if (!check.allowed(AclOperation.DESCRIBE, GROUP, group.groupId())) {
        deniedGroups.add(group.groupId());
        it.remove();
        continue;
      }
      if (group.topics() == null) {
        continue; // all of the group's topics: the handler lists what it has
      }
      List<OffsetFetchResponseData.OffsetFetchResponseTopics> denied = new ArrayList<>();
      group
          .topics()
          .removeIf(
              t -> {
                if (t.name() == null
                    || t.name().isEmpty()
                    || check.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name())) {
                  return false;
                }
                OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                    new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setName(t.name())
                        .setTopicId(t.topicId());
                for (int partition : t.partitionIndexes()) {
                  topic
                      .partitions()
                      .add(
                          new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                              .setPartitionIndex(partition)
                              .setCommittedOffset(-1)
                              .setMetadata("")
                              .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
                denied.add(topic);
                return true;
              });
      if (!denied.isEmpty()) {
        String groupId = group.groupId();
        deniedTopics.add(
            response ->
                response.groups().stream()
                    .filter(g -> g.groupId().equals(groupId))
                    .findFirst()
                    .ifPresent(
                        g -> {
                          List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics =
                              new ArrayList<>(g.topics());
                          topics.addAll(denied);
                          g.setTopics(topics);
                        }));
      }
    }
    return message -> {
      OffsetFetchResponseData response = (OffsetFetchResponseData) message;
      response.setGroups(new ArrayList<>(response.groups()));
      deniedTopics.forEach(add -> add.accept(response));
      deniedGroups.forEach(
          g ->
              response
                  .groups()
                  .add(
                      new OffsetFetchResponseData.OffsetFetchResponseGroup()
                          .setGroupId(g)
                          .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
    };
  }

  /** OffsetCommit: each topic needs READ; a denied one is answered per partition. */
  private static Denied offsetCommit(
      OffsetCommitRequestData request, Checker check, Function<Uuid, String> topicNames) {
    List<OffsetCommitResponseData.OffsetCommitResponseTopic> denied =
        check.removeDeniedTopics(
            request.topics(),
            t -> t.name(),
            t -> t.topicId(),
            topicNames,
            t ->
                new OffsetCommitResponseData.OffsetCommitResponseTopic()
                    .setName(t.name())
                    .setTopicId(t.topicId())
                    .setPartitions(
                        t.partitions().stream()
                            .map(
                                p ->
                                    new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex())
                                        .setErrorCode(TOPIC_DENIED))
                            .toList()));
    return message -> {
      OffsetCommitResponseData response = (OffsetCommitResponseData) message;
      response.setTopics(concat(response.topics(), denied));
    };
  }

  /** TxnOffsetCommit: as OffsetCommit, each topic needs READ. */
  private static Denied txnOffsetCommit(
      TxnOffsetCommitRequestData request, Checker check, Function<Uuid, String> topicNames) {
    List<TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic> denied =
        check.removeDeniedTopics(
            request.topics(),
            t -> t.name(),
            t -> t.topicId(),
            topicNames,
            t ->
                new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic()
                    .setName(t.name())
                    .setTopicId(t.topicId())
                    .setPartitions(
                        t.partitions().stream()
                            .map(
                                p ->
                                    new TxnOffsetCommitResponseData
                                            .TxnOffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex())
                                        .setErrorCode(TOPIC_DENIED))
                            .toList()));
    return message -> {
      TxnOffsetCommitResponseData response = (TxnOffsetCommitResponseData) message;
      response.setTopics(concat(response.topics(), denied));
    };
  }

  /** OffsetDelete: the group is checked whole; each topic needs READ, answered per partition. */
  private static Denied offsetDelete(OffsetDeleteRequestData request, Checker check) {
    List<OffsetDeleteResponseData.OffsetDeleteResponseTopic> denied =
        check.removeDeniedByName(
            AclOperation.READ,
            request.topics(),
            t -> t.name(),
            t ->
                eachPartition(
                    t.partitions(),
                    new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name()),
                    OffsetDeleteResponseData.OffsetDeleteResponseTopic::partitions,
                    p ->
                        new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                            .setPartitionIndex(p.partitionIndex())
                            .setErrorCode(TOPIC_DENIED)));
    return message -> {
      OffsetDeleteResponseData response = (OffsetDeleteResponseData) message;
      if (response.errorCode() == Errors.NONE.code()) { // a group error answers alone, as Kafka
        denied.forEach(t -> response.topics().add(t));
      }
    };
  }

  /**
   * AlterShareGroupOffsets: the group is checked whole (READ); each topic needs READ, answered per
   * partition.
   */
  private static Denied alterShareGroupOffsets(
      AlterShareGroupOffsetsRequestData request, Checker check) {
    List<AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic> denied =
        check.removeDeniedByName(
            AclOperation.READ,
            request.topics(),
            t -> t.topicName(),
            t ->
                eachPartition(
                    t.partitions(),
                    new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                        .setTopicName(t.topicName()),
                    AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic
                        ::partitions,
                    p ->
                        new AlterShareGroupOffsetsResponseData
                                .AlterShareGroupOffsetsResponsePartition()
                            .setPartitionIndex(p.partitionIndex())
                            .setErrorCode(TOPIC_DENIED)
                            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message())));
    return message -> {
      AlterShareGroupOffsetsResponseData response = (AlterShareGroupOffsetsResponseData) message;
      if (response.errorCode() == Errors.NONE.code()) { // a group error answers alone
        denied.forEach(t -> response.responses().add(t));
      }
    };
  }

  /**
   * DeleteShareGroupOffsets: the group is checked whole (DELETE); each topic needs READ, answered
   * per topic.
   */
  private static Denied deleteShareGroupOffsets(
      DeleteShareGroupOffsetsRequestData request, Checker check) {
    List<DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic> denied =
        check.removeDeniedByName(
            AclOperation.READ,
            request.topics(),
            t -> t.topicName(),
            t ->
                new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                    .setTopicName(t.topicName())
                    .setErrorCode(TOPIC_DENIED)
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
    return message -> {
      DeleteShareGroupOffsetsResponseData response = (DeleteShareGroupOffsetsResponseData) message;
      if (response.errorCode() == Errors.NONE.code()) { // a group error answers alone
        response.setResponses(concat(response.responses(), denied));
      }
    };
  }

  /** DeleteRecords: each topic needs DELETE; a denied one is answered per partition. */
  private static Denied deleteRecords(DeleteRecordsRequestData request, Checker check) {
    List<DeleteRecordsResponseData.DeleteRecordsTopicResult> denied =
        check.removeDeniedByName(
            AclOperation.DELETE,
            request.topics(),
            t -> t.name(),
            t ->
                eachPartition(
                    t.partitions(),
                    new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(t.name()),
                    DeleteRecordsResponseData.DeleteRecordsTopicResult::partitions,
                    p ->
                        new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                            .setPartitionIndex(p.partitionIndex())
                            .setLowWatermark(-1)
                            .setErrorCode(TOPIC_DENIED)));
    return message -> denied.forEach(t -> ((DeleteRecordsResponseData) message).topics().add(t));
  }

  /** DescribeProducers: each topic needs READ; a denied one is answered per partition. */
  private static Denied describeProducers(DescribeProducersRequestData request, Checker check) {
    List<DescribeProducersResponseData.TopicResponse> denied =
        check.removeDeniedByName(
            AclOperation.READ,
            request.topics(),
            t -> t.name(),
            t ->
                new DescribeProducersResponseData.TopicResponse()
                    .setName(t.name())
                    .setPartitions(
                        t.partitionIndexes().stream()
                            .map(
                                p ->
                                    new DescribeProducersResponseData.PartitionResponse()
                                        .setPartitionIndex(p)
                                        .setErrorCode(TOPIC_DENIED)
                                        .setErrorMessage(
                                            Errors.TOPIC_AUTHORIZATION_FAILED.message()))
                            .toList()));
    return message -> {
      DescribeProducersResponseData response = (DescribeProducersResponseData) message;
      response.setTopics(concat(response.topics(), denied));
    };
  }

  /**
   * OffsetForLeaderEpoch: a follower (or anyone with CLUSTER_ACTION) may ask for any topic; a
   * consumer needs DESCRIBE on each, a denied one answered per partition.
   */
  private static Denied offsetForLeaderEpoch(
      OffsetForLeaderEpochRequestData request, Checker check) {
    if (check.clusterActionAllowed()) {
      return Denied.NONE;
    }
    List<OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult> denied =
        check.removeDeniedByName(
            AclOperation.DESCRIBE,
            request.topics(),
            t -> t.topic(),
            t ->
                eachPartition(
                    t.partitions(),
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                        .setTopic(t.topic()),
                    OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult::partitions,
                    p ->
                        new OffsetForLeaderEpochResponseData.EpochEndOffset()
                            .setPartition(p.partition())
                            .setErrorCode(TOPIC_DENIED)));
    return message ->
        denied.forEach(t -> ((OffsetForLeaderEpochResponseData) message).topics().add(t));
  }

  /**
   * AddPartitionsToTxn v0-3 (the transactional id is checked whole): each topic needs WRITE; if any
   * is denied nothing is added, the denied partitions answered TOPIC_AUTHORIZATION_FAILED and the
   * others OPERATION_NOT_ATTEMPTED.
   */
  private static Denied addPartitionsToTxn(AddPartitionsToTxnRequestData request, Checker check) {
    AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
        request.v3AndBelowTopics();
    boolean anyDenied = false;
    for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : topics) {
      if (!check.allowed(AclOperation.WRITE, ResourceType.TOPIC, topic.name())) {
        anyDenied = true;
      }
    }
    if (!anyDenied) {
      return Denied.NONE;
    }
    AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection results =
        new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
    for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : topics) {
      short error =
          check.allowedQuietly(AclOperation.WRITE, ResourceType.TOPIC, topic.name())
              ? Errors.OPERATION_NOT_ATTEMPTED.code()
              : TOPIC_DENIED;
      AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult result =
          new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName(topic.name());
      for (int partition : topic.partitions()) {
        result
            .resultsByPartition()
            .add(
                new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult()
                    .setPartitionIndex(partition)
                    .setPartitionErrorCode(error));
      }
      results.add(result);
    }
    request.setV3AndBelowTopics(
        new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection());
    return message ->
        ((AddPartitionsToTxnResponseData) message).setResultsByTopicV3AndBelow(results);
  }

  /** A denied topic's answer, {@code topic}, with one answer per partition of its request. */
  private static <P, T, R> T eachPartition(
      Iterable<P> partitions,
      T topic,
      Function<T, java.util.Collection<R>> answers,
      Function<P, R> answer) {
    for (P partition : partitions) {
      answers.apply(topic).add(answer.apply(partition));
    }
    return topic;
  }

  /**
   * A mutable copy of {@code answered} followed by {@code denied} (a handler's may be immutable).
   */
  private static <T> List<T> concat(List<T> answered, List<T> denied) {
    List<T> all = new ArrayList<>(answered.size() + denied.size());
    all.addAll(answered);
    all.addAll(denied);
    return all;
  }

  private static final short TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED.code();

  private static final ResourceType GROUP = ResourceType.GROUP;

  /** The authorizer, for one request's principal. */
  private record Checker(RequestContext context, RequestAuthorizer authorizer) {
    boolean allowed(AclOperation operation, ResourceType type, String name) {
      return authorizer.authorize(context, operation, type, name);
    }

    /** As {@link #allowed}, without a second audit line for a decision already logged. */
    boolean allowedQuietly(AclOperation operation, ResourceType type, String name) {
      return authorizer.authorizeQuietly(context, operation, type, name);
    }

    /** CLUSTER_ACTION on the cluster (a broker), not logged when denied. */
    boolean clusterActionAllowed() {
      return authorizer.authorizeClusterQuietly(context, AclOperation.CLUSTER_ACTION);
    }

    /** A topic named by name or id; one whose id is unknown is left to the handler. */
    boolean topicAllowed(
        AclOperation operation, String name, Uuid id, Function<Uuid, String> topicNames) {
      String resolved =
          name != null && !name.isEmpty()
              ? name
              : id == null || Uuid.ZERO_UUID.equals(id) ? null : topicNames.apply(id);
      return resolved == null || allowed(operation, ResourceType.TOPIC, resolved);
    }

    /**
     * Removes the topics the principal may not {@code READ} from {@code topics} (in place) and
     * returns their answers.
     */
    <T, R> List<R> removeDeniedTopics(
        List<T> topics,
        Function<T, String> name,
        Function<T, Uuid> id,
        Function<Uuid, String> topicNames,
        Function<T, R> answer) {
      return removeDeniedTopics(AclOperation.READ, topics, name, id, topicNames, answer);
    }

    /**
     * Removes the topics the principal may not {@code operation} from {@code topics} (in place) and
     * returns their answers.
     */
    <T, R> List<R> removeDeniedTopics(
        AclOperation operation,
        java.util.Collection<T> topics,
        Function<T, String> name,
        Function<T, Uuid> id,
        Function<Uuid, String> topicNames,
        Function<T, R> answer) {
      List<R> denied = new ArrayList<>();
      topics.removeIf(
          t -> {
            if (topicAllowed(operation, name.apply(t), id.apply(t), topicNames)) {
              return false;
            }
            denied.add(answer.apply(t));
            return true;
          });
      return denied;
    }

    /** As {@link #removeDeniedTopics}, for a request that names its topics by name only. */
    <T, R> List<R> removeDeniedByName(
        AclOperation operation,
        java.util.Collection<T> topics,
        Function<T, String> name,
        Function<T, R> answer) {
      return removeDeniedTopics(operation, topics, name, t -> null, id -> null, answer);
    }

    /** Removes the denied names from {@code names} (in place) and returns them. */
    List<String> removeDenied(List<String> names, AclOperation operation, ResourceType type) {
      List<String> denied = new ArrayList<>();
      names.removeIf(
          name -> {
            if (allowed(operation, type, name)) {
              return false;
            }
            denied.add(name);
            return true;
          });
      return denied;
    }
  }

  private PerEntryAuthorization() {}
}
