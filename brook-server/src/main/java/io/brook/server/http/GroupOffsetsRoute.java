package io.brook.server.http;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * {@code POST /v1/groups/{group}/offsets} (commit) and {@code GET /v1/groups/{group}/offsets}
 * (fetch): FindCoordinator, then OffsetCommit (as a client outside the group's membership commits:
 * generation -1, no member id, which the coordinator accepts while the group has no members) or
 * OffsetFetch (stable offsets), through the broker's handlers and the group coordinator. When the
 * group's coordinator is another broker, this broker's handler still checks the request (group and
 * topic ACLs) and answers NOT_COORDINATOR; the request then goes to the coordinator over the
 * inter-broker path, and the offsets it lists are narrowed to the topics the caller may describe,
 * as the coordinator's own handler would have narrowed them. Without forwarding the answer is 421
 * NOT_COORDINATOR naming the broker to ask. While the coordinator is still loading or its offsets
 * topic is being created the request is retried here, every 100 ms for up to 10 s, without holding
 * a thread.
 */
final class GroupOffsetsRoute {
  private static final long RETRY_FOR_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long BACKOFF_MS = 100;
  private static final Set<Errors> RETRIED =
      Set.of(
          Errors.COORDINATOR_LOAD_IN_PROGRESS,
          Errors.COORDINATOR_NOT_AVAILABLE,
          Errors.NOT_COORDINATOR);

  /** FindCoordinator's key type of a group (Kafka's CoordinatorType.GROUP). */
  private static final byte GROUP_KEY_TYPE = 0;

  private final InProcessApis apis;
  private final int nodeId;
  private final ScheduledExecutorService timer;
  private final AtLeader leaders;
  private final TopicRoutes topics;

  GroupOffsetsRoute(
      InProcessApis apis,
      int nodeId,
      ScheduledExecutorService timer,
      AtLeader leaders,
      TopicRoutes topics) {
    this.apis = apis;
    this.nodeId = nodeId;
    this.timer = timer;
    this.leaders = leaders;
    this.topics = topics;
  }

  /** The group's coordinator and the throttle FindCoordinator asked for. */
  private record Coordinator(int nodeId, int throttleMs) {}

  CompletableFuture<Reply> commit(
      String group, ObjectNode body, InProcessApis.Caller caller, int bodyBytes) {
    JsonNode offsets = body.get("offsets");
    if (offsets == null || !offsets.isArray() || offsets.isEmpty()) {
      throw HttpApiException.badRequest("\"offsets\" must be a non-empty array");
    }
    KafkaRequests.AdminOffsetCommit commit = KafkaRequests.adminOffsetCommit(group);
    for (int i = 0; i < offsets.size(); i++) {
      JsonNode entry = offsets.get(i);
      if (!entry.isObject()) {
        throw HttpApiException.badRequest("offsets[" + i + "] must be an object");
      }
      String topic = Json.text(entry, "topic", true);
      long partition = Json.integer(entry, "partition", -1, 0, Integer.MAX_VALUE);
      long offset = Json.integer(entry, "offset", -1, 0, Long.MAX_VALUE);
      if (partition < 0 || offset < 0) {
        throw HttpApiException.badRequest("offsets[" + i + "] needs partition and offset");
      }
      commit.add(topic, (int) partition, offset, Json.text(entry, "metadata", false));
    }
    return retrying(
        () ->
            coordinator(group, caller)
                .thenCompose(
                    coordinator ->
                        apis.<OffsetCommitResponseData>call(
                                ApiKeys.OFFSET_COMMIT,
                                (short) 9,
                                commit.request(),
                                caller,
                                bodyBytes)
                            .thenCompose(
                                local ->
                                    KafkaRequests.allNotCoordinator(local.response())
                                            && leaders.elsewhere(coordinator.nodeId())
                                        ? leaders.<OffsetCommitResponseData>node(
                                            coordinator.nodeId(),
                                            ApiKeys.OFFSET_COMMIT,
                                            commit.request(leaders::topicId),
                                            0,
                                            false,
                                            local.throttleMs())
                                        : CompletableFuture.completedFuture(local))
                            .thenApply(answer -> committed(answer, coordinator.throttleMs()))),
        System.nanoTime() + RETRY_FOR_NANOS);
  }

  private Reply committed(InProcessApis.Answer<OffsetCommitResponseData> answer, int throttle) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ArrayNode out = root.putArray("offsets");
    Errors retriable = null;
    boolean allRetriable = true;
    for (OffsetCommitResponseData.OffsetCommitResponseTopic t : answer.response().topics()) {
      for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
        ObjectNode node =
            out.addObject()
                .put("topic", leaders.topicName(t.name(), t.topicId()))
                .put("partition", p.partitionIndex());
        Errors error = Errors.forCode(p.errorCode());
        if (error != Errors.NONE) {
          node.put("error_code", error.code())
              .put("error", error.name())
              .put("message", error.message());
        }
        if (RETRIED.contains(error)) {
          retriable = error;
        } else {
          allRetriable = false;
        }
      }
    }
    if (retriable != null && allRetriable) {
      throw new HttpApiException(retriable, null);
    }
    return Reply.ok(root, throttle + answer.throttleMs());
  }

  CompletableFuture<Reply> fetch(String group, InProcessApis.Caller caller) {
    Supplier<OffsetFetchRequestData> request = () -> KafkaRequests.offsetFetch(group);
    return retrying(
        () ->
            coordinator(group, caller)
                .thenCompose(
                    coordinator ->
                        apis.<OffsetFetchResponseData>call(
                                ApiKeys.OFFSET_FETCH, (short) 9, request.get(), caller, 0)
                            .thenCompose(
                                local ->
                                    groupError(local.response()) == Errors.NOT_COORDINATOR
                                            && leaders.elsewhere(coordinator.nodeId())
                                        ? forwardFetch(coordinator, request.get(), local, caller)
                                        : CompletableFuture.completedFuture(local))
                            .thenApply(answer -> fetched(group, answer, coordinator.throttleMs()))),
        System.nanoTime() + RETRY_FOR_NANOS);
  }

  private static Errors groupError(OffsetFetchResponseData response) {
    for (OffsetFetchResponseData.OffsetFetchResponseGroup g : response.groups()) {
      if (g.errorCode() != Errors.NONE.code()) {
        return Errors.forCode(g.errorCode());
      }
    }
    return Errors.NONE;
  }

  /**
   * OffsetFetch at the coordinator, which answers as to this node (every topic); the topics the
   * caller may not describe are then left out, as the coordinator's handler leaves them out for a
   * client.
   */
  private CompletableFuture<InProcessApis.Answer<OffsetFetchResponseData>> forwardFetch(
      Coordinator coordinator,
      OffsetFetchRequestData request,
      InProcessApis.Answer<OffsetFetchResponseData> local,
      InProcessApis.Caller caller) {
    return leaders
        .<OffsetFetchResponseData>node(
            coordinator.nodeId(), ApiKeys.OFFSET_FETCH, request, 0, false, local.throttleMs())
        .thenCompose(
            answer -> {
              answer
                  .response()
                  .groups()
                  .forEach(
                      g ->
                          g.topics()
                              .forEach(t -> t.setName(leaders.topicName(t.name(), t.topicId()))));
              Set<String> names = new java.util.TreeSet<>();
              answer.response().groups().forEach(g -> g.topics().forEach(t -> names.add(t.name())));
              if (names.isEmpty()) {
                return CompletableFuture.completedFuture(answer);
              }
              return topics
                  .metadata(new ArrayList<>(names), caller)
                  .thenApply(
                      metadata -> {
                        Set<String> visible = new java.util.HashSet<>();
                        metadata
                            .response()
                            .topics()
                            .forEach(
                                t -> {
                                  if (t.errorCode() != Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                                    visible.add(t.name());
                                  }
                                });
                        answer
                            .response()
                            .groups()
                            .forEach(g -> g.topics().removeIf(t -> !visible.contains(t.name())));
                        return new InProcessApis.Answer<>(
                            answer.response(), answer.throttleMs() + metadata.throttleMs());
                      });
            });
  }

  private static Reply fetched(
      String group, InProcessApis.Answer<OffsetFetchResponseData> answer, int throttle) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("group", group);
    ArrayNode out = root.putArray("offsets");
    for (OffsetFetchResponseData.OffsetFetchResponseGroup g : answer.response().groups()) {
      if (g.errorCode() != Errors.NONE.code()) {
        throw new HttpApiException(Errors.forCode(g.errorCode()), null);
      }
      for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
        for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
          if (p.errorCode() != Errors.NONE.code()) {
            Errors error = Errors.forCode(p.errorCode());
            if (RETRIED.contains(error)) {
              throw new HttpApiException(error, null);
            }
            out.addObject()
                .put("topic", t.name())
                .put("partition", p.partitionIndex())
                .put("error_code", error.code())
                .put("error", error.name());
          } else if (p.committedOffset() >= 0) {
            out.addObject()
                .put("topic", t.name())
                .put("partition", p.partitionIndex())
                .put("offset", p.committedOffset())
                .put("metadata", p.metadata());
          }
        }
      }
    }
    return Reply.ok(root, throttle + answer.throttleMs());
  }

  /**
   * The group's coordinator (FindCoordinator creates the offsets topic if it does not exist yet),
   * or a failure with FindCoordinator's error; without forwarding, a 421 NOT_COORDINATOR naming the
   * broker to ask when that is another one.
   */
  private CompletableFuture<Coordinator> coordinator(String group, InProcessApis.Caller caller) {
    FindCoordinatorRequestData request =
        new FindCoordinatorRequestData()
            .setKeyType(GROUP_KEY_TYPE)
            .setCoordinatorKeys(mutable(group));
    return apis.<FindCoordinatorResponseData>call(
            ApiKeys.FIND_COORDINATOR, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              int node = nodeId;
              for (FindCoordinatorResponseData.Coordinator c : answer.response().coordinators()) {
                if (c.errorCode() != Errors.NONE.code()) {
                  throw new HttpApiException(Errors.forCode(c.errorCode()), c.errorMessage());
                }
                node = c.nodeId();
                if (node != nodeId && !leaders.elsewhere(node)) {
                  throw new HttpApiException(
                      HttpResponseStatus.MISDIRECTED_REQUEST,
                      Errors.NOT_COORDINATOR,
                      "the coordinator of group "
                          + group
                          + " is broker "
                          + c.nodeId()
                          + " ("
                          + c.host()
                          + ":"
                          + c.port()
                          + "); send this request to its HTTP API");
                }
              }
              return new Coordinator(node, answer.throttleMs());
            });
  }

  /** {@code attempt} again after a back-off while it fails with a retried error, until deadline. */
  private <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt, long deadline) {
    return attempt
        .get()
        .exceptionallyCompose(
            error -> {
              Throwable cause = error instanceof CompletionException ? error.getCause() : error;
              HttpApiException refusal = HttpApiException.of(cause);
              boolean mine =
                  RETRIED.contains(refusal.error())
                      && !refusal.status().equals(HttpResponseStatus.MISDIRECTED_REQUEST);
              if (!mine || System.nanoTime() - deadline > 0) {
                return CompletableFuture.<T>failedFuture(cause);
              }
              CompletableFuture<T> next = new CompletableFuture<>();
              timer.schedule(
                  () -> {
                    retrying(attempt, deadline)
                        .whenComplete(
                            (v, e) -> {
                              if (e == null) {
                                next.complete(v);
                              } else {
                                next.completeExceptionally(e);
                              }
                            });
                  },
                  BACKOFF_MS,
                  TimeUnit.MILLISECONDS);
              return next;
            });
  }
}
