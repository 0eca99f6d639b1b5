package io.brook.protocol.network;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Puts one connection's responses back into request order. Kafka clients pipeline requests (up to
 * {@code max.in.flight.requests.per.connection}, 5 by default) and match responses by order as well
 * as by correlation id, so a response may only go out once every earlier request has been answered
 * or has turned out to need no answer (Produce with acks=0).
 *
 * <p>Each request takes a sequence number on arrival ({@link #register()}); {@link #complete}
 * records its outcome and hands back every response that may now be written, in order.
 *
 * <p>Not thread-safe: confined to the connection's event loop.
 *
 * @param <T> the response type
 */
public final class ResponseOrderer<T> {
  private final Map<Long, Optional<T>> completed = new HashMap<>();
  private long nextSequence;
  private long nextToSend;

  /** A sequence number for the request that just arrived. */
  public long register() {
    return nextSequence++;
  }

  /**
   * Records the outcome of request {@code sequence}.
   *
   * @param response the response, or {@code null} if the request gets none
   * @return the responses that are now next in order, possibly none
   * @throws IllegalStateException if {@code sequence} was not registered or is already complete
   */
  public List<T> complete(long sequence, T response) {
    if (sequence < nextToSend || sequence >= nextSequence) {
      throw new IllegalStateException("request " + sequence + " is not in flight");
    }
    if (completed.putIfAbsent(sequence, Optional.ofNullable(response)) != null) {
      throw new IllegalStateException("request " + sequence + " completed twice");
    }
    if (sequence != nextToSend) {
      return List.of();
    }
    List<T> ready = new ArrayList<>(1);
    Optional<T> next;
    while ((next = completed.remove(nextToSend)) != null) {
      next.ifPresent(ready::add);
      nextToSend++;
    }
    return ready;
  }

  /** Requests registered whose turn to be answered has not come yet. */
  public int inFlight() {
    return (int) (nextSequence - nextToSend);
  }
}
