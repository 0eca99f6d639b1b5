package io.brook.protocol.network;

/**
 * Where one client connection stands, as seen by its {@link ConnectionHandler}. Only {@link
 * Reading} starts reading new requests; every other state stops reading (through the connection's
 * {@code ReadGate}, which also lets a frame already started finish, and stops reading while the
 * frame decoder waits for request memory).
 *
 * <pre>
 *   in flight &gt;= queued.max.requests or its bytes &gt;= brook.queued.max.request.bytes.per.connection,
 *   socket unwritable, or the client throttled by a quota (muted until its throttle time passed)
 *   Reading ────────────────────────────────────────────────────────────▶ Paused
 *      ▲   ◀──────────────────────────────────────────────────────────── │
 *      │   in flight below the limit, socket writable, throttle time over  │
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
  default ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable) {
    return onLoad(tooManyInFlight, socketUnwritable, false);
  }

  /**
   * As {@link #onLoad(boolean, boolean)}, also muted while {@code throttled}: the client exceeded a
   * quota and its throttle time has not passed (KIP-219).
   */
  ConnectionState onLoad(boolean tooManyInFlight, boolean socketUnwritable, boolean throttled);

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
    public ConnectionState onLoad(
        boolean tooManyInFlight, boolean socketUnwritable, boolean throttled) {
      return tooManyInFlight || socketUnwritable || throttled
          ? new Paused(tooManyInFlight, socketUnwritable, throttled)
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
   * @param throttled the client is over a quota and muted until its throttle time passed
   */
  record Paused(boolean tooManyInFlight, boolean socketUnwritable, boolean throttled)
      implements ConnectionState {
    Paused(boolean tooManyInFlight, boolean socketUnwritable) {
      this(tooManyInFlight, socketUnwritable, false);
    }

    @Override
    public boolean readsAllowed() {
      return false;
    }

    @Override
    public ConnectionState onLoad(boolean tooMany, boolean unwritable, boolean muted) {
      if (!tooMany && !unwritable && !muted) {
        return new Reading();
      }
      return tooMany == tooManyInFlight && unwritable == socketUnwritable && muted == throttled
          ? this
          : new Paused(tooMany, unwritable, muted);
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
    public ConnectionState onLoad(
        boolean tooManyInFlight, boolean socketUnwritable, boolean throttled) {
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
    public ConnectionState onLoad(
        boolean tooManyInFlight, boolean socketUnwritable, boolean throttled) {
      return this;
    }

    @Override
    public ConnectionState onDrain() {
      return this;
    }
  }
}
