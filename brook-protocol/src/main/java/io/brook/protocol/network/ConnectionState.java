package io.brook.protocol.network;

/**
 * Where one client connection stands, as seen by its {@link ConnectionHandler}. Only {@link
 * Reading} starts reading new requests; every other state stops reading (through the connection's
 * {@code ReadGate}, which also lets a frame already started finish, and stops reading while the
 * frame decoder waits for request memory).
 *
 * <pre>
 *   in flight &gt;= queued.max.requests or its bytes &gt;= brook.queued.max.request.bytes.per.connection,
 *   or socket unwritable
 *   Reading ────────────────────────────────────────────────────────────▶ Paused
 *      ▲   ◀──────────────────────────────────────────────────────────── │
 *      │        in flight below the limit and socket writable again      │
 *      │                                                                  │
 *      └──────────── drain() (server shutting down) ──────────┬───────────┘
 *                                                               ▼
 *                                 Draining ── last response flushed ──▶ Closed
 *
 *   Closed is also entered from any state on a protocol error, an idle timeout or the peer
 *   closing. Requests still arriving in Closed are dropped.
 * </pre>
 */
sealed interface ConnectionState {
  /** Whether the socket should be read (Netty auto-read). */
  boolean readsAllowed();

  /** Whether newly decoded requests are still dispatched. */
  default boolean dispatches() {
    return !(this instanceof Closed);
  }

  /**
   * Re-evaluates backpressure after requests arrived, responses were written or the socket's
   * writability changed.
   */
  ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable);

  /** The server is shutting down: stop reading, finish what is in flight. */
  ConnectionState onDrain();

  /** The connection is closing and will not send another response. */
  default ConnectionState onClose(String reason) {
    return this instanceof Closed ? this : new Closed(reason);
  }

  static ConnectionState initial() {
    return new Reading();
  }

  /** Reading requests. */
  record Reading() implements ConnectionState {
    @Override
    public boolean readsAllowed() {
      return true;
    }

    @Override
    public ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable) {
      return tooManyInFlight || socketUnwritable
          ? new Paused(tooManyInFlight, socketUnwritable)
          : this;
    }

    @Override
    public ConnectionState onDrain() {
      return new Draining();
    }
  }

  /**
   * Not reading until the client has taken its responses.
   *
   * @param tooManyInFlight {@code queued.max.requests} requests are waiting for responses, or the
   *     requests in flight hold {@code brook.queued.max.request.bytes.per.connection} bytes
   * @param socketUnwritable the socket's send buffer is above Netty's high-water mark
   */
  record Paused(boolean tooManyInFlight, boolean socketUnwritable) implements ConnectionState {
    @Override
    public boolean readsAllowed() {
      return false;
    }

    @Override
    public ConnectionState onLoad(boolean tooMany, boolean unwritable) {
      if (!tooMany && !unwritable) {
        return new Reading();
      }
      return tooMany == tooManyInFlight && unwritable == socketUnwritable
          ? this
          : new Paused(tooMany, unwritable);
    }

    @Override
    public ConnectionState onDrain() {
      return new Draining();
    }
  }

  /** The server is shutting down: no more reading; requests in flight are still answered. */
  record Draining() implements ConnectionState {
    @Override
    public boolean readsAllowed() {
      return false;
    }

    @Override
    public ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable) {
      return this;
    }

    @Override
    public ConnectionState onDrain() {
      return this;
    }
  }

  /**
   * Closing or closed; nothing more is read or sent.
   *
   * @param reason why, for logs
   */
  record Closed(String reason) implements ConnectionState {
    @Override
    public boolean readsAllowed() {
      return false;
    }

    @Override
    public ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable) {
      return this;
    }

    @Override
    public ConnectionState onDrain() {
      return this;
    }
  }
}
