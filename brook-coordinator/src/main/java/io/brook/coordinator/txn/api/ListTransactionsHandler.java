package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.TransactionState;
import io.brook.coordinator.txn.TxnMetadata;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;

/**
 * ListTransactions: the transactional ids of every partition this broker coordinates, filtered by
 * state, producer id, how long the transaction has been open (KIP-994) and an id pattern.
 */
public final class ListTransactionsHandler extends GroupApi {
  private final TransactionCoordinator coordinator;
  private final Time time;

  public ListTransactionsHandler(TransactionCoordinator coordinator, Time time) {
    super(ApiKeys.LIST_TRANSACTIONS);
    this.coordinator = coordinator;
    this.time = time;
  }

  /** A request's filters; an empty set matches everything. */
  private record Filter(
      Set<TransactionState> states, Set<Long> producerIds, long minDurationMs, Pattern pattern) {
    boolean matches(TxnMetadata txn, long now) {
      return (states.isEmpty() || states.contains(txn.state()))
          && (producerIds.isEmpty() || producerIds.contains(txn.producerId()))
          && (minDurationMs < 0
              || (txn.startTimestampMs() >= 0 && now - txn.startTimestampMs() >= minDurationMs))
          && (pattern == null || pattern.matcher(txn.transactionalId()).matches());
    }
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ListTransactionsRequestData request = (ListTransactionsRequestData) message;
    ListTransactionsResponseData response = new ListTransactionsResponseData();
    Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
    for (String name : request.stateFilters()) {
      Optional<TransactionState> state = TransactionState.fromName(name);
      if (state.isPresent()) {
        states.add(state.get());
      } else {
        response.unknownStateFilters().add(name);
      }
    }
    if (!request.stateFilters().isEmpty() && states.isEmpty()) {
      return CompletableFuture.completedFuture(response); // only unknown states: nothing matches
    }
    Pattern pattern;
    try {
      String regex = request.transactionalIdPattern();
      pattern = regex == null || regex.isEmpty() ? null : Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      return CompletableFuture.completedFuture(
          response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
    }
    Filter filter =
        new Filter(
            states, new HashSet<>(request.producerIdFilters()), request.durationFilter(), pattern);
    long now = time.milliseconds();
    List<CompletableFuture<List<TxnMetadata>>> shards =
        coordinator.runOnAll(shard -> CompletableFuture.completedFuture(shard.all()));
    return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
        .handle((ignored, failure) -> collect(shards, filter, now, response));
  }

  private static ApiMessage collect(
      List<CompletableFuture<List<TxnMetadata>>> shards,
      Filter filter,
      long now,
      ListTransactionsResponseData response) {
    List<ListTransactionsResponseData.TransactionState> out = new ArrayList<>();
    for (CompletableFuture<List<TxnMetadata>> shard : shards) {
      if (shard.isCompletedExceptionally()) {
        continue; // unloaded meanwhile: its ids are listed by their new coordinator
      }
      for (TxnMetadata txn : shard.join()) {
        if (filter.matches(txn, now)) {
          out.add(
              new ListTransactionsResponseData.TransactionState()
                  .setTransactionalId(txn.transactionalId())
                  .setProducerId(txn.producerId())
                  .setTransactionState(txn.state().stateName()));
        }
      }
    }
    return response.setTransactionStates(out);
  }
}
