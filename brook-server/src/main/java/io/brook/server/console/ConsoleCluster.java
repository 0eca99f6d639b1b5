package io.brook.server.console;

import static io.brook.broker.api.InProcessApis.mutable;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.brook.broker.api.InProcessApis;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.server.http.Forwarder;
import io.brook.server.http.KafkaRequests;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * How the console reaches beyond this broker, so a page shows the whole cluster whichever broker
 * serves it:
 *
 * <ul>
 *   <li>a listing (groups, transactions, log directories) is asked of every registered, unfenced
 *       broker and merged ({@link #fanOut}); a broker that does not answer within {@link
 *       #TIMEOUT_MS} is named in the answer as giving none, and the page still shows the rest;
 *   <li>a request about one group, transaction or partition goes first to this broker's own handler
 *       as the console's user ({@link #atOwner}): that checks the user's rights, and answers
 *       NOT_COORDINATOR or NOT_LEADER_OR_FOLLOWER only for an authorized request; the request then
 *       goes to the broker that serves it over the inter-broker listener, as this node.
 * </ul>
 *
 * What other brokers answer as this node is not narrowed by the user's rights there, so whatever a
 * listing of theirs names is shown only after this broker's handler said the user may DESCRIBE it
 * ({@link #coordinators}: FindCoordinator as the user, which also says who serves each).
 *
 * <p>Bounded: the inter-broker client keeps a few requests in flight per broker and a short queue
 * behind them, failing the rest at once; each request times out after {@link #TIMEOUT_MS}.
 */
final class ConsoleCluster {
  /** How long another broker may take to answer one console request. */
  static final int TIMEOUT_MS = 5_000;

  /** FindCoordinator's key types (Kafka's CoordinatorType). */
  static final byte GROUP = 0;

  static final byte TRANSACTION = 1;

  private final InProcessApis apis;
  private final Forwarder forwarder;
  private final Supplier<MetadataImage> image;
  private final int nodeId;

  /**
   * @param forwarder the inter-broker connections, or null when the console shows this broker only
   */
  ConsoleCluster(
      InProcessApis apis, Forwarder forwarder, Supplier<MetadataImage> image, int nodeId) {
    this.apis = apis;
    this.forwarder = forwarder;
    this.image = image;
    this.nodeId = nodeId;
  }

  int nodeId() {
    return nodeId;
  }

  /** Whether requests can go to {@code node}: another broker, when there are connections. */
  boolean reaches(int node) {
    return forwarder != null && node >= 0 && node != nodeId;
  }

  /** The brokers a listing asks: registered and not fenced (this one always), by id. */
  List<Integer> brokers() {
    List<Integer> ids = new ArrayList<>();
    for (BrokerRegistration b : new TreeMap<>(image.get().brokers()).values()) {
      if (b.id() == nodeId || (!b.fenced() && reaches(b.id()))) {
        ids.add(b.id());
      }
    }
    if (!ids.contains(nodeId)) {
      ids.add(0, nodeId);
    }
    return ids;
  }

  /** The leader of a partition in this broker's metadata, or -1. */
  int leader(String topic, int partition) {
    return image
        .get()
        .partition(topic, partition)
        .map(PartitionImage::leader)
        .orElse(PartitionImage.NO_LEADER);
  }

  /** {@code name} when a response gave it, else the name of topic {@code id}. */
  String topicName(String name, Uuid id) {
    if ((name != null && !name.isEmpty()) || id == null || Uuid.ZERO_UUID.equals(id)) {
      return name;
    }
    return image.get().topic(id).map(t -> t.name()).orElse(id.toString());
  }

  /** The id of a topic in this broker's metadata, or {@link Uuid#ZERO_UUID}. */
  Uuid topicId(String topic) {
    return image.get().topic(topic).map(t -> t.id()).orElse(Uuid.ZERO_UUID);
  }

  /** One broker's part of a fan-out: its answer, or why there is none. */
  record Reply<T>(int node, T value, String failure) {
    boolean answered() {
      return failure == null;
    }
  }

  /**
   * {@code ask} of each of {@code nodes} at once, each given {@code timeoutMs}; completes when all
   * answered or gave up, in the order of {@code nodes}, and never fails.
   */
  static <T> CompletableFuture<List<Reply<T>>> fanOut(
      Collection<Integer> nodes, IntFunction<CompletableFuture<T>> ask, long timeoutMs) {
    List<CompletableFuture<Reply<T>>> replies = new ArrayList<>(nodes.size());
    for (int node : nodes) {
      CompletableFuture<T> answer;
      try {
        answer = ask.apply(node);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      replies.add(
          answer
              .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
              .handle(
                  (value, error) ->
                      error == null
                          ? new Reply<>(node, value, null)
                          : new Reply<T>(node, null, reason(error))));
    }
    return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
        .thenApply(done -> replies.stream().map(CompletableFuture::join).toList());
  }

  /** Why a broker gave no answer, as the page shows it. */
  static String reason(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof TimeoutException
        || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
      return "no answer in time";
    }
    String message = cause.getMessage();
    return "no answer: " + (message == null ? cause.getClass().getSimpleName() : message);
  }

  /**
   * {@code request} to {@code node}: this broker's handler as {@code caller}, another broker over
   * the inter-broker listener as this node (at the newest version both speak).
   */
  @SuppressWarnings("unchecked")
  <T extends ApiMessage> CompletableFuture<T> at(
      int node, ApiKeys key, short version, ApiMessage request, InProcessApis.Caller caller) {
    if (node == nodeId || !reaches(node)) {
      return apis.<T>call(key, version, request, caller, 0)
          .thenApply(InProcessApis.Answer::response);
    }
    return forwarder.send(node, key, request, TIMEOUT_MS, false).thenApply(r -> (T) r);
  }

  /**
   * This broker's handler's answer to {@code request} as {@code caller}, unless it says the request
   * is served elsewhere ({@code misdirected}, which Kafka answers only to an authorized request):
   * then the request, built anew, sent to {@code owner} (the coordinator or leader; -1 keeps the
   * local answer).
   */
  <T extends ApiMessage> CompletableFuture<T> atOwner(
      ApiKeys key,
      short version,
      Supplier<? extends ApiMessage> request,
      InProcessApis.Caller caller,
      Predicate<T> misdirected,
      Supplier<CompletableFuture<Integer>> owner) {
    return atOwner(key, version, request, request, caller, misdirected, owner);
  }

  /** As above, {@code forwarded} building the request another broker is sent. */
  @SuppressWarnings("unchecked")
  <T extends ApiMessage> CompletableFuture<T> atOwner(
      ApiKeys key,
      short version,
      Supplier<? extends ApiMessage> request,
      Supplier<? extends ApiMessage> forwarded,
      InProcessApis.Caller caller,
      Predicate<T> misdirected,
      Supplier<CompletableFuture<Integer>> owner) {
    return apis.<T>call(key, version, request.get(), caller, 0)
        .thenCompose(
            local -> {
              if (local.response() == null
                  || forwarder == null
                  || !misdirected.test(local.response())) {
                return CompletableFuture.completedFuture(local.response());
              }
              return owner
                  .get()
                  .thenCompose(
                      node ->
                          reaches(node)
                              ? forwarder
                                  .send(node, key, forwarded.get(), TIMEOUT_MS, false)
                                  .thenApply(r -> (T) r)
                              : CompletableFuture.completedFuture(local.response()));
            });
  }

  /** A listing merged over the brokers: each key with its coordinator, and who gave no answer. */
  record Merged(Map<String, Integer> coordinators, ArrayNode unanswered) {}

  /**
   * Merges a listing asked of every broker ({@link #fanOut}): the keys this broker's handler listed
   * for the caller, coordinated here; the keys only other brokers listed (as this node), kept where
   * FindCoordinator as the caller allows them, with the coordinator it names; the brokers that gave
   * no answer, or an error, named. This broker's own error fails the listing.
   *
   * @param keys the keys (group or transactional ids) of one broker's answer
   * @param error the error code of one broker's answer
   */
  <R> CompletableFuture<Merged> merge(
      byte keyType,
      List<Reply<R>> replies,
      Function<R, Collection<String>> keys,
      ToIntFunction<R> error,
      InProcessApis.Caller caller) {
    Map<String, Integer> coordinators = new TreeMap<>();
    Set<String> elsewhere = new TreeSet<>();
    ArrayNode unanswered = JsonNodeFactory.instance.arrayNode();
    for (Reply<R> reply : replies) {
      boolean local = reply.node() == nodeId;
      if (!reply.answered()) {
        unanswered.addObject().put("broker", reply.node()).put("reason", reply.failure());
        continue;
      }
      short code = (short) error.applyAsInt(reply.value());
      if (code != Errors.NONE.code()) {
        if (local) {
          throw ConsoleException.of(code, null);
        }
        unanswered
            .addObject()
            .put("broker", reply.node())
            .put("reason", Errors.forCode(code).name());
        continue;
      }
      for (String key : keys.apply(reply.value())) {
        if (local) {
          coordinators.put(key, nodeId);
        } else {
          elsewhere.add(key);
        }
      }
    }
    elsewhere.removeAll(coordinators.keySet());
    return coordinators(keyType, elsewhere, caller)
        .thenApply(
            allowed -> {
              coordinators.putAll(allowed);
              return new Merged(coordinators, unanswered);
            });
  }

  /**
   * The coordinators of {@code keys} (groups or transactional ids) that {@code caller} may
   * DESCRIBE: one batched FindCoordinator to this broker's handler as the caller. A key the caller
   * may not describe, or whose coordinator is not known, is absent.
   */
  CompletableFuture<Map<String, Integer>> coordinators(
      byte keyType, Collection<String> keys, InProcessApis.Caller caller) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    FindCoordinatorRequestData request =
        new FindCoordinatorRequestData()
            .setKeyType(keyType)
            .setCoordinatorKeys(new ArrayList<>(keys));
    return apis.<FindCoordinatorResponseData>call(
            ApiKeys.FIND_COORDINATOR, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              Map<String, Integer> found = new HashMap<>();
              for (FindCoordinatorResponseData.Coordinator c : answer.response().coordinators()) {
                if (c.errorCode() == Errors.NONE.code()) {
                  found.put(c.key(), c.nodeId());
                }
              }
              return found;
            });
  }

  /**
   * The coordinator of one key as {@code caller} may ask it; fails with FindCoordinator's error
   * (the caller may not describe it: 403).
   */
  CompletableFuture<Integer> coordinator(byte keyType, String key, InProcessApis.Caller caller) {
    FindCoordinatorRequestData request =
        new FindCoordinatorRequestData().setKeyType(keyType).setCoordinatorKeys(mutable(key));
    return apis.<FindCoordinatorResponseData>call(
            ApiKeys.FIND_COORDINATOR, (short) 6, request, caller, 0)
        .thenApply(
            answer -> {
              for (FindCoordinatorResponseData.Coordinator c : answer.response().coordinators()) {
                if (c.errorCode() != Errors.NONE.code()) {
                  throw ConsoleException.of(c.errorCode(), c.errorMessage());
                }
                return c.nodeId();
              }
              throw ConsoleException.of(Errors.COORDINATOR_NOT_AVAILABLE.code(), key);
            });
  }

  /**
   * The topics of {@code topics} (every topic when null) the caller may DESCRIBE, as this broker's
   * Metadata handler answers them for that user.
   */
  CompletableFuture<Set<String>> describable(List<String> topics, InProcessApis.Caller caller) {
    if (topics != null && topics.isEmpty()) {
      return CompletableFuture.completedFuture(Set.of());
    }
    return apis.<MetadataResponseData>call(
            ApiKeys.METADATA, (short) 12, KafkaRequests.metadata(topics), caller, 0)
        .thenApply(
            answer -> {
              Set<String> allowed = new HashSet<>();
              for (MetadataResponseData.MetadataResponseTopic t : answer.response().topics()) {
                if (t.errorCode() != Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                  allowed.add(t.name());
                }
              }
              return allowed;
            });
  }
}
