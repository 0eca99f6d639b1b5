package io.brook.server.http;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.broker.api.InProcessApis;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * {@code POST /v1/groups/{group}/offsets} (commit) and {@code GET /v1/groups/{group}/offsets}
 * (fetch): FindCoordinator, then OffsetCommit (as a client outside the group's membership commits:
 * generation -1, no member id, which the coordinator accepts while the group has no members) or
 * OffsetFetch (stable offsets), through the broker's handlers and the group coordinator. The
 * group's coordinator must be this broker; otherwise the answer is NOT_COORDINATOR naming the
 * broker to ask. While the coordinator is still loading or its offsets topic is being created the
 * request is retried here, every 100 ms for up to 10 s, without holding a thread.
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

  GroupOffsetsRoute(InProcessApis apis, int nodeId, ScheduledExecutorService timer) {
    this.apis = apis;
    this.nodeId = nodeId;
    this.timer = timer;
  }

  CompletableFuture<Reply> commit(
      String group, ObjectNode body, InProcessApis.Caller caller, int bodyBytes) {
    JsonNode offsets = body.get("offsets");
    if (offsets == null || !offsets.isArray() || offsets.isEmpty()) {
      throw HttpApiException.badRequest("\"offsets\" must be a non-empty array");
    }
    Map<String, OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new LinkedHashMap<>();
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
      topics
          .computeIfAbsent(
              topic, t -> new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(t))
          .partitions()
          .add(
              new OffsetCommitRequestData.OffsetCommitRequestPartition()
                  .setPartitionIndex((int) partition)
                  .setCommittedOffset(offset)
                  .setCommittedLeaderEpoch(-1)
                  .setCommittedMetadata(Json.text(entry, "metadata", false)));
    }
    // Built anew for every attempt: handlers may trim a request's lists (denied entries).
    Supplier<OffsetCommitRequestData> request =
        () ->
            new OffsetCommitRequestData()
                .setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("")
                .setGroupInstanceId(null)
                .setTopics(
                    topics.values().stream()
                        .map(OffsetCommitRequestData.OffsetCommitRequestTopic::duplicate)
                        .collect(java.util.stream.Collectors.toCollection(ArrayList::new)));
    return retrying(
        () ->
            onCoordinator(group, caller)
                .thenCompose(
                    throttle ->
                        apis.<OffsetCommitResponseData>call(
                                ApiKeys.OFFSET_COMMIT, (short) 9, request.get(), caller, bodyBytes)
                            .thenApply(answer -> committed(answer, throttle))),
        System.nanoTime() + RETRY_FOR_NANOS);
  }

  private static Reply committed(
      InProcessApis.Answer<OffsetCommitResponseData> answer, int throttle) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ArrayNode out = root.putArray("offsets");
    Errors retriable = null;
    boolean allRetriable = true;
    for (OffsetCommitResponseData.OffsetCommitResponseTopic t : answer.response().topics()) {
      for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
        ObjectNode node =
            out.addObject().put("topic", t.name()).put("partition", p.partitionIndex());
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
    Supplier<OffsetFetchRequestData> request =
        () ->
            new OffsetFetchRequestData()
                .setRequireStable(true)
                .setGroups(
                    mutable(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId(group)
                            .setMemberId(null)
                            .setMemberEpoch(-1)
                            .setTopics(null)));
    return retrying(
        () ->
            onCoordinator(group, caller)
                .thenCompose(
                    throttle ->
                        apis.<OffsetFetchResponseData>call(
                                ApiKeys.OFFSET_FETCH, (short) 9, request.get(), caller, 0)
                            .thenApply(answer -> fetched(group, answer, throttle))),
        System.nanoTime() + RETRY_FOR_NANOS);
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
   * Completes with FindCoordinator's throttle time once this broker is the group's coordinator
   * (which creates the offsets topic if it does not exist yet), else fails with its error.
   */
  private CompletableFuture<Integer> onCoordinator(String group, InProcessApis.Caller caller) {
    FindCoordinatorRequestData request =
        new FindCoordinatorRequestData()
            .setKeyType(GROUP_KEY_TYPE)
            .setCoordinatorKeys(mutable(group));
    return apis.<FindCoordinatorResponseData>call(
            ApiKeys.FIND_COORDINATOR, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              for (FindCoordinatorResponseData.Coordinator c : answer.response().coordinators()) {
                if (c.errorCode() != Errors.NONE.code()) {
                  throw new HttpApiException(Errors.forCode(c.errorCode()), c.errorMessage());
                }
                if (c.nodeId() != nodeId) {
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
              return answer.throttleMs();
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
