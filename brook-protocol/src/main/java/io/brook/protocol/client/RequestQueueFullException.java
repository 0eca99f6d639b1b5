package io.brook.protocol.client;

import org.apache.kafka.common.errors.RetriableException;

/** A send refused at once: the connection's queue of waiting requests is full. */
public final class RequestQueueFullException extends RetriableException {
  private static final long serialVersionUID = 1L;

  public RequestQueueFullException(String message) {
    super(message);
  }
}
